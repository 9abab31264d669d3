/**
 * A binary min-heap ordered by a comparison function. The job engine uses it for the earliest
 * free slot of each cluster, the event log for events that become due.
 */
export class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly compare: (a: T, b: T) => number) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const items = this.items;
    items.push(item);
    let index = items.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (this.compare(items[index] as T, items[parent] as T) >= 0) break;
      this.swap(index, parent);
      index = parent;
    }
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    let index = 0;
    for (;;) {
      const left = index * 2 + 1;
      const right = left + 1;
      let smallest = index;
      if (left < items.length && this.compare(items[left] as T, items[smallest] as T) < 0) {
        smallest = left;
      }
      if (right < items.length && this.compare(items[right] as T, items[smallest] as T) < 0) {
        smallest = right;
      }
      if (smallest === index) break;
      this.swap(index, smallest);
      index = smallest;
    }
    return top;
  }

  private swap(a: number, b: number): void {
    const items = this.items;
    const held = items[a] as T;
    items[a] = items[b] as T;
    items[b] = held;
  }
}
