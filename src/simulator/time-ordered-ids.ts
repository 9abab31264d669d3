import { randomBytes } from 'node:crypto';

/**
 * UUIDs of version 7 (RFC 9562): a millisecond timestamp, then a 12-bit sequence, then random
 * bits. Generated ones sort in creation order, even within one millisecond, so events that
 * happen in the same millisecond keep the order they were recorded in.
 */
export class TimeOrderedIds {
  private lastMs = -1;
  private sequence = 0;

  constructor(private readonly now: () => number) {}

  next(): string {
    let ms = Math.floor(this.now());
    if (ms <= this.lastMs) {
      ms = this.lastMs;
      this.sequence++;
      if (this.sequence > 0xfff) {
        ms++;
        this.sequence = 0;
      }
    } else {
      this.sequence = 0;
    }
    this.lastMs = ms;
    const time = ms.toString(16).padStart(12, '0');
    const random = randomBytes(8);
    random[0] = ((random[0] ?? 0) & 0x3f) | 0x80;
    const tail = random.toString('hex');
    const version = (0x7000 | this.sequence).toString(16);
    return `${time.slice(0, 8)}-${time.slice(8, 12)}-${version}-${tail.slice(0, 4)}-${tail.slice(4, 16)}`;
  }
}
