// SPDX-License-Identifier: Apache-2.0 OR MIT
// The article's insert, for the "when the table is full" tab: what its
// Python code does, written anew in JavaScript so the page can run it beside
// the library.  Not the library: its own hash, its XOR partner (buckets a
// power of two), and a random walk that, after max_kicks swaps, gives up
// holding a fingerprint that was already stored -- the victim, now lost.
//
//   fp = hash(x) & mask (0 -> 1)    i1 = (hash(x) >> 16) % nb
//   i2 = i1 ^ (hash(fp) % nb)
//   insert: a free slot in i1 or i2; else from a random one of them, max_kicks
//   times: swap fp with a random slot's, move to that fingerprint's other
//   bucket, stop at a free slot; else fail, and the fp in hand is dropped.
//
// (The article takes fp and i1 from the same bits of one hash; here i1 comes
// from other bits, so that the two sides differ in their eviction only.)

const MAX_KICKS = 500;
const utf8 = new TextEncoder();

// 32-bit FNV-1a, then a final mix: any decent hash shows the same thing.
function hash32(bytes) {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h >>> 0;
}

function mix(x) {
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b);
  return (x ^ (x >>> 16)) >>> 0;
}

/** Inserts keys in order until one fails; returns what the table holds then. */
export function articleFill(keys, { buckets: nb, bucketSize: b, fingerprintBits: f, seed }) {
  if (nb & (nb - 1)) throw new Error("the article's XOR partner needs a power of two of buckets");
  const table = new Uint32Array(nb * b);
  const mask = f >= 32 ? 0xffffffff : (1 << f) - 1;
  let rng = (seed * 2654435761 + 1) >>> 0 || 1; // xorshift32, seeded
  const random = (n) => {
    rng ^= rng << 13;
    rng ^= rng >>> 17;
    rng ^= rng << 5;
    rng >>>= 0;
    return rng % n;
  };
  const alt = (i, fp) => i ^ (mix(fp) % nb);
  const where = (key) => {
    const h = hash32(utf8.encode(key));
    const fp = h & mask || 1;
    const i1 = (h >>> 16) % nb;
    return { fp, i1, i2: alt(i1, fp) };
  };
  const place = (i, fp) => {
    for (let s = 0; s < b; s++)
      if (table[i * b + s] === 0) {
        table[i * b + s] = fp;
        return true;
      }
    return false;
  };
  const insert = (key) => {
    let { fp, i1, i2 } = where(key);
    if (place(i1, fp) || place(i2, fp)) return true;
    let i = random(2) ? i1 : i2;
    for (let n = 0; n < MAX_KICKS; n++) {
      const s = random(b);
      [fp, table[i * b + s]] = [table[i * b + s], fp];
      i = alt(i, fp);
      if (place(i, fp)) return true;
    }
    return false; // fp, still in hand, is dropped
  };
  const contains = (key) => {
    const { fp, i1, i2 } = where(key);
    for (let s = 0; s < b; s++) if (table[i1 * b + s] === fp || table[i2 * b + s] === fp) return true;
    return false;
  };
  let taken = 0;
  let refused = null;
  for (const key of keys) {
    if (!insert(key)) {
      refused = key;
      break;
    }
    taken++;
  }
  const lost = keys.slice(0, taken).filter((k) => !contains(k));
  return { table, taken, refused, lost };
}
