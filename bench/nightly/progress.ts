/** Progress lines on standard error, each with the time since the benchmark started. */
export class Progress {
  private readonly startedAt = Date.now();

  line(text: string): void {
    const seconds = ((Date.now() - this.startedAt) / 1000).toFixed(0).padStart(4);
    process.stderr.write(`[nightly ${seconds}s] ${text}\n`);
  }
}
