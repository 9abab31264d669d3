import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Job, Queue } from 'bullmq';
import { addStandardJob } from 'bullmq/dist/esm/scripts/addStandardJob-9.js';
import { moveToDelayed } from 'bullmq/dist/esm/scripts/moveToDelayed-11.js';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownedJobStep } from '../../src/queue/delayed-move.js';
import { jobAddition } from '../../src/queue/run-job-addition.js';
import { connectTestRedis, uniquePrefix } from '../testkit/redis-connection.js';

/**
 * paw runs two of BullMQ's private scripts inside scripts of its own (a fire's run and its job:
 * src/queue/run-job-addition.ts; a lane's records and its move: src/queue/delayed-move.ts), so it
 * depends on their KEYS and ARGV by position, which BullMQ does not promise to keep across
 * versions. These tests pin the layout paw was written against to the BullMQ version
 * package.json pins: an upgrade that changes it fails here, not in a night.
 */

const require = createRequire(import.meta.url);

/** The `KEYS[i] ...` and `ARGV[i] ...` lines of a BullMQ script's header, trimmed. */
function headerLayout(script: string): string[] {
  const header = /^--\[\[([\s\S]*?)\]\]/.exec(script)?.[1] ?? '';
  return header
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^(KEYS|ARGV)\[\d+\]/.test(line));
}

/** The highest `KEYS[i]` or `ARGV[i]` the script's code (not its header) reads. */
function highestIndex(script: string, table: 'KEYS' | 'ARGV'): number {
  const code = script.replace(/--\[\[[\s\S]*?\]\]/g, '');
  const indexes = [...code.matchAll(new RegExp(`${table}\\[(\\d+)\\]`, 'g'))].map((match) =>
    Number(match[1]),
  );
  return Math.max(0, ...indexes);
}

/** An argument as ioredis writes it (its toArg): what the script receives. */
function onTheWire(argument: string | number | Buffer | undefined | null): string {
  if (argument === undefined || argument === null) return '';
  return Buffer.isBuffer(argument) ? argument.toString('latin1') : String(argument);
}

let redis: Redis;

beforeAll(() => {
  redis = connectTestRedis();
});

afterAll(async () => {
  await redis.quit();
});

describe('the BullMQ paw runs scripts of', () => {
  it('is the exact version package.json pins, and the one installed', () => {
    const pinned = (
      JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
        dependencies: Record<string, string>;
      }
    ).dependencies['bullmq'];
    expect(pinned, 'bullmq is pinned to an exact version').toMatch(/^\d+\.\d+\.\d+$/);
    const installed = (
      JSON.parse(readFileSync(require.resolve('bullmq/package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    expect(installed).toBe(pinned);
  });
});

describe("BullMQ's moveToDelayed, as src/queue/delayed-move.ts and delayedMove.lua use it", () => {
  it('takes the eleven keys and nine arguments, in the order paw builds them', () => {
    expect(moveToDelayed.keys).toBe(11);
    expect(headerLayout(moveToDelayed.content)).toEqual([
      'KEYS[1] marker key',
      'KEYS[2] active key',
      'KEYS[3] prioritized key',
      'KEYS[4] delayed key',
      'KEYS[5] job key',
      'KEYS[6] events stream',
      'KEYS[7] meta key',
      'KEYS[8] stalled key',
      'KEYS[9] wait key',
      'KEYS[10] rate limiter key',
      'KEYS[11] pc priority counter',
      'ARGV[1] key prefix',
      'ARGV[2] timestamp',
      'ARGV[3] the id of the job',
      'ARGV[4] queue token',
      'ARGV[5] delay value',
      'ARGV[6] skip attempt',
      'ARGV[7] optional job fields to update',
      'ARGV[8] fetch next?',
      'ARGV[9] opts',
    ]);
    expect(highestIndex(moveToDelayed.content, 'KEYS')).toBeLessThanOrEqual(11);
    expect(highestIndex(moveToDelayed.content, 'ARGV')).toBeLessThanOrEqual(9);
  });

  it('is given exactly what Job.moveToDelayed would give it (no attempt used, nothing fetched next)', async () => {
    const prefix = uniquePrefix('bullmq-args');
    const queue = new Queue('steps', { connection: redis, prefix });
    try {
      const job = new Job(queue, 'step', {}, {}, 'lane-3');
      const step = ownedJobStep(job, 'the-token');
      const timestamp = Number(step.args[1]);
      const bullmq = (
        queue as unknown as {
          backend: {
            moveToDelayedArgs: (
              jobId: string,
              timestamp: number,
              token: string,
              delay: number,
              opts: { skipAttempt: boolean; fetchNext: boolean },
            ) => (string | number | Buffer | undefined)[];
          };
        }
      ).backend.moveToDelayedArgs('lane-3', timestamp, 'the-token', 0, {
        skipAttempt: true,
        fetchNext: false,
      });
      expect(bullmq.slice(0, 11).map(onTheWire)).toEqual(step.keys);
      expect(bullmq.slice(11).map(onTheWire)).toEqual(step.args.slice(0, 9).map(onTheWire));
      // Then paw's own two: whether to move, and stay-if-due-within.
      expect(step.args).toHaveLength(11);
    } finally {
      await queue.close();
    }
  });
});

describe("BullMQ's addStandardJob, as createRunAndAddJob-13.lua uses it", () => {
  it('takes the nine keys and three arguments paw passes through by position', async () => {
    expect(addStandardJob.keys).toBe(9);
    expect(headerLayout(addStandardJob.content)).toEqual([
      "KEYS[1] 'wait',",
      "KEYS[2] 'paused'",
      "KEYS[3] 'meta'",
      "KEYS[4] 'id'",
      "KEYS[5] 'completed'",
      "KEYS[6] 'delayed'",
      "KEYS[7] 'active'",
      'KEYS[8] events stream key',
      'KEYS[9] marker key',
      'ARGV[1] msgpacked arguments array',
      'ARGV[2] Json stringified job data',
      'ARGV[3] msgpacked options',
    ]);
    expect(highestIndex(addStandardJob.content, 'KEYS')).toBeLessThanOrEqual(9);
    expect(highestIndex(addStandardJob.content, 'ARGV')).toBeLessThanOrEqual(3);

    const prefix = uniquePrefix('bullmq-args');
    const queue = new Queue('runs', { connection: redis, prefix });
    try {
      const addition = await jobAddition(queue, {
        name: 'run',
        data: { runId: 'r1' },
        jobId: 'r1',
      });
      const keys = queue.keys;
      expect(addition.keys).toEqual([
        keys.wait,
        keys.paused,
        keys.meta,
        keys.id,
        keys.completed,
        keys.delayed,
        keys.active,
        keys.events,
        keys.marker,
      ]);
      expect(addition.args).toHaveLength(3);
      expect(onTheWire(addition.args[1])).toBe(JSON.stringify({ runId: 'r1' }));
    } finally {
      await queue.close();
    }
  });
});
