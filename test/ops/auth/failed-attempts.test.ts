import { describe, expect, it } from 'vitest';
import { FailedAttempts } from '../../../src/ops/auth/failed-attempts.js';

describe('failed attempts per client', () => {
  it('holds a client back after its limit until its window ends, and no other client', () => {
    const attempts = new FailedAttempts(3, 60_000);
    for (let index = 0; index < 3; index += 1) attempts.begin('10.0.0.1', 1_000);
    expect(attempts.retryAfterSeconds('10.0.0.1', 1_000)).toBe(60);
    expect(attempts.retryAfterSeconds('10.0.0.1', 45_500)).toBe(16);
    expect(attempts.retryAfterSeconds('10.0.0.2', 45_500)).toBe(0);
    expect(attempts.retryAfterSeconds('10.0.0.1', 61_000)).toBe(0);
  });

  it('takes back an attempt that succeeded', () => {
    const attempts = new FailedAttempts(2, 60_000);
    attempts.begin('10.0.0.1', 0);
    attempts.begin('10.0.0.1', 0);
    expect(attempts.retryAfterSeconds('10.0.0.1', 0)).toBeGreaterThan(0);
    attempts.succeeded('10.0.0.1');
    expect(attempts.retryAfterSeconds('10.0.0.1', 0)).toBe(0);
  });

  it('remembers at most its number of clients, forgetting the oldest', () => {
    const attempts = new FailedAttempts(1, 60_000, 2);
    attempts.begin('10.0.0.1', 0);
    attempts.begin('10.0.0.2', 0);
    attempts.begin('10.0.0.3', 0);
    expect(attempts.retryAfterSeconds('10.0.0.1', 0)).toBe(0);
    expect(attempts.retryAfterSeconds('10.0.0.2', 0)).toBeGreaterThan(0);
    expect(attempts.retryAfterSeconds('10.0.0.3', 0)).toBeGreaterThan(0);
  });
});
