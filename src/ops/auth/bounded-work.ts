/**
 * At most `running` tasks at once and `waiting` more in line; a task beyond both is turned away
 * at once, without running. For work whose cost is the point of it (a password hash: 32 MiB and
 * tens of milliseconds of a libuv thread), so that a crowd of attempts neither fills memory nor
 * the thread pool that file reads and DNS also need. p-limit (present only as another package's
 * dependency) queues without bound, hence this.
 */
export class BoundedWork {
  private active = 0;
  private readonly line: (() => void)[] = [];

  constructor(
    private readonly running: number,
    private readonly waiting: number,
  ) {}

  /** `task`'s result once it has had its turn; undefined, and `task` not run, when full. */
  run<T>(task: () => Promise<T>): Promise<T> | undefined {
    if (this.active >= this.running && this.line.length >= this.waiting) return undefined;
    return this.turn().then(async () => {
      try {
        return await task();
      } finally {
        this.done();
      }
    });
  }

  private turn(): Promise<void> {
    if (this.active < this.running) {
      this.active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.line.push(resolve));
  }

  /** Hands the finished task's place to the next in line, if any. */
  private done(): void {
    const next = this.line.shift();
    if (next === undefined) this.active -= 1;
    else next();
  }
}
