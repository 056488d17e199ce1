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

#endif /* CF_TABLE_H */
