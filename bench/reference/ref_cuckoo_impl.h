/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * ref_cuckoo_impl.h -- the paper's reference cuckoo filter (ref_cuckoo.h)
 * as static inline code, so a caller can compile it into its own loops as
 * callers of the paper's header-only C++ CuckooFilter<uint64_t, 12> do,
 * with the tag width a compile-time constant:
 *
 *     ref_cuckoo r;                       made by ref_cuckoo_init(&r, nb, 12, seed)
 *     ref_cuckoo_insert12(&r, item);      the whole insert inlined, f = 12
 *     ref_cuckoo_contains12(&r, item);
 *     ref_cuckoo_delete12(&r, item);
 *
 * ref_cuckoo.c builds its out-of-line functions from the same code (one
 * instance per width, picked at run time), so both ways store the same tags
 * in the same slots and answer alike (ref_cuckoo_test checks it).
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
 * empty slot.  Every helper takes the width f, meant to be a constant at
 * each call, as the paper's code has it as a template parameter.
 */
#ifndef CF_BENCH_REF_CUCKOO_IMPL_H
#define CF_BENCH_REF_CUCKOO_IMPL_H

#include "common/bench_util.h"
#include "reference/ref_cuckoo.h"

#include <string.h>

/* The multiplier the paper's code uses to spread a tag over the index bits. */
#define REF_TAG_MIX 0x5bd1e995u

/* Bit 0 of each of the four lanes, and the four lanes' bits. */
static inline uint64_t ref_lane_ones(unsigned f) {
    return 1 | 1ull << f | 1ull << (2 * f) | 1ull << (3 * f);
}
static inline uint64_t ref_bucket_mask(unsigned f) {
    return f == 16 ? ~0ull : (1ull << (4 * f)) - 1;
}

/* The high bit of every zero lane of x (exact up to the lowest one). */
static inline uint64_t ref_zero_lanes(uint64_t x, unsigned f) {
    uint64_t ones = ref_lane_ones(f);
    return (x - ones) & ~x & (ones << (f - 1));
}

/* Bucket words are little-endian in memory, whatever the host. */
static inline uint64_t ref_load_word(const uint8_t *p) {
    uint64_t w;
    memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}
static inline void ref_store_word(uint8_t *p, uint64_t w) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    memcpy(p, &w, sizeof w);
}

static inline uint8_t *ref_bucket_at(const ref_cuckoo *r, uint64_t i, unsigned f) {
    return r->table + i * (f / 2); /* 4f bits = f / 2 bytes */
}

static inline void ref_split(const ref_cuckoo *r, uint64_t item, unsigned f, uint64_t *index,
                             uint32_t *tag) {
    uint64_t h = (uint64_t)((r->add + r->mul * (unsigned __int128)item) >> 64);
    *index = (h >> 32) & (r->num_buckets - 1);
    uint32_t t = (uint32_t)(h & ((1u << f) - 1));
    *tag = t == 0 ? 1 : t;
}

static inline uint64_t ref_alt(const ref_cuckoo *r, uint64_t index, uint32_t tag) {
    /* 32-bit arithmetic as in the paper's code; nb <= 2^32 keeps it exact. */
    return (uint32_t)(index ^ (uint32_t)(tag * REF_TAG_MIX)) & (r->num_buckets - 1);
}

/* Writes tag into the first empty slot of bucket i; false when it is full. */
static inline bool ref_put(ref_cuckoo *r, uint64_t i, uint32_t tag, unsigned f) {
    uint8_t *p = ref_bucket_at(r, i, f);
    uint64_t w = ref_load_word(p);
    uint64_t empty = ref_zero_lanes(w & ref_bucket_mask(f), f);
    if (empty == 0) return false;
    ref_store_word(p, w | (uint64_t)tag << (__builtin_ctzll(empty) - (f - 1)));
    return true;
}

/* Replaces slot s of bucket i by tag; returns the tag it held. */
static inline uint32_t ref_swap_slot(ref_cuckoo *r, uint64_t i, unsigned s, uint32_t tag,
                                     unsigned f) {
    uint8_t *p = ref_bucket_at(r, i, f);
    uint64_t w = ref_load_word(p), lane = (1ull << f) - 1;
    unsigned shift = s * f;
    uint32_t old = (uint32_t)((w >> shift) & lane);
    ref_store_word(p, (w & ~(lane << shift)) | (uint64_t)tag << shift);
    return old;
}

