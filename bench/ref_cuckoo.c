/*
 * ref_cuckoo.c -- the paper's reference cuckoo filter (see ref_cuckoo.h for
 * what it does and why it is the baseline).
 *
 *   item --(add + mul * item) >> 64--> h:   index = (h >> 32) & (nb - 1)
 *                                           tag   = h & (2^f - 1), 0 -> 1
 *   alt(index, tag) = (index ^ (tag * 0x5bd1e995)) & (nb - 1)
 *
 *   table (f = 12):  | t0 t1 t2 t3 | t0 t1 t2 t3 | ... | 0 x 8 |
 *                      6 bytes       6 bytes             padding
 *   bucket i starts at byte i * 4f/8; tag k of a bucket is bits [k f, k f + f)
 *   of the little-endian word read there.
 *
 * Every bucket operation reads the bucket's 64-bit word once and finds lanes
 * with the "has a zero f-bit lane" trick: for x with four f-bit lanes,
 * (x - ONES) & ~x & HIGHS sets the high bit of every zero lane, and maybe of
 * lanes above a zero lane (a borrow), never below the lowest one.  So it is
 * nonzero exactly when some lane is zero, and its lowest set bit marks the
 * first zero lane: x = word ^ (tag * ONES) finds a tag, x = word finds an
 * empty slot.  The width is a compile-time constant inside every helper (one
 * switch per call picks the instance), as the paper's code has it as a
 * template parameter.
 */
#include "ref_cuckoo.h"

#include "bench_util.h"

#include <stdlib.h>
#include <string.h>

/* The multiplier the paper's code uses to spread a tag over the index bits. */
#define REF_TAG_MIX 0x5bd1e995u

uint64_t ref_cuckoo_floor_pow2(uint64_t x) {
    uint64_t p = 1;
    while (p <= x / 2) p *= 2;
    return p;
}

/* Bit 0 of each of the four lanes, and the four lanes' bits. */
static inline uint64_t lane_ones(unsigned f) {
    return 1 | 1ull << f | 1ull << (2 * f) | 1ull << (3 * f);
}
static inline uint64_t bucket_mask(unsigned f) {
    return f == 16 ? ~0ull : (1ull << (4 * f)) - 1;
}

/* The high bit of every zero lane of x (exact up to the lowest one). */
static inline uint64_t zero_lanes(uint64_t x, unsigned f) {
    uint64_t ones = lane_ones(f);
    return (x - ones) & ~x & (ones << (f - 1));
}

/* Bucket words are little-endian in memory, whatever the host. */
static inline uint64_t load_word(const uint8_t *p) {
    uint64_t w;
    memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}
static inline void store_word(uint8_t *p, uint64_t w) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    memcpy(p, &w, sizeof w);
}

static inline uint8_t *bucket_at(const ref_cuckoo *r, uint64_t i, unsigned f) {
    return r->table + i * (f / 2); /* 4f bits = f / 2 bytes */
}

static inline void split(const ref_cuckoo *r, uint64_t item, unsigned f, uint64_t *index,
                         uint32_t *tag) {
    uint64_t h = (uint64_t)((r->add + r->mul * (unsigned __int128)item) >> 64);
    *index = (h >> 32) & (r->num_buckets - 1);
    uint32_t t = (uint32_t)(h & ((1u << f) - 1));
    *tag = t == 0 ? 1 : t;
}

static inline uint64_t alt(const ref_cuckoo *r, uint64_t index, uint32_t tag) {
    /* 32-bit arithmetic as in the paper's code; nb <= 2^32 keeps it exact. */
    return (uint32_t)(index ^ (uint32_t)(tag * REF_TAG_MIX)) & (r->num_buckets - 1);
}

/* Writes tag into the first empty slot of bucket i; false when it is full. */
static inline bool put(ref_cuckoo *r, uint64_t i, uint32_t tag, unsigned f) {
    uint8_t *p = bucket_at(r, i, f);
    uint64_t w = load_word(p);
    uint64_t empty = zero_lanes(w & bucket_mask(f), f);
    if (empty == 0) return false;
    store_word(p, w | (uint64_t)tag << (__builtin_ctzll(empty) - (f - 1)));
    return true;
}

/* Replaces slot s of bucket i by tag; returns the tag it held. */
static inline uint32_t swap_slot(ref_cuckoo *r, uint64_t i, unsigned s, uint32_t tag, unsigned f) {
    uint8_t *p = bucket_at(r, i, f);
    uint64_t w = load_word(p), lane = (1ull << f) - 1;
    unsigned shift = s * f;
    uint32_t old = (uint32_t)((w >> shift) & lane);
    store_word(p, (w & ~(lane << shift)) | (uint64_t)tag << shift);
    return old;
}

/* Clears the first slot of bucket i holding tag; false when none does. */
static inline bool take(ref_cuckoo *r, uint64_t i, uint32_t tag, unsigned f) {
    uint8_t *p = bucket_at(r, i, f);
    uint64_t w = load_word(p);
    uint64_t hit = zero_lanes((w & bucket_mask(f)) ^ (uint64_t)tag * lane_ones(f), f);
    if (hit == 0) return false;
    store_word(p, w & ~(((1ull << f) - 1) << (__builtin_ctzll(hit) - (f - 1))));
    return true;
}

