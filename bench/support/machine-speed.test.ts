import { describe, expect, it } from 'vitest';
import { machineSpeedMs } from './machine-speed.js';

describe('machineSpeedMs', () => {
  it('reads the CPU time of its fixed loop in fresh processes', async () => {
    const ms = await machineSpeedMs();
    expect(Number.isFinite(ms)).toBe(true);
    // A loop of 400,000 JSON round trips cannot take no time, nor a minute.
    expect(ms).toBeGreaterThan(10);
    expect(ms).toBeLessThan(60_000);
  });
});
