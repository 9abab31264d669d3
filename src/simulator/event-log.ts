import type { SimulatorClock } from './clock.js';
import { MinHeap } from './min-heap.js';
import type { SimEvent } from './records.js';
import { TimeOrderedIds } from './time-ordered-ids.js';

/**
 * Activity events. Jobs know at trigger time when they will start and end, so they schedule
 * all their events at once; an event joins the log only when its time has come, checked on
 * every read. No timer runs per job, and the log stays sorted by (time, id).
 */
export class EventLog {
  private readonly log: SimEvent[] = [];
  private readonly pending = new MinHeap<SimEvent>(compareEvents);
  private readonly ids: TimeOrderedIds;

  constructor(private readonly clock: SimulatorClock) {
    this.ids = new TimeOrderedIds(() => clock.now());
  }

  /**
   * A new event id. Ids sort in creation order, so events of the same millisecond list in the
   * order they were recorded or scheduled.
   */
  newId(): string {
    return this.ids.next();
  }

  /** Adds an event that happens at `event.time` (now or later). */
  schedule(event: SimEvent): void {
    this.pending.push(event);
  }

  /** Records an event that happens now. */
  record(event: Omit<SimEvent, 'id' | 'time'>): SimEvent {
    const full: SimEvent = { ...event, id: this.newId(), time: this.clock.now() };
    this.schedule(full);
    return full;
  }

  /** Every event that has happened by now, oldest first. */
  happened(): readonly SimEvent[] {
    const now = this.clock.now();
    for (
      let next = this.pending.peek();
      next !== undefined && next.time <= now;
      next = this.pending.peek()
    ) {
      this.pending.pop();
      this.append(next);
    }
    return this.log;
  }

  private append(event: SimEvent): void {
    // Events become due in order, except for ties within one millisecond: walk back past them.
    let index = this.log.length;
    while (index > 0 && compareEvents(this.log[index - 1] as SimEvent, event) > 0) index--;
    if (index === this.log.length) this.log.push(event);
    else this.log.splice(index, 0, event);
  }
}

function compareEvents(a: SimEvent, b: SimEvent): number {
  if (a.time !== b.time) return a.time - b.time;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}
