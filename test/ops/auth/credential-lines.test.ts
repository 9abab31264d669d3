import { describe, expect, it } from 'vitest';
import { parseTokenLines, parseUserLines } from '../../../src/ops/auth/credential-lines.js';
import { hashPassword } from '../../../src/ops/auth/password-hash.js';

const TOKEN = 'f3a9c1d7e5b20846';

describe('the lines of the ops credentials files', () => {
  it('reads `name:token` and bare tokens, skipping comments and blank lines', () => {
    const parsed = parseTokenLines(
      `# ops\n\n  ci:${TOKEN}  \n${TOKEN}x\nbot:${TOKEN}:with-colon\n`,
    );
    expect(parsed.refused).toEqual([]);
    expect(parsed.entries).toEqual([
      { name: 'ci', secret: TOKEN },
      { name: 'bearer token', secret: `${TOKEN}x` },
      { name: 'bot', secret: `${TOKEN}:with-colon` },
    ]);
  });

  it('refuses short tokens, names with spaces and tokens with spaces, by line, never quoting them', () => {
    const parsed = parseTokenLines(
      `ci:${TOKEN}\nx\nci:tiny-tok\nmy bot:${TOKEN}\n:${TOKEN}\n${TOKEN} ${TOKEN}\n`,
    );
    expect(parsed.entries).toEqual([{ name: 'ci', secret: TOKEN }]);
    expect(parsed.refused.map((refused) => refused.line)).toEqual([2, 3, 4, 5, 6]);
    expect(parsed.refused[0]?.problem).toMatch(/shorter than 16 characters/);
    expect(parsed.refused[2]?.problem).toMatch(/a name before the `:`/);
    expect(parsed.refused[4]?.problem).toMatch(/a token with a space/);
    expect(JSON.stringify(parsed.refused)).not.toMatch(/tiny-tok|f3a9/);
  });

  it('reads users as `name:<hash>`, refusing anything else and a name given twice', async () => {
    const hash = await hashPassword('a-long-enough-password');
    const parsed = parseUserLines(
      `alice:${hash}\nbob:not-a-hash\n${hash}\nalice:${hash}\ncarol:${hash}\n`,
    );
    expect(parsed.entries.map((entry) => entry.name)).toEqual(['alice', 'carol']);
    expect(parsed.refused.map((refused) => refused.line)).toEqual([2, 3, 4]);
    expect(parsed.refused[0]?.problem).toMatch(/paw ops hash-password/);
    expect(parsed.refused[1]?.problem).toMatch(/paw ops hash-password/);
    expect(parsed.refused[2]?.problem).toBe('user alice is already on line 1');
  });
});
