/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * concurrent.h -- CF_CONCURRENT filters: lock stripes over the buckets and
 * the entry points that the public functions dispatch to (concurrent.c).
 *
 *   buckets:  [0 .. 2^s) [2^s .. 2^(s+1)) ...          one stripe per run of
 *   stripes:  [ stripe 0 ][ stripe 1     ] ...         2^s consecutive buckets
 *             lock     held by a writer of any of its buckets
 *             items    occupied slots in its buckets (changed under its lock)
 *   versions: [ v0 ][ v1 ] ...    odd while a move in the stripe is under way
 *
 * The filter handle points to one allocation: this header, the stripes, then
 * the versions, apart from the rest so that the part every lookup reads is
 * dense (16 KiB at most) and stays in cache.
 */
#ifndef CF_CONCURRENT_H
#define CF_CONCURRENT_H

#include <stdatomic.h>

#include "kind/kind_ops.h"

/* At most this many stripes.  Two writers collide on a stripe with
 * probability about 4 / CF__CONCURRENT_MAX_STRIPES per pair of operations, so
 * 4096 keeps collisions under 2% with 32 concurrent writers (readers take
 * no lock).  Fewer stripes on small tables: they cost at most 1% of the
 * table. */
#define CF__CONCURRENT_MAX_STRIPES 4096

typedef struct cf__stripe {
    _Atomic uint32_t lock; /* 0 free, 1 held                                     */
    uint64_t items;        /* occupied slots of the stripe's buckets (under lock) */
    uint64_t kicks;        /* moves made under the stripe's lock                  */
} cf__stripe;

struct cf__concurrent {
    size_t bytes;      /* size of this allocation, for cf_memory_usage         */
    uint64_t nstripes; /* ceil(nb / 2^shift) <= CF__CONCURRENT_MAX_STRIPES              */
    unsigned shift;    /* stripe of bucket i: i >> shift                        */
    uint64_t margin;   /* buckets this close to a stripe's edge may share a
                            table word with another stripe's                       */
    _Atomic uint64_t failed_inserts;
    _Atomic uint32_t *versions; /* nstripes seqlock counters, after the stripes    */
    cf__stripe stripes[];
};

/* The stripes of a CF__CONCURRENT handle (its state). */
static inline struct cf__concurrent *cf__concurrent_of(const cf_filter *f) {
    return (struct cf__concurrent *)f->state;
}

/* cf_new with CF_CONCURRENT in cfg->flags (cfg and out checked by cf_new). */
cf_status cf__concurrent_new(const cf_config *cfg, cf_filter **out);
/* Gives the plain filter f (which owns an aligned, writable table) its
 * stripes and makes it CF__CONCURRENT: cf_make_concurrent.  CF_OK,
 * CF_E_NOMEM, or CF_E_PARAM for a table not aligned for atomic words. */
cf_status cf__concurrent_attach(cf_filter *f);
/* Releases the stripes, the table and the handle. */
void cf__concurrent_free(cf_filter *f);
/* Bytes of the handle, the table and the stripes. */
size_t cf__concurrent_memory(const cf_filter *f);

bool cf__concurrent_contains_hash(const cf_filter *f, uint64_t h);
size_t cf__concurrent_count_hash(const cf_filter *f, uint64_t h);
cf_status cf__concurrent_insert_hash(cf_filter *f, uint64_t h);
/* Checks and inserts in one step, under both buckets' locks. */
cf_status cf__concurrent_insert_unique_hash(cf_filter *f, uint64_t h);
cf_status cf__concurrent_delete_hash(cf_filter *f, uint64_t h);
size_t cf__concurrent_contains_batch(const cf_filter *f, const uint64_t *hashes, size_t n,
                                     bool *out);
cf_status cf__concurrent_insert_batch(cf_filter *f, const uint64_t *hashes, size_t n,
                                      size_t *inserted);
/* CF_E_PARAM: concurrent filters do not merge (yet). */
cf_status cf__concurrent_merge(cf_filter *dst, const cf_filter *src);

/* These take every stripe's lock, in order, and work on a consistent cut. */
void cf__concurrent_stats(const cf_filter *f, cf_stats *out);
cf_status cf__concurrent_clear(cf_filter *f);

/* Runs fn on a plain view of f (kind CF__PLAIN, sharing f's table, with the
 * stripes' counters summed) while every stripe is locked, and returns its
 * status: how api/ serializes and saves a concurrent filter with the plain
 * code.  Files hold no CF_CONCURRENT: it describes how this process uses the
 * table, not the table, and loaded filters are plain. */
typedef cf_status (*cf__concurrent_view_fn)(const cf_filter *view, void *arg);
cf_status cf__concurrent_with_view(const cf_filter *f, cf__concurrent_view_fn fn, void *arg);

CF__KIND_CONTRACT(concurrent)

#endif /* CF_CONCURRENT_H */
