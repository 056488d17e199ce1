/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * bucket.h -- operations on one bucket of the bit-packed table.
 *
 * When a whole bucket (b * f bits) fits in one unaligned 64-bit load at any
 * of its bit offsets, a bucket is read as one word and searched without a
 * per-slot loop (SWAR: SIMD within a register).  With lanes of f bits,
 *
 *     x    = word ^ (fp * ONES)           lane == 0  <=>  slot holds fp
 *     hit  = (x - ONES) & ~x & HIGHS      nonzero    <=>  some lane of x is 0
 *
 *     word: [ lane 3 ][ lane 2 ][ lane 1 ][ lane 0 ]   ONES  = 0..01 per lane
 *                                                      HIGHS = 10..0 per lane
 * A borrow can only start at a zero lane, so the lowest set bit of `hit`
 * marks the first matching slot exactly (higher bits may be spurious).
 * Otherwise (e.g. b = 8 with f > 8) the slots are read one by one; both paths
 * are tested to give identical answers (tests/test_model.c forces each).
 *
 * Semi-sorted buckets (semisort.h) are decoded whole: their slot order is
 * the sorted order, so a write re-sorts the bucket.  Every caller reads a
 * slot index and writes it back before touching that bucket again (evict.c
 * moves each bucket on a path once), so indexes stay meaningful.
 */
#ifndef CF_BUCKET_H
#define CF_BUCKET_H

#include "table/layout.h"
#include "table/semisort.h"

/* Where a hash puts its item: its fingerprint and its two buckets (the
 * same bucket twice when alt maps i1 to itself). */
typedef struct cf__slots {
    uint64_t i1, i2;
    uint32_t fp;
} cf__slots;

static inline cf__slots cf__locate(const cf__table *f, uint64_t h) {
    cf__slots p;
    p.fp = cf__fingerprint_masked(h, f->fp_mask);
    p.i1 = cf__index1(h, f->num_buckets);
    p.i2 = cf__alt_index(f, p.i1, p.fp);
    return p;
}

/* A bucket's bits in the low end of a word, followed by whatever comes
 * next in the table: enough for cf__zero_lanes, whose lane_highs ignore the
 * excess (a borrow never moves down), and one instruction shorter. */
static inline uint64_t cf__bucket_bits_at(const cf__table *f, uint64_t bucket) {
    return cf__bits_at(f->table, cf__bucket_bit(f, bucket));
}

static inline uint64_t cf__bucket_word(const cf__table *f, uint64_t bucket) {
    return cf__bucket_bits_at(f, bucket) & f->bucket_mask;
}

/* Starts reading the 8 bytes at address p that the accessors load for a
 * bucket: they straddle two cache lines 1 time in 10 with 6-byte buckets,
 * and a prefetch of the first line alone would leave the second to a
 * demand miss (batched lookups at 100M went from 17.7 to 8.8 ns a key). */
static inline void cf__prefetch_word(const uint8_t *p) {
    __builtin_prefetch(p);
    __builtin_prefetch(p + 7);
}

static inline void cf__prefetch_bucket(const cf__table *f, uint64_t bucket) {
    cf__prefetch_word(cf__bitpos_of(f->table, cf__bucket_bit(f, bucket)).at);
}

static inline void cf__bucket_store_word(cf__table *f, uint64_t bucket, uint64_t w) {
    cf__bitpos p = cf__bitpos_of(f->table, cf__bucket_bit(f, bucket));
    uint64_t x = cf__load64le(p.at);
    cf__store64le(p.at, (x & ~(f->bucket_mask << p.shift)) | (w << p.shift));
}

/* ---- semi-sorted buckets: four fingerprints in ascending order ---- */
static inline void cf__semisort_read(const cf__table *f, uint64_t bucket, uint32_t fp[4]) {
    uint64_t w = cf__bucket_word(f, bucket);
    unsigned prefixes = cf__semisort_decode[w & ((1u << CF__SEMISORT_CODE_BITS) - 1)];
    unsigned s = f->fp_bits - 4;
    uint64_t suffix_mask = ((uint64_t)1 << s) - 1;
    for (unsigned k = 0; k < 4; k++)
        fp[k] = (uint32_t)((((prefixes >> (4 * k)) & 15u) << s) |
                           ((w >> (CF__SEMISORT_CODE_BITS + k * s)) & suffix_mask));
}

