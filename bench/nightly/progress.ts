/** Progress lines on standard error, each with the benchmark's name and the time since it started. */
export class Progress {
  private readonly startedAt = Date.now();

  constructor(private readonly name = 'nightly') {}

  line(text: string): void {
    const seconds = ((Date.now() - this.startedAt) / 1000).toFixed(0).padStart(4);
    process.stderr.write(`[${this.name} ${seconds}s] ${text}\n`);
  }
}