/* Nonzero when bucket i holds tag. */
static inline uint64_t tag_lanes(const ref_cuckoo *r, uint64_t i, uint32_t tag, unsigned f) {
    uint64_t w = load_word(bucket_at(r, i, f)) & bucket_mask(f);
    return zero_lanes(w ^ (uint64_t)tag * lane_ones(f), f);
}

static inline bool victim_is(const ref_cuckoo *r, uint32_t tag, uint64_t i1, uint64_t i2) {
    return r->has_victim && r->victim_tag == tag &&
           (r->victim_index == i1 || r->victim_index == i2);
}

/* Stores tag whose first bucket is i: a free slot of i, then of its
 * partner, else a random walk from the partner; a tag still homeless after
 * REF_MAX_KICKS kicks takes the victim cache. */
static inline void place(ref_cuckoo *r, uint64_t i, uint32_t tag, unsigned f) {
    r->items++;
    if (put(r, i, tag, f)) return;
    i = alt(r, i, tag);
    if (put(r, i, tag, f)) return;
    for (unsigned kick = 0; kick < REF_MAX_KICKS; kick++) {
        unsigned s = (unsigned)bench_below(bench_xorshift64s(&r->rng), REF_BUCKET_SIZE);
        tag = swap_slot(r, i, s, tag, f);
        r->total_kicks++;
        i = alt(r, i, tag);
        if (put(r, i, tag, f)) return;
    }
    r->has_victim = true;
    r->victim_tag = tag;
    r->victim_index = i;
}

static inline bool insert_f(ref_cuckoo *r, uint64_t item, unsigned f) {
    if (r->has_victim) return false;
    uint64_t i1;
    uint32_t tag;
    split(r, item, f, &i1, &tag);
    place(r, i1, tag, f);
    return true;
}

static inline bool contains_f(const ref_cuckoo *r, uint64_t item, unsigned f) {
    uint64_t i1;
    uint32_t tag;
    split(r, item, f, &i1, &tag);
    uint64_t i2 = alt(r, i1, tag);
    if (victim_is(r, tag, i1, i2)) return true;
    /* Both words are read and tested before the one branch. */
    return (tag_lanes(r, i1, tag, f) | tag_lanes(r, i2, tag, f)) != 0;
}

static inline bool delete_f(ref_cuckoo *r, uint64_t item, unsigned f) {
    uint64_t i1;
    uint32_t tag;
    split(r, item, f, &i1, &tag);
    uint64_t i2 = alt(r, i1, tag);
    if (take(r, i1, tag, f) || take(r, i2, tag, f)) {
        r->items--;
        if (r->has_victim) { /* the freed slot may be the victim's way home */
            r->has_victim = false;
            r->items--;
            place(r, r->victim_index, r->victim_tag, f);
        }
        return true;
    }
    if (victim_is(r, tag, i1, i2)) {
        r->has_victim = false;
        r->items--;
        return true;
    }
    return false;
}

/* One instance per width, as the paper's template has; the paper's own
 * configuration (f = 12) is tested first, so it pays one predicted branch. */
#define REF_BY_WIDTH(fn, r, item)                   \
    if ((r)->fp_bits == 12) return fn(r, item, 12); \
    switch ((r)->fp_bits) {                         \
    case 4: return fn(r, item, 4);                  \
    case 8: return fn(r, item, 8);                  \
    default: return fn(r, item, 16);                \
    }

bool ref_cuckoo_insert(ref_cuckoo *r, uint64_t item) {
    REF_BY_WIDTH(insert_f, r, item)
}
bool ref_cuckoo_contains(const ref_cuckoo *r, uint64_t item) {
    REF_BY_WIDTH(contains_f, r, item)
}
bool ref_cuckoo_delete(ref_cuckoo *r, uint64_t item) {
    REF_BY_WIDTH(delete_f, r, item)
}

bool ref_cuckoo_init(ref_cuckoo *r, uint64_t num_buckets, unsigned fp_bits, uint64_t seed) {
    memset(r, 0, sizeof *r);
    if (num_buckets == 0 || (num_buckets & (num_buckets - 1)) != 0) return false;
    if (num_buckets > (1ull << 32)) return false; /* the index is 32 bits of h */
    if (fp_bits != 4 && fp_bits != 8 && fp_bits != 12 && fp_bits != 16) return false;
    unsigned bb = 4 * fp_bits / 8;
    if (num_buckets > (SIZE_MAX - 8) / bb) return false;
    r->table = calloc((size_t)num_buckets * bb + 8, 1);
    if (r->table == NULL) return false;
    r->num_buckets = num_buckets;
    r->fp_bits = fp_bits;
    r->bucket_bytes = bb;
    uint64_t s = seed;
    r->mul = (unsigned __int128)bench_splitmix64(&s) << 64 | bench_splitmix64(&s);
    r->add = (unsigned __int128)bench_splitmix64(&s) << 64 | bench_splitmix64(&s);
    r->rng = bench_splitmix64(&s) | 1; /* xorshift needs a nonzero state */
    return true;
}

void ref_cuckoo_destroy(ref_cuckoo *r) {
    free(r->table);
    memset(r, 0, sizeof *r);
}

size_t ref_cuckoo_table_bytes(const ref_cuckoo *r) {
    return (size_t)r->num_buckets * r->bucket_bytes;
}
