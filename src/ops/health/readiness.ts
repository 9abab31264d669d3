import type { Redis } from 'ioredis';
import type { PlatformClient } from '../../platform/platform-client.js';

/** One dependency's state, as `/readyz` reports it. */
type CheckResult =
  | { readonly status: 'ok'; readonly ms: number }
  | { readonly status: 'failed'; readonly ms: number; readonly error: string }
  | { readonly status: 'skipped'; readonly reason: string };

/** What `/readyz` answers: ready when no check failed. */
export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: { readonly redis: CheckResult; readonly platform: CheckResult };
}

export interface ReadinessOptions {
  readonly redis: Redis;
  /**
   * The process's platform client; none for a process whose work does not wait for the platform
   * (a scheduler: it calls the platform only for protection coverage).
   */
  readonly platform?: PlatformClient;
  /** How long each check may take; 5 s by default (probes time out too). */
  readonly timeoutMs?: number;
}

/**
 * Checks what a paw process needs to do its work: Redis answers a PING, and the platform hands
 * out an access token (the cached one while it is valid, so a probe costs the platform nothing
 * in the steady state). Both run at once; each names its own failure.
 */
export async function checkReadiness(options: ReadinessOptions): Promise<ReadinessReport> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const platform = options.platform;
  const [redis, platformResult] = await Promise.all([
    timed('Redis', timeoutMs, async () => {
      const answer: string = await options.redis.ping();
      if (answer !== 'PONG') throw new Error(`answered ${answer} to PING`);
    }),
    platform === undefined
      ? Promise.resolve<CheckResult>({
          status: 'skipped',
          reason: "this process's work does not wait for the platform",
        })
      : timed('the platform', timeoutMs, async (signal) => {
          await platform.tokens.token(signal);
        }),
  ]);
  return {
    ready: redis.status !== 'failed' && platformResult.status !== 'failed',
    checks: { redis, platform: platformResult },
  };
}

async function timed(
  what: string,
  timeoutMs: number,
  check: (signal: AbortSignal) => Promise<void>,
): Promise<CheckResult> {
  const started = performance.now();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`${what} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    await Promise.race([check(controller.signal), timeout]);
    return { status: 'ok', ms: Math.round(performance.now() - started) };
  } catch (error) {
    return {
      status: 'failed',
      ms: Math.round(performance.now() - started),
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    };
  } finally {
    clearTimeout(timer);
  }
}
