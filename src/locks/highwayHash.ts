/**
 * HighwayHash (Alakuijala, Cox, Wassenberg, "Fast keyed hash/pseudo-random function using SIMD multiply and
 * permute", 2016), the portable 64-bit-lane form, with 128-bit output. Redisson names the fields of a
 * FasterMultiLock by this hash of each value's encoded bytes, under its fixed key {@link REDISSON_HASH_KEY}
 * (`org.redisson.misc.Hash`), written as Base64 without its trailing `==`. Only that use needs it, and a
 * handful of values per lock object are hashed once, when the object is made: BigInt arithmetic is plenty.
 */

const MASK64 = (1n << 64n) - 1n;
const MASK32 = 0xffffffffn;

/** The key Redisson hashes with (`Hash.KEY`). */
export const REDISSON_HASH_KEY: readonly bigint[] = [0x9e3779b97f4a7c15n, 0xf39cc0605cedc834n, 0x1082276bf3a27251n, 0xf86c6a11d0c18e95n];

const INIT_MUL0 = [0xdbe6d5d5fe4cce2fn, 0xa4093822299f31d0n, 0x13198a2e03707344n, 0x243f6a8885a308d3n];
const INIT_MUL1 = [0x3bd39e10cb0ef593n, 0xc0acf169b5f18a8cn, 0xbe5466cf34e90c6cn, 0x452821e638d01377n];

const rot64by32 = (x: bigint): bigint => ((x >> 32n) | (x << 32n)) & MASK64;
const rot32 = (x: bigint, count: bigint): bigint => (count === 0n ? x : ((x << count) | (x >> (32n - count))) & MASK32);

class State {
  readonly v0: bigint[];
  readonly v1: bigint[];
  readonly mul0 = [...INIT_MUL0];
  readonly mul1 = [...INIT_MUL1];

  constructor(key: readonly bigint[]) {
    this.v0 = INIT_MUL0.map((m, i) => m ^ (key[i] as bigint));
    this.v1 = INIT_MUL1.map((m, i) => m ^ rot64by32(key[i] as bigint));
  }

  update(lanes: readonly bigint[]): void {
    const { v0, v1, mul0, mul1 } = this;
    for (let i = 0; i < 4; i++) {
      v1[i] = ((v1[i] as bigint) + (mul0[i] as bigint) + (lanes[i] as bigint)) & MASK64;
      mul0[i] = (mul0[i] as bigint) ^ (((v1[i] as bigint) & MASK32) * ((v0[i] as bigint) >> 32n));
      v0[i] = ((v0[i] as bigint) + (mul1[i] as bigint)) & MASK64;
      mul1[i] = (mul1[i] as bigint) ^ (((v0[i] as bigint) & MASK32) * ((v1[i] as bigint) >> 32n));
    }
    this.#zipperMergeAndAdd(v1, 1, 0, v0, 1, 0);
    this.#zipperMergeAndAdd(v1, 3, 2, v0, 3, 2);
    this.#zipperMergeAndAdd(v0, 1, 0, v1, 1, 0);
    this.#zipperMergeAndAdd(v0, 3, 2, v1, 3, 2);
  }