/* Clears the first slot of bucket i holding tag; false when none does. */
static inline bool ref_take(ref_cuckoo *r, uint64_t i, uint32_t tag, unsigned f) {
    uint8_t *p = ref_bucket_at(r, i, f);
    uint64_t w = ref_load_word(p);
    uint64_t hit = ref_zero_lanes((w & ref_bucket_mask(f)) ^ (uint64_t)tag * ref_lane_ones(f), f);
    if (hit == 0) return false;
    ref_store_word(p, w & ~(((1ull << f) - 1) << (__builtin_ctzll(hit) - (f - 1))));
    return true;
}

/* Nonzero when bucket i holds tag.  The word's bits above the bucket (the
 * next bucket's) need no mask, as the paper's lookup has none: a borrow only
 * moves up, and only the four lanes' high bits are kept. */
static inline uint64_t ref_tag_lanes(const ref_cuckoo *r, uint64_t i, uint32_t tag, unsigned f) {
    uint64_t w = ref_load_word(ref_bucket_at(r, i, f));
    return ref_zero_lanes(w ^ (uint64_t)tag * ref_lane_ones(f), f);
}

static inline bool ref_victim_is(const ref_cuckoo *r, uint32_t tag, uint64_t i1, uint64_t i2) {
    return r->has_victim && r->victim_tag == tag &&
           (r->victim_index == i1 || r->victim_index == i2);
}

/* Stores tag whose first bucket is i: a free slot of i, then of its
 * partner, else a random walk from the partner; a tag still homeless after
 * REF_MAX_KICKS kicks takes the victim cache. */
static inline void ref_place(ref_cuckoo *r, uint64_t i, uint32_t tag, unsigned f) {
    r->items++;
    if (ref_put(r, i, tag, f)) return;
    i = ref_alt(r, i, tag);
    if (ref_put(r, i, tag, f)) return;
    for (unsigned kick = 0; kick < REF_MAX_KICKS; kick++) {
        unsigned s = (unsigned)bench_below(bench_xorshift64s(&r->rng), REF_BUCKET_SIZE);
        tag = ref_swap_slot(r, i, s, tag, f);
        r->total_kicks++;
        i = ref_alt(r, i, tag);
        if (ref_put(r, i, tag, f)) return;
    }
    r->has_victim = true;
    r->victim_tag = tag;
    r->victim_index = i;
}

/* ref_cuckoo_insert, _contains and _delete (ref_cuckoo.h) for tags of f
 * bits: r must have been made with fp_bits == f. */
static inline bool ref_cuckoo_insert_f(ref_cuckoo *r, uint64_t item, unsigned f) {
    if (r->has_victim) return false;
    uint64_t i1;
    uint32_t tag;
    ref_split(r, item, f, &i1, &tag);
    ref_place(r, i1, tag, f);
    return true;
}

static inline bool ref_cuckoo_contains_f(const ref_cuckoo *r, uint64_t item, unsigned f) {
    uint64_t i1;
    uint32_t tag;
    ref_split(r, item, f, &i1, &tag);
    uint64_t i2 = ref_alt(r, i1, tag);
    if (ref_victim_is(r, tag, i1, i2)) return true;
    /* Both words are read and tested before the one branch. */
    return (ref_tag_lanes(r, i1, tag, f) | ref_tag_lanes(r, i2, tag, f)) != 0;
}

static inline bool ref_cuckoo_delete_f(ref_cuckoo *r, uint64_t item, unsigned f) {
    uint64_t i1;
    uint32_t tag;
    ref_split(r, item, f, &i1, &tag);
    uint64_t i2 = ref_alt(r, i1, tag);
    if (ref_take(r, i1, tag, f) || ref_take(r, i2, tag, f)) {
        r->items--;
        if (r->has_victim) { /* the freed slot may be the victim's way home */
            r->has_victim = false;
            r->items--;
            ref_place(r, r->victim_index, r->victim_tag, f);
        }
        return true;
    }
    if (ref_victim_is(r, tag, i1, i2)) {
        r->has_victim = false;
        r->items--;
        return true;
    }
    return false;
}

/* The paper's own configuration, CuckooFilter<uint64_t, 12>, compiled into
 * the caller: r must have been made with fp_bits == 12. */
static inline bool ref_cuckoo_insert12(ref_cuckoo *r, uint64_t item) {
    return ref_cuckoo_insert_f(r, item, 12);
}
static inline bool ref_cuckoo_contains12(const ref_cuckoo *r, uint64_t item) {
    return ref_cuckoo_contains_f(r, item, 12);
}
static inline bool ref_cuckoo_delete12(ref_cuckoo *r, uint64_t item) {
    return ref_cuckoo_delete_f(r, item, 12);
}

#endif /* CF_BENCH_REF_CUCKOO_IMPL_H */
