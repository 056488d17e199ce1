/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * table_merge.c -- adding every fingerprint of one filter to another of the same
 * shape, so that a filter can be built in parts (on many machines, from
 * split key lists) and combined.
 *
 * Two filters with the same number of buckets, bucket size, width, seed and
 * layout put a key's fingerprint in the same two candidate buckets, and a
 * bucket and its fingerprint give the partner bucket (alt is an involution).
 * So a fingerprint found in bucket i of src belongs to the pair
 * {i, alt(i, fp)} of dst too, whichever of the two it sat in:
 *
 *   src:  bucket i: [fp ...]   ──►  dst: free slot of i, else of alt(i, fp),
 *                                        else the eviction search (evict.c)
 *
 * A lookup's answer depends only on which fingerprints sit in each pair of
 * buckets, not on which of the two holds them, so the merged filter answers
 * every key exactly as a filter built from both key sets would.
 *
 * The file also holds a balanced table's insert (cf__insert_balanced, at
 * its end), which every insert path of such a table shares.
 *
 * All or nothing: a merge may fail halfway, after many inserts and
 * evictions, so dst's table is copied first and put back on failure.  The
 * copy costs one table of memory for the duration of the call; undoing
 * evictions one by one would need a log as large in the worst case.
 */
#include "table/kernel.h"
#include "table/table.h"

/* (The partner map too: a table of 0.1.0's map and one of today's pair
 * buckets differently.) */
bool cf__table_same_shape(const cf__table *a, const cf__table *b) {
    return a->num_buckets == b->num_buckets && a->bucket_size == b->bucket_size &&
           a->fp_bits == b->fp_bits && a->seed == b->seed && a->flags == b->flags &&
           a->partner_map == b->partner_map;
}

cf_status cf__table_merge_all(cf__table *dst, const cf__table *src) {
    cf_status st = CF_OK;
    uint32_t fps[CF_MAX_BUCKET_SIZE];
    for (uint64_t i = 0; i < src->num_buckets && st == CF_OK; i++) {
        cf__bucket_read(src, i, fps); /* decoded once, also when semi-sorted */
        for (unsigned s = 0; s < src->bucket_size && st == CF_OK; s++) {
            /* fp sat in i or its partner: either way {i, alt(i, fp)} is its
             * pair in dst too (the same shape). */
            if (fps[s] != 0) st = cf__insert_slots(dst, i, cf__alt_index(dst, i, fps[s]), fps[s]);
        }
    }
    return st;
}

cf_status cf__table_save(const cf__table *t, cf__table_saved *sv) {
    size_t bytes = t->table_bytes + CF__TABLE_PAD;
    sv->table = cf__alloc(&t->alloc, bytes);
    CF__RETURN_IF(sv->table == NULL, CF_E_NOMEM);
    memcpy(sv->table, t->table, bytes);
    sv->items = t->items, sv->kicks = t->total_kicks, sv->failed = t->failed_inserts;
    return CF_OK;
}

void cf__table_restore(cf__table *t, cf__table_saved *sv) {
    memcpy(t->table, sv->table, t->table_bytes + CF__TABLE_PAD);
    t->items = sv->items, t->total_kicks = sv->kicks, t->failed_inserts = sv->failed;
}

cf_status cf__table_merge(cf__table *dst, const cf__table *src) {
    CF__RETURN_IF(!cf__table_same_shape(dst, src), CF_E_PARAM);
    /* More fingerprints than free slots can never fit: fail before copying. */
    CF__RETURN_IF(src->items > dst->num_buckets * dst->bucket_size - dst->items, CF_E_FULL);
    if (src->items == 0) return CF_OK;

    cf__table_saved saved;
    CF__FORWARD_IF_ERROR(cf__table_save(dst, &saved));
    cf_status st = cf__table_merge_all(dst, src);
    if (st != CF_OK) cf__table_restore(dst, &saved);
    cf__free(&dst->alloc, saved.table);
    return st;
}

/* A balanced table's insert (kernel.h): fp in the bucket cf__fill_second
 * chooses, else after the eviction search.  Out of line, one copy for the
 * batches, cf__insert_slots' callers and WebAssembly's single inserts
 * (native single inserts carry it inline: kernel.h's CF__BALANCE_INLINE).
 * Here because this file already holds the insert's helpers, which a file
 * of its own would copy again in WebAssembly. */
cf_status cf__insert_balanced(cf__table *f, uint64_t i1, uint64_t i2, uint32_t fp) {
    cf__bitpos b1 = cf__bitpos_of(f->table, cf__bucket_bit(f, i1));
    cf__bitpos b2 = cf__bitpos_of(f->table, cf__bucket_bit(f, i2));
    uint64_t z1 = cf__zero_lanes(f, cf__load64le(b1.at) >> b1.shift);
    uint64_t z2 = cf__zero_lanes(f, cf__load64le(b2.at) >> b2.shift);
    if ((z1 | z2) == 0) return cf__insert_full(f, i1, i2, fp);
    cf__place_at(f, cf__fill_second(f, cf__rank_lanes(z1), cf__rank_lanes(z2)) ? b2 : b1, fp);
    f->items++;
    return CF_OK;
}

cf_status cf__insert_balanced_hash(cf__table *f, uint64_t h) {
    cf__slots p = cf__locate(f, h);
    return cf__insert_balanced(f, p.i1, p.i2, p.fp);
}
