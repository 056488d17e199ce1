/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * expiring.h -- cfg.expire_after > 0: items that expire.  One table whose
 * slots hold a fingerprint and a stamp of the time it was written
 * (expiring.c has the design):
 *
 *   slot (w = f + s bits):  [ stamp (s bits) | fingerprint (f bits) ]
 *                             bit w-1                          bit 0
 *
 *   tick   = now / span                        span = ceil(expire_after / k)
 *   stamp  = tick mod 2^s                      k = min(2^s - 1, expire_after)
 *
 * An empty slot is 0 (a fingerprint is never 0), so free slots are found
 * as in a plain table of w-bit slots; lookups compare the f fingerprint
 * bits of every lane and never look at stamps, because cf_set_time removes
 * every expired entry when the clock enters a later tick.
 */
#ifndef CF_EXPIRING_H
#define CF_EXPIRING_H

#include <stddef.h>

#include "kind/kind_ops.h"

/* How a bucket is read for a lookup: one 64-bit word (the table's swar
 * layouts), two words of half a bucket each (a half of at most 57 bits), or
 * slot by slot (wider buckets: b = 8 with slots of 15 bits or more). */
#define CF__XP_WORD 0u
#define CF__XP_HALVES 1u
#define CF__XP_SLOTS 2u

typedef struct cf__expiring {
    unsigned fp_bits;      /* f: the fingerprint, the low bits of a slot          */
    unsigned stamp_bits;   /* s: the stamp, the slot's top bits                   */
    unsigned stamps;       /* k: ticks in a window, <= 2^s - 1                    */
    unsigned path;         /* CF__XP_*                                            */
    uint64_t fp_mask;      /* 2^f - 1                                             */
    uint64_t expire_after; /* cfg.expire_after, in the clock's units              */
    uint64_t span;         /* time of one tick: ceil(expire_after / k)            */
    uint64_t now;          /* the clock (cf_set_time); 0 at first                 */
    uint64_t tick;         /* now / span                                          */
    /* Lane masks of the word a lookup reads (a bucket, CF__XP_WORD, or
     * half of one, CF__XP_HALVES): bit 0 of every lane, its fingerprint
     * bits, its top bit, and per lane 2^(w-1) - 1, which added to a masked
     * lane sets its top bit exactly when the lane is not zero. */
    uint64_t ones, fp_lanes, adds, highs;
} cf__expiring;

/* The expiry state of a CF__EXPIRING handle (its state). */
static inline cf__expiring *cf__expiring_of(const cf_filter *f) {
    return (cf__expiring *)f->state;
}

/* The stamp width for f-bit fingerprints in buckets of b: the largest of
 * 4, 3, 2, 1 whose slot costs at most 1.35 f bits (4 from f = 12, 3 from 9,
 * 2 from 6), but 3 instead of 4 where only that makes a bucket one 64-bit
 * word (f = 13 in buckets of four, the default target's); 0 when f + s
 * passes 32 bits (f > 28). */
unsigned cf__expiring_stamp_bits(unsigned f, unsigned b);
/* Ticks in a window: min(2^s - 1, expire_after). */
unsigned cf__expiring_stamps(unsigned s, uint64_t expire_after);

/* Fills e's derived fields (k, span, masks, path) from f, s, b, the slot
 * layout of t, expire_after and now. */
void cf__expiring_derive(cf__expiring *e, const cf__table *t);

/* cf_set_time: CF_OK, or CF_E_INVAL for a time before the clock. */
cf_status cf__expiring_set_time(cf_filter *f, uint64_t now);

/* Whether the table's entries are what a filter writes: every nonzero slot
 * has a nonzero fingerprint, every stamp is at most k ticks old, and the
 * nonzero slots number items.  CF_OK or CF_E_CORRUPT. */
cf_status cf__expiring_check_table(const cf_filter *f);

/* A handle with state (no table bytes) for the shape given, its derived
 * fields set.  CF_OK, CF_E_PARAM or CF_E_NOMEM. */
