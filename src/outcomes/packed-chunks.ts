import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * Items per packed chunk. Compression gains little beyond it (measured on a night's snapshot
 * items: 92 B per item at 64, 88 at 128, 86 at 256, deflate level 6), while reading one item
 * inflates its whole chunk.
 */
export const ITEMS_PER_CHUNK = 128;

/** An item as stored: its key and its stored JSON (storedPatch in outcome-records.ts). */
export type StoredItem = readonly [itemKey: string, json: string];

/**
 * A chunk of a packed run (src/outcomes/run-packer.ts): its items, in byte order of their keys, as
 * a JSON array of `[itemKey, storedJson]` pairs, deflated. Deflate (zlib) is in Node itself;
 * brotli packs 7 % smaller at twice the time. Level 3: measured on a night's snapshot items, 91 B
 * an item in 8 µs, where level 6 takes 88 B in 14 µs (a 100,000-item night is packed in the
 * scheduler's process, beside its other work).
 */
export function encodeChunk(items: readonly StoredItem[]): Buffer {
  return deflateRawSync(Buffer.from(JSON.stringify(items)), { level: 3 });
}

/** The items of a chunk {@link encodeChunk} wrote. */
export function decodeChunk(chunk: Buffer): StoredItem[] {
  const items: unknown = JSON.parse(inflateRawSync(chunk).toString('utf8'));
  if (!Array.isArray(items)) throw new TypeError('a packed chunk is not a list of items');
  return items.map((item: unknown) => {
    if (
      !Array.isArray(item) ||
      item.length !== 2 ||
      typeof item[0] !== 'string' ||
      typeof item[1] !== 'string'
    ) {
      throw new TypeError('a packed chunk holds an entry that is not [itemKey, json]');
    }
    return [item[0], item[1]] as const;
  });
}

/**
 * Characters where JavaScript's string order (UTF-16 code units) and byte order of UTF-8 part:
 * surrogates (what lies past U+FFFF) sort before U+E000–U+FFFF in one and after in the other.
 */
const ORDER_DIFFERS = /[\uD800-\uFFFF]/;

/** Whether `a` sorts before (negative), with (0) or after `b` in byte order of UTF-8. */
export function compareBytes(a: string, b: string): number {
  if (!ORDER_DIFFERS.test(a) && !ORDER_DIFFERS.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * Item keys in Redis's order for a sorted set read by lex range (byte order of UTF-8), which
 * finds an item's chunk (readItems-4.lua). Keys without the characters where the two orders
 * part (every workload id seen) sort as strings, five times faster than as bytes.
 */
export function sortByBytes(itemKeys: readonly string[]): string[] {
  if (!itemKeys.some((key) => ORDER_DIFFERS.test(key))) {
    return [...itemKeys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }
  return itemKeys
    .map((key) => ({ key, bytes: Buffer.from(key, 'utf8') }))
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
    .map(({ key }) => key);
}
