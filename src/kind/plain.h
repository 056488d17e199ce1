/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * plain.h -- the plain kind: one table, no more.  Its operations are
 * table/'s, named to the kinds' contract (kind_ops.h) and inlined, so that
 * api/ reaches a plain table's kernels with no call between them.
 */
#ifndef CF_PLAIN_H
#define CF_PLAIN_H

#include "kind/kind_ops.h"
#include "table/batch.h"
#include "table/kernel.h"
#include "table/table.h"

static inline cf_status cf__plain_new(const cf_config *cfg, cf_filter **out) {
    return cf__handle_new_plain(cfg, out);
}

static inline cf_status cf__plain_insert_hash(cf_filter *f, uint64_t h) {
    return cf__table_insert(&f->t, h);
}

static inline cf_status cf__plain_insert_unique_hash(cf_filter *f, uint64_t h) {
    cf__slots p = cf__locate(&f->t, h);
    CF__RETURN_IF(cf__contains_at(&f->t, p), CF_E_EXISTS);
    return cf__insert_slots(&f->t, p.i1, p.i2, p.fp);
}

static inline bool cf__plain_contains_hash(const cf_filter *f, uint64_t h) {
    return cf__contains_hashed(&f->t, h);
}

static inline cf_status cf__plain_delete_hash(cf_filter *f, uint64_t h) {
    return cf__table_delete(&f->t, h);
}

static inline size_t cf__plain_count_hash(const cf_filter *f, uint64_t h) {
    return cf__table_count(&f->t, h);
}

static inline cf_status cf__plain_insert_batch(cf_filter *f, const uint64_t *hashes, size_t n,
                                               size_t *inserted) {
    return cf__table_insert_batch(&f->t, hashes, n, inserted);
}

static inline size_t cf__plain_contains_batch(const cf_filter *f, const uint64_t *hashes, size_t n,
                                              bool *out) {
    return cf__table_contains_batch(&f->t, hashes, n, out);
}

static inline cf_status cf__plain_merge(cf_filter *dst, const cf_filter *src) {
    return cf__table_merge(&dst->t, &src->t);
}

static inline cf_status cf__plain_clear(cf_filter *f) {
    cf__table_clear(&f->t);
    return CF_OK;
}

static inline size_t cf__plain_memory(const cf_filter *f) {
    return sizeof *f + cf__table_memory(&f->t);
}

static inline void cf__plain_stats(const cf_filter *f, cf_stats *out) {
    cf__table_stats(&f->t, out);
    out->memory_bytes = cf__plain_memory(f);
}

static inline void cf__plain_free(cf_filter *f) {
    cf__handle_free_plain(f);
}

CF__KIND_CONTRACT(plain)

#endif /* CF_PLAIN_H */