static inline void cf__sort_swap(uint32_t *a, uint32_t *b) {
    uint32_t lo = *a < *b ? *a : *b, hi = *a < *b ? *b : *a;
    *a = lo;
    *b = hi;
}

static inline void cf__semisort_write(cf__table *f, uint64_t bucket, uint32_t fp[4]) {
    /* A five-comparator sorting network for four values. */
    cf__sort_swap(&fp[0], &fp[1]);
    cf__sort_swap(&fp[2], &fp[3]);
    cf__sort_swap(&fp[0], &fp[2]);
    cf__sort_swap(&fp[1], &fp[3]);
    cf__sort_swap(&fp[1], &fp[2]);
    unsigned s = f->fp_bits - 4, prefixes = 0;
    uint64_t suffix_mask = ((uint64_t)1 << s) - 1, w = 0;
    for (unsigned k = 0; k < 4; k++) {
        prefixes |= (fp[k] >> s) << (4 * k);
        w |= (fp[k] & suffix_mask) << (CF__SEMISORT_CODE_BITS + k * s);
    }
    cf__bucket_store_word(f, bucket, w | cf__semisort_encode(prefixes));
}

/* First slot of the semi-sorted bucket whose bits start at the low end of w
 * (bits above it are ignored) holding v, or -1, without decoding every
 * fingerprint: the 4-bit prefixes are compared all at once (a nibble of x
 * is zero exactly where the prefix matches; adding 7 to each nibble's low
 * bits carries into its top bit unless they are all zero), and only the
 * few slots whose prefix matches compare their suffix.  (A branch-free
 * version that tests all four suffixes was slower: for absent keys the
 * loop below almost never runs, and the extra instructions cost more than
 * its rare mispredictions.) */
static inline int cf__semisort_find_word(const cf__table *f, uint64_t w, uint32_t v) {
    unsigned s = f->fp_bits - 4;
    uint32_t x =
        cf__semisort_decode[w & ((1u << CF__SEMISORT_CODE_BITS) - 1)] ^ ((v >> s) * 0x1111u);
    uint32_t match = ~(((x & 0x7777u) + 0x7777u) | x) & 0x8888u;
    uint64_t suffixes = w >> CF__SEMISORT_CODE_BITS, suffix_mask = ((uint64_t)1 << s) - 1;
    for (; match != 0; match &= match - 1) {
        unsigned k = (unsigned)__builtin_ctz(match) >> 2;
        if (((suffixes >> (k * s)) & suffix_mask) == (v & suffix_mask)) return (int)k;
    }
    return -1;
}

static inline int cf__semisort_find(const cf__table *f, uint64_t bucket, uint32_t v) {
    return cf__semisort_find_word(f, cf__bucket_word(f, bucket), v);
}

static inline uint32_t cf__slot_get(const cf__table *f, uint64_t bucket, unsigned slot) {
    if (f->semi_sort) {
        uint32_t fp[4];
        cf__semisort_read(f, bucket, fp);
        return fp[slot];
    }
    return cf__packed_slot_get(f, bucket, slot);
}

static inline void cf__slot_set(cf__table *f, uint64_t bucket, unsigned slot, uint32_t v) {
    if (f->semi_sort) {
        uint32_t fp[4];
        cf__semisort_read(f, bucket, fp);
        fp[slot] = v;
        cf__semisort_write(f, bucket, fp);
        return;
    }
    cf__packed_slot_set(f, bucket, slot, v);
}

/* Bit mask with the top bit of every lane of w that is zero (lowest exact). */
static inline uint64_t cf__zero_lanes(const cf__table *f, uint64_t w) {
    return (w - f->lane_ones) & ~w & f->lane_highs;
}

/* The slot of the first zero lane that z (cf__zero_lanes) marks, or -1. */
static inline int cf__zero_slot(const cf__table *f, uint64_t z) {
    return z == 0 ? -1 : (int)((unsigned)__builtin_ctzll(z) / f->fp_bits);
}

/* Where a bucket's first free slot comes, for cf__fill_second: the lowest
 * bit of its zero-lane mask (SWAR) or its slot; CF__FULL_RANK when the
 * bucket has none.  Two ranks compared always come from the same form. */
#define CF__FULL_RANK 64u
static inline unsigned cf__rank_lanes(uint64_t z) {
    return z == 0 ? CF__FULL_RANK : (unsigned)__builtin_ctzll(z);
}
static inline unsigned cf__rank_slot(int s) {
    return s < 0 ? CF__FULL_RANK : (unsigned)s;
}

