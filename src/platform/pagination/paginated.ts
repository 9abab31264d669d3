import { ProtocolError } from '../http/platform-errors.js';

/** One page of a collection (the REST interface and GraphQL connections share this shape). */
export interface Page<T> {
  readonly nodes: readonly T[];
  /** Matching items across all pages, when the platform says. */
  readonly count: number | undefined;
  readonly endCursor: string | null | undefined;
  readonly hasNextPage: boolean;
}

/** Fetches the page after `after` (undefined: the first page). */
export type PageFetcher<T> = (after: string | undefined, signal?: AbortSignal) => Promise<Page<T>>;

/**
 * A collection walked page by page on demand: iterate it for items, or use {@link pages} for
 * whole pages (with `count`). Walking stops when `hasNextPage` is false, and fails loudly with a
 * ProtocolError (`CURSOR_REPEATED`, `CURSOR_MISSING`) instead of looping forever when the
 * platform hands back a cursor it gave before, or none at all while claiming more pages.
 */
export class Paginated<T> implements AsyncIterable<T> {
  constructor(
    private readonly operation: string,
    private readonly fetchPage: PageFetcher<T>,
    private readonly signal?: AbortSignal,
  ) {}

  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    const seen = new Set<string>();
    let after: string | undefined;
    for (;;) {
      const page = await this.fetchPage(after, this.signal);
      yield page;
      if (!page.hasNextPage) return;
      const cursor = page.endCursor;
      if (cursor == null || cursor === '') {
        throw new ProtocolError({
          operation: this.operation,
          code: 'CURSOR_MISSING',
          message: 'the platform says there are more pages but gave no endCursor',
          mayHaveTakenEffect: false,
        });
      }
      if (seen.has(cursor) || cursor === after) {
        throw new ProtocolError({
          operation: this.operation,
          code: 'CURSOR_REPEATED',
          message: `the platform returned cursor "${cursor}" again; stopping instead of looping`,
          mayHaveTakenEffect: false,
        });
      }
      seen.add(cursor);
      after = cursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.nodes;
  }

  /**
   * The items for which `keep` is true, page by page (a filtered page may be empty; `count` is
   * then unknown). For filters the platform cannot apply itself.
   */
  filter(keep: (item: T) => boolean): Paginated<T> {
    return new Paginated(
      this.operation,
      async (after, signal) => {
        const page = await this.fetchPage(after, signal);
        return { ...page, nodes: page.nodes.filter(keep), count: undefined };
      },
      this.signal,
    );
  }

  /** Each item turned into another by `map`, a page at a time (in order). */
  mapAsync<U>(map: (item: T) => Promise<U>): Paginated<U> {
    return new Paginated(
      this.operation,
      async (after, signal) => {
        const page = await this.fetchPage(after, signal);
        const nodes: U[] = [];
        for (const node of page.nodes) nodes.push(await map(node));
        return { ...page, nodes };
      },
      this.signal,
    );
  }

  /** Collects up to `limit` items (all of them when no limit is given). */
  async toArray(limit = Number.POSITIVE_INFINITY): Promise<T[]> {
    const items: T[] = [];
    if (limit <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= limit) break;
    }
    return items;
  }
}
