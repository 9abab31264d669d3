import { describe, expect, it } from 'vitest';
import { BoundedWork } from '../../../src/ops/auth/bounded-work.js';

/** A task that ends when the test says so, and tells when it started. */
function heldTask() {
  let finish: () => void = () => undefined;
  const state = { started: false };
  const task = () => {
    state.started = true;
    return new Promise<void>((resolve) => (finish = resolve));
  };
  return { task, state, finish: () => finish() };
}

describe('bounded work', () => {
  it('runs so many at once, lines up so many more, and turns the rest away unrun', async () => {
    const work = new BoundedWork(2, 1);
    const tasks = Array.from({ length: 4 }, heldTask);
    const runs = tasks.map((held) => work.run(held.task));
    await Promise.resolve();
    expect(tasks.map((held) => held.state.started)).toEqual([true, true, false, false]);
    expect(runs[2]).toBeDefined();
    expect(runs[3]).toBeUndefined();
    tasks[0]?.finish();
    await runs[0];
    await new Promise((resolve) => setImmediate(resolve));
    expect(tasks[2]?.state.started).toBe(true);
    // The line has room again.
    expect(work.run(async () => 'next')).toBeDefined();
    tasks[1]?.finish();
    tasks[2]?.finish();
    await Promise.all([runs[1], runs[2]]);
  });

  it('frees its place when a task fails', async () => {
    const work = new BoundedWork(1, 0);
    await expect(work.run(() => Promise.reject(new Error('hash failed')))).rejects.toThrow();
    await expect(work.run(async () => 'after')).resolves.toBe('after');
  });
});