/* Whether an insert fills i2 rather than i1, given the ranks of their first
 * free slots (one at least has room): when i1 is full, and in a balanced
 * table (cf__table.balance; layout.h says why) also when i2's first free
 * slot comes earlier.  Every insert path of a table asks this, so that
 * single inserts, batches, traced inserts and the concurrent kind fill
 * the same slots. */
static inline bool cf__fill_second(const cf__table *f, unsigned r1, unsigned r2) {
    return f->balance ? r2 < r1 : r1 == CF__FULL_RANK;
}

/* First slot of bucket holding value v (0 = first empty slot), or -1. */
static inline int cf__bucket_find(const cf__table *f, uint64_t bucket, uint32_t v) {
    if (f->swar)
        return cf__zero_slot(f, cf__zero_lanes(f, cf__bucket_word(f, bucket) ^ (f->lane_ones * v)));
    if (f->semi_sort) return cf__semisort_find(f, bucket, v);
    for (unsigned s = 0; s < f->bucket_size; s++)
        if (cf__slot_get(f, bucket, s) == v) return (int)s;
    return -1;
}

static inline bool cf__bucket_has(const cf__table *f, uint64_t bucket, uint32_t v) {
    if (f->swar) {
        uint64_t x = cf__bucket_word(f, bucket) ^ (f->lane_ones * v);
        return cf__zero_lanes(f, x) != 0;
    }
    if (f->semi_sort) return cf__semisort_find(f, bucket, v) >= 0;
    for (unsigned s = 0; s < f->bucket_size; s++)
        if (cf__slot_get(f, bucket, s) == v) return true;
    return false;
}

/* Semi-sorted buckets: both words read before either is searched. */
static inline bool cf__contains_semi(const cf__table *f, uint64_t i1, uint64_t i2, uint32_t fp) {
    uint64_t w1 = cf__bucket_bits_at(f, i1), w2 = cf__bucket_bits_at(f, i2);
    return cf__semisort_find_word(f, w1, fp) >= 0 || cf__semisort_find_word(f, w2, fp) >= 0;
}

/* Lookups in layouts without SWAR (semi-sorted, wide buckets), out of line:
 * inlined, they made every lookup save and restore four more registers.
 * Static, so that each file's copy is seen by the compiler where it is
 * called and the common lookup keeps the registers the call does not
 * touch (in another file, a plain lookup cost one more instruction).  The
 * slots are passed as scalars, in registers: a struct passed by value to a
 * call would be copied to the stack on every lookup. */
__attribute__((noinline, unused)) static bool cf__contains_other(const cf__table *f, uint64_t i1,
                                                                 uint64_t i2, uint32_t fp) {
    if (f->semi_sort) return cf__contains_semi(f, i1, i2, fp);
    return cf__bucket_has(f, i1, fp) || cf__bucket_has(f, i2, fp);
}

/* Whether the plain table f holds p.fp in bucket p.i1 or p.i2: every
 * single-table lookup (api/ops.c) and each table of a grown one (chain.c).  Both
 * buckets are read and tested without a branch between them, so the two
 * memory reads overlap and no misprediction on loaded data holds back the
 * next lookup. */
static inline bool cf__contains_swar(const cf__table *f, cf__slots p) {
    uint64_t v = f->lane_ones * p.fp;
    uint64_t x1 = cf__bucket_bits_at(f, p.i1) ^ v, x2 = cf__bucket_bits_at(f, p.i2) ^ v;
    return (cf__zero_lanes(f, x1) | cf__zero_lanes(f, x2)) != 0;
}

static inline bool cf__contains_at(const cf__table *f, cf__slots p) {
    return f->swar ? cf__contains_swar(f, p) : cf__contains_other(f, p.i1, p.i2, p.fp);
}

/* The lookup of layouts without SWAR, located and searched out of line: a
 * tail call from cf__contains_hashed, so that they do not pay for the
 * registers the inlined kernels need (semi-sorted lookups cost 13 more
 * instructions while they shared them). */
__attribute__((noinline, unused)) static bool cf__contains_other_hashed(const cf__table *f,
                                                                        uint64_t h) {
    cf__slots p = cf__locate(f, h);
    return cf__contains_other(f, p.i1, p.i2, p.fp);
}

/* One lookup kernel per addressing (CF__ADDR_*), the choices compile-time
 * constants in each copy: cf__locate and cf__contains_swar without the
 * per-key tests of f's shape. */