cf_status cf__expiring_make(const cf_allocator *a, uint64_t nb, unsigned b, unsigned f,
                            unsigned max_kicks, uint64_t expire_after, cf_filter **out);

/* cfg as a plain table's sizing is to see it: a capacity (the items
 * written in one window) raised to the items written in k + 1 spans, since
 * an item lives up to k + 1 ticks (about 1/k more), so that a filter sized
 * for one window's items never fills.  Unchanged when
 * num_buckets is given or cfg is refused anyway. */
void cf__expiring_sized(const cf_config *cfg, cf_config *out);

/* cf_config_resolve for an expiring configuration: the fingerprint and
 * stamp widths, the shape, the eviction budget and the table's bytes.
 * CF_OK, CF_E_PARAM, CF_E_TOO_LARGE. */
cf_status cf__expiring_resolve(const cf_config *cfg, unsigned *f, unsigned *s, unsigned *b,
                               uint64_t *nb, unsigned *max_kicks, size_t *bytes);

cf_status cf__expiring_new(const cf_config *cfg, cf_filter **out);
cf_status cf__expiring_insert_hash(cf_filter *f, uint64_t h);
cf_status cf__expiring_insert_unique_hash(cf_filter *f, uint64_t h);
/* Lookups of buckets wider than one word (CF__XP_HALVES, CF__XP_SLOTS). */
bool cf__expiring_contains_other(const cf_filter *f, uint64_t h);

/* A word of lanes tested against v = e->ones * fp: each lane's top bit set
 * unless the lane holds fp (its masked difference plus 2^(w-1) - 1 reaches
 * the top bit exactly when it is not zero, and never carries into the next
 * lane).  The one lane test of lookups and deletes. */
static inline uint64_t cf__xp_differ(const cf__expiring *e, uint64_t word, uint64_t v) {
    return ((word ^ v) & e->fp_lanes) + e->adds;
}

/* The lookup, inline where it is dispatched (api/ops.c): for buckets of
 * one word (CF__XP_WORD: the default shape's), both buckets read and every
 * lane's fingerprint bits tested at once (cf__xp_differ), as a plain
 * table's kernel. */
static inline bool cf__expiring_contains_hash(const cf_filter *f, uint64_t h) {
    const cf__expiring *e = cf__expiring_of(f);
    if (__builtin_expect(e->path != CF__XP_WORD, 0)) return cf__expiring_contains_other(f, h);
    const cf__table *t = &f->t;
    uint32_t fp = cf__fingerprint_masked(h, e->fp_mask);
    uint64_t i1 = cf__index1(h, t->num_buckets), i2 = cf__alt_index(t, i1, fp);
    uint64_t v = e->ones * fp;
    uint64_t d1 = cf__xp_differ(e, cf__bits_at(t->table, cf__bucket_bit(t, i1)), v);
    uint64_t d2 = cf__xp_differ(e, cf__bits_at(t->table, cf__bucket_bit(t, i2)), v);
    return (d1 & d2 & e->highs) != e->highs;
}
cf_status cf__expiring_delete_hash(cf_filter *f, uint64_t h);
size_t cf__expiring_count_hash(const cf_filter *f, uint64_t h);
cf_status cf__expiring_insert_batch(cf_filter *f, const uint64_t *hashes, size_t n,
                                    size_t *inserted);
size_t cf__expiring_contains_batch(const cf_filter *f, const uint64_t *hashes, size_t n, bool *out);
/* Both expiring, of one shape, expire_after and clock: src's entries, with
 * their stamps, into dst, all or nothing.  CF_E_PARAM otherwise. */
cf_status cf__expiring_merge(cf_filter *dst, const cf_filter *src);
cf_status cf__expiring_clear(cf_filter *f);
void cf__expiring_stats(const cf_filter *f, cf_stats *out);
size_t cf__expiring_memory(const cf_filter *f);
void cf__expiring_free(cf_filter *f);

CF__KIND_CONTRACT(expiring)

#endif /* CF_EXPIRING_H */
