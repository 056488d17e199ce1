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
#include "kind/chain.h"
#include "kind/inplace.h"
#include "table/kernel.h"
#include "api/kind.h"

/* The same buckets for every key: shape, seed, layout and partner map (a
 * table of 0.1.0's map and one of today's pair buckets differently). */
static bool cf__same_shape(const cf_filter *a, const cf_filter *b) {
    return a->num_buckets == b->num_buckets && a->bucket_size == b->bucket_size &&
           a->fp_bits == b->fp_bits && a->seed == b->seed && a->flags == b->flags &&
           a->partner_map == b->partner_map;
}

/* Adds every fingerprint of src's table to dst's; stops at the first
 * failure, leaving dst part-way (the caller restores it). */
static cf_status cf__merge_table(cf_filter *dst, const cf_filter *src) {
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

/* A table's contents and counters, to put back when a merge fails. */
typedef struct cf__saved {
    uint8_t *table;
    uint64_t items, kicks, failed;
} cf__saved;

static cf_status cf__save(const cf_filter *t, cf__saved *sv) {
    size_t bytes = t->table_bytes + CF__TABLE_PAD;
    sv->table = cf__alloc(&t->alloc, bytes);
    CF__RETURN_IF(sv->table == NULL, CF_E_NOMEM);
    memcpy(sv->table, t->table, bytes);
    sv->items = t->items, sv->kicks = t->total_kicks, sv->failed = t->failed_inserts;
    return CF_OK;
}

static void cf__restore(cf_filter *t, cf__saved *sv) {
    memcpy(t->table, sv->table, t->table_bytes + CF__TABLE_PAD);
    t->items = sv->items, t->total_kicks = sv->kicks, t->failed_inserts = sv->failed;
}

/* Grown filters: table k of src goes into table k of dst, which gets the
 * tables it lacks the way an insert adds them.  Filters grown from the same
 * first table with the same growth and target FPP have the same table k
 * for every k (each table's width follows from the earlier ones), so every
 * pair has one shape; anything else is CF_E_PARAM.  All or nothing: every
 * table of dst is saved first, and added tables are dropped on failure. */
static cf_status cf__merge_grown(cf_filter *dst, const cf_filter *src) {
    const cf__chain *dc = dst->chain, *sc = src->chain;
    CF__RETURN_IF(dc->growth != sc->growth || dc->target_fpp != sc->target_fpp, CF_E_PARAM);
    for (unsigned k = 0; k < dc->count && k < sc->count; k++)
        CF__RETURN_IF(!cf__same_shape(dc->tables[k], sc->tables[k]), CF_E_PARAM);
    unsigned had = dc->count;
    cf__saved saved[CF_MAX_TABLES];
    unsigned n_saved = 0;
    cf_status st = CF_OK;
    for (; n_saved < had && st == CF_OK; n_saved++)
        st = cf__save(dc->tables[n_saved], &saved[n_saved]);
    if (st != CF_OK) n_saved--; /* the one that failed holds nothing */
    uint64_t failed = dst->failed_inserts;
    for (unsigned k = 0; k < sc->count && st == CF_OK; k++) {
        cf_filter *t = k < dc->count ? dc->tables[k] : NULL;
        if (t == NULL && (st = cf__chain_add_table(dst, &t)) != CF_OK) break;
        if (!cf__same_shape(t, sc->tables[k]))
            st = CF_E_PARAM;
        else
            st = cf__merge_table(t, sc->tables[k]);
    }
    if (st != CF_OK) {
        while (dc->count > had) cf__chain_drop_newest(dst);
        for (unsigned k = 0; k < n_saved; k++) cf__restore(dc->tables[k], &saved[k]);
        dst->failed_inserts = failed;
    }
    for (unsigned k = 0; k < n_saved; k++) cf__free(&dc->tables[k]->alloc, saved[k].table);
    return st;
}

static cf_status cf__merge_plain(cf_filter *dst, const cf_filter *src) {
    CF__RETURN_IF(!cf__same_shape(dst, src), CF_E_PARAM);
    /* More fingerprints than free slots can never fit: fail before copying. */
    CF__RETURN_IF(src->items > dst->num_buckets * dst->bucket_size - dst->items, CF_E_FULL);
    if (src->items == 0) return CF_OK;

    cf__saved saved;
    CF__FORWARD_IF_ERROR(cf__save(dst, &saved));
    cf_status st = cf__merge_table(dst, src);
    if (st != CF_OK) cf__restore(dst, &saved);
    cf__free(&dst->alloc, saved.table);
    return st;
}

cf_status cf_merge(cf_filter *dst, const cf_filter *src) {
    CF__RETURN_IF(dst == NULL || src == NULL || dst == src, CF_E_PARAM);
    CF__RETURN_IF(dst->read_only, CF_E_READONLY);
    /* Only filters of one kind merge: their tables pair up. */
    CF__RETURN_IF(dst->kind != src->kind, cf__unsupported());
    switch (dst->kind) {
    case CF__PLAIN: return cf__merge_plain(dst, src);
    case CF__CHAIN: return cf__merge_grown(dst, src);
    case CF__CONCURRENT: return cf__unsupported(); /* changes under other threads: not yet */
    case CF__INPLACE: return cf__inplace_merge(dst, src);
    }
    CF__NO_OTHER_KIND();
}
