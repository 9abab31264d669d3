import { printable } from '../../shared/printable.js';

/**
 * A one-line progress display on standard error: redrawn in place on a terminal, and written as
 * a new line only when it changes elsewhere (a log file or CI output stays readable).
 */
export class ProgressLine {
  private last = '';
  private drawn = false;
  private readonly tty: boolean;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {
    this.tty = stream.isTTY === true;
  }

  update(text: string): void {
    if (text === this.last) return;
    this.last = text;
    const shown = printable(text);
    if (this.tty) {
      this.stream.write(`\r\x1b[2K${shown}`);
      this.drawn = true;
    } else {
      this.stream.write(`${shown}\n`);
    }
  }

  /** Ends the line (on a terminal) so that what follows starts on a fresh one. */
  done(): void {
    if (this.tty && this.drawn) this.stream.write('\n');
    this.drawn = false;
  }
}

/** `[#####.....]  50%` */
export function progressBar(percent: number | undefined, width = 20): string {
  if (percent === undefined) return `[${'.'.repeat(width)}]    ?`;
  const filled = Math.round((percent / 100) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(percent)).padStart(3)}%`;
}
