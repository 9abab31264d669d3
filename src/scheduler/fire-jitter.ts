import { createHash } from 'node:crypto';

/**
 * How much later than its time a fire runs under `schedule.jitter`: a fixed point in
 * `[0, jitterMs)` derived from the definition and the fire time, so every replica (and a
 * restarted one) computes the same delay for the same fire, and definitions set to the same
 * minute land at different points of it. Temporal's schedules spread fires the same way.
 */
export function jitterOffsetMs(definitionId: string, fireTime: Date, jitterMs: number): number {
  if (jitterMs <= 0) return 0;
  const digest = createHash('sha256').update(`${definitionId}@${fireTime.toISOString()}`).digest();
  // 48 bits are plenty for any duration in milliseconds, and exact in a double.
  return digest.readUIntBE(0, 6) % Math.floor(jitterMs);
}
