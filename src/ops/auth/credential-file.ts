import { FileTooLargeError, NotARegularFileError } from '../../shared/read-capped-file.js';
import { RereadableFile } from '../../shared/rereadable-file.js';
import { UsageError } from '../../shared/usage-error.js';
import type { Logger } from '../../shared/logger.js';
import type { NamedSecret, ParsedCredentials } from './credential-lines.js';

const FIX =
  'write one per line (a token: `openssl rand -hex 32`; a user: `paw ops hash-password --user NAME`)';

/** A few thousand credentials fit; a file far larger is a mistake, and would be parsed per change. */
const CREDENTIALS_CAP = { maxBytes: 1024 * 1024, what: 'an ops credentials file' };

/**
 * A file of credentials (bearer tokens, basic-auth users, proxy secrets): its entries, re-read
 * when its content changes (see RereadableFile: not when its mtime alone does, which anyone
 * can set back), so that rotating the ops credentials needs no restart.
 * At start, an unreadable or empty file, or a refused line, is a UsageError. Later the file is
 * what it says, failing closed: emptied, commented out, deleted or unreadable, it revokes every
 * credential it held (logged once), and a refused line is left out (logged, naming its line).
 */
export class CredentialFile {
  private entries: readonly NamedSecret[] = [];
  private readonly source: RereadableFile;
  /** Why the file grants nothing now, as last logged: logged again only when it changes. */
  private revokedBecause: string | undefined;

  constructor(
    private readonly file: string,
    private readonly setting: string,
    private readonly parse: (text: string) => ParsedCredentials,
    private readonly logger: Logger,
  ) {
    this.source = new RereadableFile(file, CREDENTIALS_CAP);
    this.refresh(true);
  }

  current(): readonly NamedSecret[] {
    this.refresh(false);
    return this.entries;
  }

  private refresh(first: boolean): void {
    let text: string | undefined;
    try {
      text = this.source.changedText();
      if (text === undefined) return;
    } catch (error) {
      const refused = error instanceof FileTooLargeError || error instanceof NotARegularFileError;
      const why =
        error instanceof NotARegularFileError
          ? `is ${error.kind}, not a regular file`
          : error instanceof FileTooLargeError
            ? 'is larger than an ops credentials file may be'
            : `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
      if (!first) {
        // Whatever comes back in its place is read, whatever its metadata.
        this.source.forget();
        this.revoke(why);
        return;
      }
      if (refused) throw new UsageError(`${this.setting}: ${error.message}`, { cause: error });
      throw new UsageError(
        `${this.setting}: ${this.file} ${why}; ${FIX}, or unset ${this.setting}`,
        { cause: error },
      );
    }
    const { entries, refused } = this.parse(text);
    const problems = refused.map(({ line, problem }) => `${this.file} line ${line}: ${problem}`);
    if (first && problems.length > 0) {
      throw new UsageError(`${this.setting}: ${problems.join('; ')}`);
    }
    if (first && entries.length === 0) {
      throw new UsageError(`${this.setting}: ${this.file} holds no credential; ${FIX}`);
    }
    for (const problem of problems) {
      this.logger.warn({ file: this.file }, `${this.setting}: ${problem}; the line is ignored`);
    }
    if (entries.length === 0) {
      this.revoke('holds no credential');
      return;
    }
    this.entries = entries;
    this.revokedBecause = undefined;
    if (!first) {
      this.logger.info(
        { file: this.file, credentials: entries.length },
        `${this.setting}: re-read`,
      );
    }
  }

  private revoke(why: string): void {
    this.entries = [];
    if (this.revokedBecause === why) return;
    this.revokedBecause = why;
    this.logger.warn(
      { file: this.file },
      `${this.setting}: ${this.file} ${why}: every credential it held is revoked until it holds one again`,
    );
  }
}
