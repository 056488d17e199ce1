/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * grow_ctl.c -- making a filter growable, describing its tables, and
 * steering a CF_GROW filter from outside its inserts: adding a table on
 * request, limits held by the handle, appending a table built elsewhere,
 * and dropping empty newest tables (design: chain.h).
 *
 * These serve programs that keep their own growth policy on top of the
 * library's (the Redis module: RedisBloom grows a key for one item's
 * copies, caps tables per key, reads chains written before CF_GROW existed,
 * and CF.COMPACT drops emptied tables).  Every function keeps the chain's
 * invariants -- shapes, num_buckets[k] = growth * num_buckets[k-1], the sum
 * of full-load FPPs below target_fpp, max_bytes -- so what it leaves
 * serializes to a version-2 form cf_deserialize accepts.
 */
#include "format/cf_format.h"
#include "kind/chain.h"
#include "kind/plain.h"
#include "kind/inplace.h"
#include "api/kind.h"
#include "table/table.h"

/* The statuses every cf_grow_* call starts with (the header's contract). */
static cf_status cf__chain_writable(const cf_filter *f) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    switch (f->kind) {
    case CF__CHAIN: return f->t.read_only ? CF_E_READONLY : CF_OK;
    case CF__PLAIN:
    case CF__CONCURRENT:
    case CF__INPLACE:
    case CF__EXPIRING: return cf__unsupported();
    }
    CF__NO_OTHER_KIND();
}

cf_status cf_make_growable(cf_filter **fp, const cf_config *cfg) {
    CF__RETURN_IF(fp == NULL || *fp == NULL || cfg == NULL, CF_E_PARAM);
    switch ((*fp)->kind) {
    case CF__PLAIN: CF__RETURN_IF((*fp)->t.read_only, CF_E_PARAM); return cf__chain_wrap(fp, cfg);
    case CF__CHAIN:
    case CF__CONCURRENT:
    case CF__INPLACE:
    case CF__EXPIRING: return cf__unsupported();
    }
    CF__NO_OTHER_KIND();
}

cf_status cf_table_stats(const cf_filter *f, unsigned k, cf_stats *out) {
    CF__RETURN_IF(f == NULL || out == NULL, CF_E_PARAM);
    switch (f->kind) {
    case CF__PLAIN:
    case CF__CONCURRENT:
    case CF__INPLACE:
    case CF__EXPIRING:
        CF__RETURN_IF(k != 0, CF_E_PARAM);
        cf_get_stats(f, out);
        return CF_OK;
    case CF__CHAIN:
        CF__RETURN_IF(k >= cf__chain_of(f)->count, CF_E_PARAM);
        cf__plain_stats(cf__chain_of(f)->tables[k], out);
        out->format_version = CF__FORMAT_VERSION; /* each table is a version-1 record */
        return CF_OK;
    }
    CF__NO_OTHER_KIND();
}

cf_status cf_grow_add_table(cf_filter *f) {
    CF__FORWARD_IF_ERROR(cf__chain_writable(f));
    cf_filter *added;
    return cf__chain_add_table(f, &added);
}

cf_status cf_grow_set_limits(cf_filter *f, unsigned max_tables, uint64_t max_bytes) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    switch (f->kind) {
    case CF__CHAIN:
        CF__RETURN_IF(f->t.read_only, CF_E_READONLY);
        CF__RETURN_IF(max_tables > CF_MAX_TABLES, CF_E_PARAM);
        /* A limit below what the tables hold would make the saved form invalid. */
        CF__RETURN_IF(max_bytes != 0 && max_bytes < cf__chain_table_bytes(cf__chain_of(f)),
                      CF_E_PARAM);
        cf__chain_of(f)->max_tables = max_tables;
        cf__chain_of(f)->max_bytes = max_bytes;
        return CF_OK;
    case CF__INPLACE:
        CF__RETURN_IF(f->t.read_only, CF_E_READONLY);
        CF__RETURN_IF(max_tables > CF_MAX_TABLES, CF_E_PARAM);
        /* One table: max_tables has nothing to cap; max_bytes bounds the
         * doublings (and is saved in the header, which needs it >= the table). */
        CF__RETURN_IF(max_bytes != 0 && max_bytes < f->t.table_bytes, CF_E_PARAM);
        cf__inplace_of(f)->max_bytes = max_bytes;
        return CF_OK;
    case CF__PLAIN:
    case CF__CONCURRENT:
    case CF__EXPIRING: return cf__unsupported();
    }
    CF__NO_OTHER_KIND();
}

cf_status cf_grow_append(cf_filter *f, cf_filter *table) {
    CF__FORWARD_IF_ERROR(cf__chain_writable(f));
    CF__RETURN_IF(table == NULL, CF_E_PARAM);
    /* A concurrent table keeps its counts in its stripes, not in the handle
     * a chain serializes. */
    CF__RETURN_IF(table->kind != CF__PLAIN || table->t.read_only, CF_E_PARAM);
    const cf__chain *c = cf__chain_of(f);
    const cf_filter *newest = c->tables[c->count - 1];
    CF__RETURN_IF(c->count >= cf__chain_table_cap(c), CF_E_PARAM);
    /* One hash serves every table: they must agree on what turns it into
     * buckets and fingerprints, and sizes follow the growth factor. */
    CF__RETURN_IF(table->t.seed != newest->t.seed ||
                      table->t.bucket_size != newest->t.bucket_size ||
                      table->t.max_kicks != newest->t.max_kicks ||
                      table->t.partner_map != newest->t.partner_map,
                  CF_E_PARAM);
    CF__RETURN_IF(newest->t.num_buckets > UINT64_MAX / c->growth ||
                      table->t.num_buckets != newest->t.num_buckets * c->growth,
                  CF_E_PARAM);
    bool semi =
        (f->t.flags & CF_SEMI_SORT) && cf__semi_sort_fits(table->t.bucket_size, table->t.fp_bits);
    CF__RETURN_IF(((table->t.flags & CF_SEMI_SORT) != 0) != semi, CF_E_PARAM);
    double fpp = cf__fpp(table->t.fp_bits, table->t.bucket_size, 1.0);
    CF__RETURN_IF(!(cf__chain_spent(c) + fpp < c->target_fpp), CF_E_PARAM);
    uint64_t bytes = table->t.table_bytes + cf__chain_table_bytes(c);
    CF__RETURN_IF(c->max_bytes != 0 && bytes > c->max_bytes, CF_E_PARAM);
    cf__chain_attach(f, table);
    return CF_OK;
}

cf_status cf_grow_trim(cf_filter *f, unsigned *dropped) {
    CF__FORWARD_IF_ERROR(cf__chain_writable(f));
    cf__chain *c = cf__chain_of(f);
    unsigned n = 0;
    for (; c->count > 1 && c->tables[c->count - 1]->t.items == 0; n++) cf__chain_drop_newest(f);
    if (dropped != NULL) *dropped = n;
    return CF_OK;
}
