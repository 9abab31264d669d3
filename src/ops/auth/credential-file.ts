import { statSync } from 'node:fs';
import { FileTooLargeError, readCappedFileSync } from '../../fs/read-capped-file.js';
import { UsageError } from '../../errors/usage-error.js';

const FIX =
  'write one per line (a token: `openssl rand -hex 32`; a user: `paw ops hash-password --user NAME`)';

/**
 * A file of credentials (bearer tokens, basic-auth users): its lines, re-read when its
 * modification time changes, so that rotating the ops credentials needs no restart. Blank lines
 * and `#` comments are skipped. An unreadable or empty file is a UsageError at start; later, the
 * last good content is kept.
 */
export class CredentialFile {
  private lines: readonly string[] = [];
  private modified = -1;

  constructor(
    private readonly file: string,
    private readonly setting: string,
  ) {
    this.refresh(true);
  }

  current(): readonly string[] {
    this.refresh(false);
    return this.lines;
  }

  private refresh(first: boolean): void {
    let modified: number;
    let text: string;
    try {
      modified = statSync(this.file).mtimeMs;
      if (modified === this.modified) return;
      text = readCappedFileSync(this.file, {
        maxBytes: 1024 * 1024,
        what: 'an ops credentials file',
      });
    } catch (error) {
      if (!first) return;
      if (error instanceof FileTooLargeError) {
        throw new UsageError(`${this.setting}: ${error.message}`, { cause: error });
      }
      throw new UsageError(
        `${this.setting}: ${this.file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); ` +
          `${FIX}, or unset ${this.setting}`,
        { cause: error },
      );
    }
    const lines = text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    if (lines.length === 0) {
      if (first) {
        throw new UsageError(`${this.setting}: ${this.file} holds no credential; ${FIX}`);
      }
      return;
    }
    this.lines = lines;
    this.modified = modified;
  }
}