  /** Adds a byte shuffle of `from[hi]`/`from[lo]` to `to[hi]`/`to[lo]`, spreading the multiplications' best bits. */
  #zipperMergeAndAdd(from: bigint[], hi: number, lo: number, to: bigint[], toHi: number, toLo: number): void {
    const v1 = from[hi] as bigint;
    const v0 = from[lo] as bigint;
    const add0 =
      (((v0 & 0xff000000n) | (v1 & 0xff00000000n)) >> 24n) |
      (((v0 & 0xff0000000000n) | (v1 & 0xff000000000000n)) >> 16n) |
      (v0 & 0xff0000n) |
      ((v0 & 0xff00n) << 32n) |
      ((v1 & 0xff00000000000000n) >> 8n) |
      (v0 << 56n);
    const add1 =
      (((v1 & 0xff000000n) | (v0 & 0xff00000000n)) >> 24n) |
      (v1 & 0xff0000n) |
      ((v1 & 0xff0000000000n) >> 16n) |
      ((v1 & 0xff00n) << 24n) |
      ((v0 & 0xff000000000000n) >> 8n) |
      ((v1 & 0xffn) << 48n) |
      (v0 & 0xff00000000000000n);
    to[toLo] = ((to[toLo] as bigint) + (add0 & MASK64)) & MASK64;
    to[toHi] = ((to[toHi] as bigint) + (add1 & MASK64)) & MASK64;
  }

  packet(bytes: Uint8Array, offset: number): void {
    const view = new DataView(bytes.buffer, bytes.byteOffset + offset, 32);
    this.update([0, 8, 16, 24].map((at) => view.getBigUint64(at, true)));
  }

  /** The last `size` (1..31) bytes, laid into one packet as the reference does. */
  remainder(bytes: Uint8Array, size: number): void {
    const size4 = size & 3;
    const whole = size & ~3;
    const s = BigInt(size);
    for (let i = 0; i < 4; i++) {
      this.v0[i] = ((this.v0[i] as bigint) + ((s << 32n) + s)) & MASK64;
      const x = this.v1[i] as bigint;
      this.v1[i] = rot32(x & MASK32, s) | (rot32(x >> 32n, s) << 32n);
    }
    const packet = new Uint8Array(32);
    packet.set(bytes.subarray(0, whole));
    if (size & 16) {
      for (let i = 0; i < 4; i++) packet[28 + i] = bytes[whole + i + size4 - 4] as number;
    } else if (size4 !== 0) {
      packet[16] = bytes[whole] as number;
      packet[17] = bytes[whole + (size4 >> 1)] as number;
      packet[18] = bytes[whole + size4 - 1] as number;
    }
    this.packet(packet, 0);
  }

  permuteAndUpdate(): void {
    const v0 = this.v0;
    this.update([rot64by32(v0[2] as bigint), rot64by32(v0[3] as bigint), rot64by32(v0[0] as bigint), rot64by32(v0[1] as bigint)]);
  }
}

/** HighwayHash-128 of `data` under `key`: two 64-bit words. */
export function highwayHash128(data: Uint8Array, key: readonly bigint[] = REDISSON_HASH_KEY): [bigint, bigint] {
  const state = new State(key);
  let i = 0;
  for (; i + 32 <= data.length; i += 32) state.packet(data, i);
  if ((data.length & 31) !== 0) state.remainder(data.subarray(i), data.length & 31);
  for (let n = 0; n < 6; n++) state.permuteAndUpdate();
  const { v0, v1, mul0, mul1 } = state;
  const sum = (...xs: bigint[]): bigint => xs.reduce((a, b) => a + b, 0n) & MASK64;
  return [sum(v0[0] as bigint, mul0[0] as bigint, v1[2] as bigint, mul1[2] as bigint), sum(v0[1] as bigint, mul0[1] as bigint, v1[3] as bigint, mul1[3] as bigint)];
}

/** HighwayHash-64 of `data` under `key`. */
export function highwayHash64(data: Uint8Array, key: readonly bigint[] = REDISSON_HASH_KEY): bigint {
  const state = new State(key);
  let i = 0;
  for (; i + 32 <= data.length; i += 32) state.packet(data, i);
  if ((data.length & 31) !== 0) state.remainder(data.subarray(i), data.length & 31);
  for (let n = 0; n < 4; n++) state.permuteAndUpdate();
  const { v0, v1, mul0, mul1 } = state;
  return ((v0[0] as bigint) + (v1[0] as bigint) + (mul0[0] as bigint) + (mul1[0] as bigint)) & MASK64;
}

/**
 * Redisson's `Hash.hash128toBase64`: the two words big-endian (Netty's `copyLong`), Base64, without the
 * trailing `==`.
 */
export function hash128toBase64(data: Uint8Array): string {
  const [a, b] = highwayHash128(data);
  const out = Buffer.alloc(16);
  out.writeBigUInt64BE(a, 0);
  out.writeBigUInt64BE(b, 8);
  return out.toString('base64').slice(0, -2);
}
