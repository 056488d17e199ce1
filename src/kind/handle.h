/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * handle.h -- the filter handle, cf_filter: a table (table/layout.h) and
 * what says which kind of filter it is.  table/ works on the table alone
 * and never sees the handle; the kinds (kind/) and the layers above reach
 * the table as f->t.
 */
#ifndef CF_KIND_HANDLE_H
#define CF_KIND_HANDLE_H

#include "table/layout.h"

/* What a handle is.  api/ decides every operation with one switch on it,
 * and each kind implements the same operations (kind/kind_ops.h):
 *   CF__PLAIN       one table, t (table/)
 *   CF__CHAIN       a chain of plain handles (kind/chain.c); t holds the
 *                   allocator and the shape of the first link, no table
 *   CF__CONCURRENT  one table shared by threads, with lock stripes
 *                   (kind/concurrent.c), which hold its counters
 *   CF__INPLACE     CF_GROW with CF_GROWTH_INPLACE: one table of 2^k buckets
 *                   of variable-length fingerprints that doubles in place
 *                   (kind/inplace.c) in t's bytes, with t's counters
 *   CF__EXPIRING    cfg.expire_after: one table of slots holding a
 *                   fingerprint and a stamp, and a clock (kind/expiring.c) */
typedef enum __attribute__((packed)) cf__kind {
    CF__PLAIN,
    CF__CHAIN,
    CF__CONCURRENT,
    CF__INPLACE,
    CF__EXPIRING
} cf__kind;

struct cf_filter {
    cf__table t; /* first, so that a plain handle's table is at its start */
    cf__kind kind;
    void *map_base; /* mapping to munmap in cf_free (io/), or NULL */
    size_t map_len;
    /* What the kind keeps beyond the table, in a structure of its own that
     * only it names (cf__chain_of, cf__concurrent_of, cf__inplace_of); NULL
     * in a plain handle. */
    void *state;
};

/* A zeroed handle (kind CF__PLAIN, no table) with the resolved allocator a:
 * the start of every filter.  CF_OK, CF_E_PARAM (half an allocator) or
 * CF_E_NOMEM. */
cf_status cf__handle_alloc(const cf_allocator *a, cf_filter **out);

/* A plain handle of the given shape, already validated, without its table's
 * bytes: cf_new and the deserializer build the same object with it. */
cf_status cf__filter_alloc(const cf_allocator *a, uint64_t nb, unsigned b, unsigned fbits,
                           unsigned flags, unsigned max_kicks, cf_filter **out);

/* A plain handle with the zeroed table cfg describes (cfg->flags:
 * CF_SEMI_SORT at most, the caller checked).  CF_OK, CF_E_PARAM,
 * CF_E_TOO_LARGE or CF_E_NOMEM. */
cf_status cf__handle_new_plain(const cf_config *cfg, cf_filter **out);

/* Releases a plain handle and its table (when owned); NULL is fine.  A
 * mapping is io/'s (cf__unmap). */
void cf__handle_free_plain(cf_filter *f);

#endif /* CF_KIND_HANDLE_H */
