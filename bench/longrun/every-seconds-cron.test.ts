import { describe, expect, it } from 'vitest';
import { everySecondsCron } from './every-seconds-cron.js';

describe('everySecondsCron', () => {
  it('writes a period within a minute in the seconds field, a longer one in minutes', () => {
    expect(everySecondsCron(30)).toBe('*/30 * * * * *');
    expect(everySecondsCron(60)).toBe('0 */1 * * * *');
    expect(everySecondsCron(120)).toBe('0 */2 * * * *');
  });

  it('refuses a period that no cron expression fires evenly', () => {
    expect(() => everySecondsCron(45)).toThrow(/--every 45/);
    expect(() => everySecondsCron(90)).toThrow(/--every 90/);
    expect(() => everySecondsCron(0)).toThrow();
  });
});
