/*
 * merge.c -- adding every fingerprint of one filter to another of the same
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
 * All or nothing: a merge may fail halfway, after many inserts and
 * evictions, so dst's table is copied first and put back on failure.  The
 * copy costs one table of memory for the duration of the call; undoing
 * evictions one by one would need a log as large in the worst case.
 */
#include "bucket.h"

/* Stores fp, found in src's bucket i, in dst: i, its partner, or evict. */
static cf_status cf__merge_one(cf_filter *dst, uint64_t i, uint32_t fp) {
    uint64_t i2 = cf__alt_index(dst, i, fp);
    uint64_t bucket = i;
    int s = cf__bucket_find(dst, bucket, 0);
    if (s < 0) {
        bucket = i2;
        s = cf__bucket_find(dst, bucket, 0);
    }
    if (s >= 0)
        cf__slot_set(dst, bucket, (unsigned)s, fp);
    else
        CF__FORWARD_IF_ERROR(cf__evict_insert(dst, i, i2, fp));
    dst->items++;
    return CF_OK;
}

static bool cf__same_shape(const cf_filter *a, const cf_filter *b) {
    return a->num_buckets == b->num_buckets && a->bucket_size == b->bucket_size &&
           a->fp_bits == b->fp_bits && a->seed == b->seed && a->flags == b->flags;
}

cf_status cf_merge(cf_filter *dst, const cf_filter *src) {
    CF__RETURN_IF(dst == NULL || src == NULL || dst == src, CF_E_PARAM);
    CF__RETURN_IF(dst->read_only, CF_E_READONLY);
    /* Grown filters (several tables) and concurrent ones (whose tables
     * change under other threads) are not merged yet. */
    CF__RETURN_IF(((dst->flags | src->flags) & (CF_GROW | CF_CONCURRENT)) != 0, CF_E_PARAM);
    CF__RETURN_IF(!cf__same_shape(dst, src), CF_E_PARAM);
    /* More fingerprints than free slots can never fit: fail before copying. */
    CF__RETURN_IF(src->items > dst->num_buckets * dst->bucket_size - dst->items, CF_E_FULL);
    if (src->items == 0) return CF_OK;

    size_t bytes = dst->table_bytes + CF__TABLE_PAD;
    uint8_t *saved = cf__alloc(&dst->alloc, bytes);
    CF__RETURN_IF(saved == NULL, CF_E_NOMEM);
    memcpy(saved, dst->table, bytes);
    uint64_t items = dst->items, kicks = dst->total_kicks, failed = dst->failed_inserts;

    cf_status st = CF_OK;
    for (uint64_t i = 0; i < src->num_buckets && st == CF_OK; i++) {
        for (unsigned s = 0; s < src->bucket_size && st == CF_OK; s++) {
            uint32_t fp = cf__slot_get(src, i, s);
            if (fp != 0) st = cf__merge_one(dst, i, fp);
        }
    }
    if (st != CF_OK) {
        memcpy(dst->table, saved, bytes);
        dst->items = items;
        dst->total_kicks = kicks;
        dst->failed_inserts = failed;
    }
    cf__free(&dst->alloc, saved);
    return st;
}
