import type { Redis } from 'ioredis';
import type { Logger } from '../shared/logger.js';

/**
 * How an operator reached paw: the ops server's ways of signing in (OpsUser, src/ops/auth/), or
 * the command line.
 */
export type OperatorChannel = 'bearer' | 'basic' | 'proxy' | 'open' | 'cli';

/** Operator actions kept (a capped Redis stream): who changed what through the ops server. */
const KEPT = 1000;

export interface OperatorAction {
  readonly at: string;
  readonly user: string;
  readonly via: OperatorChannel;
  readonly action: string;
  readonly target: string;
  /** `done`, `no change`, or `refused`. */
  readonly outcome: string;
  /** Why the operator did it, in their words (`--reason`, the dashboard's form). */
  readonly reason?: string;
  /** What came of it, or why it was refused (`started <runId>`). */
  readonly detail?: string;
}

/** The record of what operators did through `/queues` (and the dashboard's actions). */
export class OperatorActions {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly logger: Logger,
  ) {
    this.key = `${prefix}:ops:actions`;
  }

  async record(action: Omit<OperatorAction, 'at'>): Promise<void> {
    const entry: OperatorAction = { at: new Date().toISOString(), ...action };
    this.logger.info({ ...entry }, 'operator action');
    await this.redis.xadd(
      this.key,
      'MAXLEN',
      '~',
      String(KEPT),
      '*',
      ...Object.entries(entry).flatMap(([field, value]): string[] => [field, String(value)]),
    );
  }

  /** The newest actions first. */
  async list(limit = 50): Promise<OperatorAction[]> {
    const entries = await this.redis.xrevrange(this.key, '+', '-', 'COUNT', limit);
    return entries.map(([, fields]) => {
      const record: Record<string, string> = {};
      for (let index = 0; index + 1 < fields.length; index += 2) {
        record[fields[index] ?? ''] = fields[index + 1] ?? '';
      }
      return record as unknown as OperatorAction;
    });
  }
}
