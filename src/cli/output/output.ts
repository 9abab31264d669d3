import { printable } from '../../shared/printable.js';

/**
 * Where command output goes: results on standard output (a table or, with `--json`, JSON a
 * script can parse), everything for the human (notes, warnings, progress) on standard error so
 * that it never mixes into what a script reads. Text is printed with its control characters
 * escaped (line feeds kept), since it may hold what Redis or the platform said; JSON as JSON.
 */
export interface Output {
  /** Writes a result: `json` when --json was given, else the readable `text`. */
  result(json: unknown, text: () => string): void;
  /** A note for the human on standard error. */
  note(message: string): void;
  /** A warning on standard error, hard to miss. */
  warn(message: string): void;
  readonly json: boolean;
}

export function createOutput(options: { json?: boolean | undefined }): Output {
  const json = options.json === true;
  return {
    json,
    result(value, text) {
      process.stdout.write(
        json ? `${JSON.stringify(value, null, 2)}\n` : printable(text(), { keepLineFeeds: true }),
      );
    },
    note(message) {
      process.stderr.write(`${printable(message, { keepLineFeeds: true })}\n`);
    },
    warn(message) {
      const lines = printable(message, { keepLineFeeds: true })
        .split('\n')
        .map((line) => `WARNING: ${line}`);
      process.stderr.write(`${lines.join('\n')}\n`);
    },
  };
}