__attribute__((always_inline)) static inline bool cf__contains_k(const cf__table *f, uint64_t h,
                                                                 bool pow2, bool bytes) {
    uint32_t fp = cf__fingerprint_masked(h, f->fp_mask);
    uint64_t m = cf__alt_point(f, fp), i1 = cf__index1_k(f, h, pow2), w1, w2;
    uint64_t i2 = cf__alt_k(f, i1, m, pow2);
    if (bytes) {
        w1 = cf__load64le(cf__bucket_at(f, i1));
        w2 = cf__load64le(cf__bucket_at(f, i2));
    } else {
        w1 = cf__bucket_bits_at(f, i1);
        w2 = cf__bucket_bits_at(f, i2);
    }
    uint64_t v = f->lane_ones * fp;
    return (cf__zero_lanes(f, w1 ^ v) | cf__zero_lanes(f, w2 ^ v)) != 0;
}

/* The lookups of every layout but the commonest, out of line (reached by a
 * tail call): the power-of-two byte-aligned kernel in a function of its
 * own, where it needs no callee-saved register, and the others (buckets at
 * bit offsets, semi-sorted, wide buckets) in another.  Inlined beside the
 * kernel of capacity-sized byte-aligned tables (what cf_new makes from a
 * capacity), their registers cost that one five instructions a lookup on
 * a key (bench/callgrind.sh build/rel/bench/cf-bench: 95 -> 90); a
 * power-of-two table pays two for the call (cf-lookup-bench: 94 -> 96). */
__attribute__((noinline, unused)) static bool cf__contains_pow2_hashed(const cf__table *f,
                                                                       uint64_t h) {
    return cf__contains_k(f, h, true, true);
}

__attribute__((noinline, unused)) static bool cf__contains_rest_hashed(const cf__table *f,
                                                                       uint64_t h) {
    unsigned a = f->addr;
    if (a == CF__ADDR_OTHER) return cf__contains_other_hashed(f, h);
    if (a == CF__ADDR_BITS) return cf__contains_k(f, h, false, false);
    return cf__contains_k(f, h, true, false); /* CF__ADDR_POW2_BITS */
}

/* Whether the plain (single-table) filter f holds the item of hash h: the
 * lookup of cf_contains, cf_contains_hash and cf_contains_u64. */
static inline bool cf__contains_hashed(const cf__table *f, uint64_t h) {
    /* A chain, commonest first (capacity-sized tables of byte-aligned
     * buckets, then powers of two): 11 instructions fewer on a hash than a
     * switch, whose compare tree and register saves every layout paid.  The
     * other layouts (semi-sorted, wide buckets) come last: tested first,
     * they cost plain lookups 4-11 instructions, and where they are, they
     * cost semi-sorted lookups ~9 more than before the kernels existed. */
    unsigned a = f->addr;
    if (a == CF__ADDR_BYTES) return cf__contains_k(f, h, false, true);
    if (a == CF__ADDR_POW2_BYTES) return cf__contains_pow2_hashed(f, h);
    return cf__contains_rest_hashed(f, h);
}

/* The fingerprints of a SWAR bucket whose bits start at the low end of w
 * (bits above them are masked off). */
static inline void cf__word_read(const cf__table *f, uint64_t w, uint32_t fp[CF_MAX_BUCKET_SIZE]) {
    for (unsigned s = 0; s < f->bucket_size; s++)
        fp[s] = (uint32_t)((w >> (s * f->fp_bits)) & f->fp_mask);
}

/* All of a bucket's fingerprints, in slot order, decoded once. */
static inline void cf__bucket_read(const cf__table *f, uint64_t bucket,
                                   uint32_t fp[CF_MAX_BUCKET_SIZE]) {
    if (f->semi_sort) {
        cf__semisort_read(f, bucket, fp);
        return;
    }
    if (f->swar) { /* one load serves every slot */
        cf__word_read(f, cf__bucket_bits_at(f, bucket), fp);
        return;
    }
    for (unsigned s = 0; s < f->bucket_size; s++) fp[s] = cf__packed_slot_get(f, bucket, s);
}

static inline unsigned cf__bucket_count(const cf__table *f, uint64_t bucket, uint32_t v) {
    uint32_t fp[CF_MAX_BUCKET_SIZE];
    cf__bucket_read(f, bucket, fp);
    unsigned n = 0;
    for (unsigned s = 0; s < f->bucket_size; s++) n += fp[s] == v;
    return n;
}

#endif /* CF_BUCKET_H */
