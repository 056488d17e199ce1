/*
 * table.h -- one bit-packed table as a whole (table.c): creating, freeing,
 * clearing and describing it.  The operations on its keys are kernel.h's
 * (inline) and batch.h's; the variants (kind/) and the public functions
 * (api/) build on these, never on the public API.
 */
#ifndef CF_TABLE_H
#define CF_TABLE_H

#include "table/cf_internal.h"

/* A plain table as cfg describes it (cfg->flags: CF_SEMI_SORT at most, the
 * caller checked), zeroed.  CF_OK, CF_E_PARAM, CF_E_TOO_LARGE or CF_E_NOMEM. */
cf_status cf__table_new(const cf_config *cfg, cf_filter **out);

/* Releases the table (when owned), the eviction scratch and the handle of
 * a plain table; NULL is fine.  A mapping is io/'s (cf__unmap). */
void cf__table_free(cf_filter *f);

/* Empties the table. */
void cf__table_clear(cf_filter *f);

/* Bytes of the handle, the scratch and the table when owned. */
size_t cf__table_memory(const cf_filter *f);

/* The table's statistics (format_version is api/'s to fill in). */
void cf__table_stats(const cf_filter *f, cf_stats *out);

/* A zeroed handle (kind CF__PLAIN, no table) with the resolved allocator a:
 * the start of every filter.  CF_OK, CF_E_PARAM (half an allocator) or
 * CF_E_NOMEM. */
cf_status cf__handle_alloc(const cf_allocator *a, cf_filter **out);

/* The FPP of a table of width f and bucket size b at load `load`
 * (cf_theoretical_fpp's formula: config.c). */
double cf__fpp(unsigned f, unsigned b, double load);

/* cfg with every field at its default (cf_config_init's: config.c). */
void cf__config_defaults(cf_config *cfg);

/* ---- merging tables (table_merge.c) ---- */

/* The same buckets for every key: shape, seed, layout and partner map. */
bool cf__table_same_shape(const cf_filter *a, const cf_filter *b);

/* Adds every fingerprint of src's table to dst's (the same shape); stops at
 * the first failure, leaving dst part-way (see cf__table_save). */
cf_status cf__table_merge_all(cf_filter *dst, const cf_filter *src);

/* A table's contents and counters, to put back when a merge fails. */
typedef struct cf__table_saved {
    uint8_t *table;
    uint64_t items, kicks, failed;
} cf__table_saved;

/* Copies t's table and counters into sv (through t's allocator: release
 * sv->table with cf__free); CF_OK or CF_E_NOMEM. */
cf_status cf__table_save(const cf_filter *t, cf__table_saved *sv);
/* Puts back what cf__table_save copied. */
void cf__table_restore(cf_filter *t, cf__table_saved *sv);

/* The plain kind's merge: every fingerprint of src into dst, all or
 * nothing.  CF_OK, CF_E_PARAM (another shape), CF_E_FULL, CF_E_NOMEM. */
cf_status cf__table_merge(cf_filter *dst, const cf_filter *src);

#endif /* CF_TABLE_H */
