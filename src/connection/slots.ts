/** Redis Cluster key slots: CRC16/XMODEM of the key's hash tag, as Redis computes them (no driver involved). */

/** Slots in a Redis Cluster. */
export const CLUSTER_SLOTS = 16_384;

const TABLE = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let j = 0; j < 8; j++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    t[i] = crc;
  }
  return t;
})();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) & 0xffff) ^ (TABLE[((crc >> 8) ^ b) & 0xff] as number);
  return crc;
}

/**
 * The cluster slot of `key`, as Redis computes it: the text between its first `{` and the first `}` after
 * that, when that text is not empty; else the whole key.
 */
export function keySlot(key: string | Buffer): number {
  const bytes = typeof key === 'string' ? Buffer.from(key) : key;
  const open = bytes.indexOf(0x7b);
  if (open >= 0) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) return crc16(bytes.subarray(open + 1, close)) % CLUSTER_SLOTS;
  }
  return crc16(bytes) % CLUSTER_SLOTS;
}

/** The hash tag Redis hashes `key` by (see {@link keySlot}), or null when it hashes the whole key. */
export function hashTag(key: string): string | null {
  const open = key.indexOf('{');
  if (open < 0) return null;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : null;
}

/**
 * The slot of every key `head + rest` where `rest` has no brace, or null when `rest` can change it: unless
 * `head` holds a complete, non-empty hash tag, Redis hashes the whole key, `rest` included. (UTF-8 never
 * encodes `{` or `}` inside another character, so string indexes find the same braces Redis does in bytes.)
 */
export function headSlot(head: string): number | null {
  return hashTag(head) === null ? null : keySlot(head);
}
