import { describe, expect, it } from 'vitest';
import { lazyChild } from '../../src/shared/lazy-child.js';
import { createLogger } from '../../src/shared/logger.js';

describe('lazyChild', () => {
  it('logs like logger.child at the levels the logger writes, redacting the bindings, and drops the rest', () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'warn',
      destination: { write: (line: string) => void lines.push(line) },
    });
    const child = lazyChild(logger, { runId: 'r1', token: 'SECRET' });
    child.info({ a: 1 }, 'not written');
    child.debug('not written either');
    child.warn({ b: 2 }, 'written');
    child.child({ nested: true }).error('nested');
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toMatchObject([
      { msg: 'written', runId: 'r1', token: '[redacted]', b: 2 },
      { msg: 'nested', runId: 'r1', token: '[redacted]', nested: true },
    ]);
    expect(child.isLevelEnabled('info')).toBe(false);
    expect(lines.join('')).not.toContain('SECRET');
  });
});
