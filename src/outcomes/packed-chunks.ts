import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { CorruptChunkError } from './corrupt-chunk-error.js';

/**
 * Items per packed chunk. Compression gains little beyond it (measured on a night's snapshot
 * items: 92 B per item at 64, 88 at 128, 86 at 256, deflate level 6), while reading one item
 * inflates its whole chunk.
 */
export const ITEMS_PER_CHUNK = 128;

/**
 * The most one item may take in a chunk, as written (`["<key>","<json>"],` in UTF-8). A
 * snapshot item is about 800 bytes as stored, and only succeeded items are packed (an error
 * message, up to 1000 characters, stays in the items hash); 16 KiB is twenty times that, room
 * for long names and details. An item beyond it is left unpacked (run-packer.ts).
 */
export const MAX_PACKED_ITEM_BYTES = 16 * 1024;

/**
 * The most a chunk inflates to: what {@link ITEMS_PER_CHUNK} items of {@link
 * MAX_PACKED_ITEM_BYTES} are, and the list's brackets (2 MiB and 2 bytes). Inflating stops
 * there: a chunk that would inflate further (a deflate bomb in Redis) is corrupt, and costs
 * 2 MiB to find out.
 */
export const MAX_CHUNK_BYTES = ITEMS_PER_CHUNK * MAX_PACKED_ITEM_BYTES + 2;

/** An item as stored: its key and its stored JSON (storedPatch in outcome-records.ts). */
export type StoredItem = readonly [itemKey: string, json: string];

/**
 * Whether an item fits a chunk ({@link MAX_PACKED_ITEM_BYTES}). JSON escapes a UTF-16 unit as
 * at most 6 bytes (`\uXXXX`; unescaped, UTF-8 takes at most 3), so an item under a sixth of the
 * bound fits without being written out to measure.
 */
export function fitsChunk(itemKey: string, json: string): boolean {
  const framing = 8; // [ " " , " " ] ,
  if (6 * (itemKey.length + json.length) + framing <= MAX_PACKED_ITEM_BYTES) return true;
  return Buffer.byteLength(JSON.stringify([itemKey, json])) + 1 <= MAX_PACKED_ITEM_BYTES;
}

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

/**
 * The items of a chunk {@link encodeChunk} wrote for run `runId`; a {@link CorruptChunkError}
 * for anything else, found within {@link MAX_CHUNK_BYTES} of inflating.
 */
export function decodeChunk(chunk: Buffer, runId: string): StoredItem[] {
  let text: string;
  try {
    text = inflateRawSync(chunk, { maxOutputLength: MAX_CHUNK_BYTES }).toString('utf8');
  } catch (error) {
    throw new CorruptChunkError(
      runId,
      (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE'
        ? `it inflates to more than ${MAX_CHUNK_BYTES} bytes, more than ${ITEMS_PER_CHUNK} items can be`
        : `it does not inflate: ${(error as Error).message}`,
    );
  }
  let items: unknown;
  try {
    items = JSON.parse(text);
  } catch {
    throw new CorruptChunkError(runId, 'it inflates to something other than JSON');
  }
  if (!Array.isArray(items) || items.length > ITEMS_PER_CHUNK) {
    throw new CorruptChunkError(runId, `it is not a list of up to ${ITEMS_PER_CHUNK} items`);
  }
  return items.map((item: unknown) => {
    if (
      !Array.isArray(item) ||
      item.length !== 2 ||
      typeof item[0] !== 'string' ||
      typeof item[1] !== 'string'
    ) {
      throw new CorruptChunkError(runId, 'it holds an entry that is not [itemKey, json]');
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
