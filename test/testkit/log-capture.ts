import { createLogger, type Logger } from '../../src/shared/logger.js';

/** A logger whose records are kept in memory, at debug level by default, for inspection. */
export interface LogCapture {
  readonly logger: Logger;
  /** Every record written so far, as raw JSON lines. */
  readonly lines: string[];
  /** The records parsed. */
  records(): Record<string, unknown>[];
  text(): string;
}

export function captureLogs(level: 'debug' | 'trace' | 'info' = 'debug'): LogCapture {
  const lines: string[] = [];
  const destination = {
    write(chunk: string): void {
      for (const line of chunk.split('\n')) if (line.trim() !== '') lines.push(line);
    },
  };
  const logger = createLogger({ level, destination });
  return {
    logger,
    lines,
    records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    text: () => lines.join('\n'),
  };
}
