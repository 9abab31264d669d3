/**
 * Where command output goes: results on standard output (a table or, with `--json`, JSON a
 * script can parse), everything for the human (notes, warnings, progress) on standard error so
 * that it never mixes into what a script reads.
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
      process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : text());
    },
    note(message) {
      process.stderr.write(`${message}\n`);
    },
    warn(message) {
      const lines = message.split('\n').map((line) => `WARNING: ${line}`);
      process.stderr.write(`${lines.join('\n')}\n`);
    },
  };
}
