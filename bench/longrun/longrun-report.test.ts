import { describe, expect, it } from 'vitest';
import { atMost, growthPercent, longrunText } from './longrun-report.js';

describe('the long run report', () => {
  it('measures growth against the first reading', () => {
    expect(growthPercent(100, 110)).toBeCloseTo(10);
    expect(growthPercent(200, 150)).toBeCloseTo(-25);
  });

  it('meets a target at or under its limit, misses above it or when nothing was measured', () => {
    expect(atMost('x', 10, 10, ' %').met).toBe(true);
    expect(atMost('x', 10.01, 10, ' %', 1).met).toBe(false);
    expect(atMost('x', Number.NaN, 10, ' %').met).toBe(false);
    expect(atMost('x', 9.96, 10, ' %', 1)).toEqual({
      figure: 'x',
      measured: '10.0 %',
      target: '≤ 10 %',
      met: true,
    });
  });

  it('prints met and missed beside each figure with a target', () => {
    const text = longrunText(
      {
        context: {
          command: 'npm run bench -- longrun',
          machine: { cpus: 2, model: 'cpu', node: 'v20' },
          loadAverage: { before: [1, 1, 1], after: [2, 2, 2] },
        },
        speedLoopMs: { before: 700, after: 800 },
        sections: [
          {
            title: 'nights',
            figures: [
              atMost('growth', 5, 10, ' %'),
              atMost('bytes', 400, 300, ' B'),
              { figure: 'runs', measured: '3' },
            ],
          },
        ],
      },
      false,
    );
    expect(text).toMatch(/growth\s+5 %\s+≤ 10 %\s+met\n/);
    expect(text).toMatch(/bytes\s+400 B\s+≤ 300 B\s+missed\n/);
    expect(text).toMatch(/runs\s+3\n/);
    expect(text).toContain('speed loop: 700 ms before, 800 ms after');
  });
});
