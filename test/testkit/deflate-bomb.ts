import { once } from 'node:events';
import { createDeflateRaw } from 'node:zlib';

/**
 * A raw deflate stream that inflates to `bytes` zeros (1 GiB deflates to about 1 MiB): what
 * someone with write access to Redis could put in place of a packed chunk. Made a mebibyte at a
 * time, so making it never holds what it inflates to.
 */
export async function deflateBomb(bytes: number): Promise<Buffer> {
  const deflate = createDeflateRaw({ level: 1 });
  const parts: Buffer[] = [];
  deflate.on('data', (part: Buffer) => parts.push(part));
  const block = Buffer.alloc(1024 * 1024);
  for (let written = 0; written < bytes; written += block.length) {
    if (!deflate.write(block.subarray(0, Math.min(block.length, bytes - written)))) {
      await once(deflate, 'drain');
    }
  }
  deflate.end();
  await once(deflate, 'end');
  return Buffer.concat(parts);
}
