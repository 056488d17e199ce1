/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * table.h -- one bit-packed table as a whole (table.c): creating, freeing,
 * clearing and describing it.  The operations on its keys are kernel.h's
 * (inline) and batch.h's; the variants (kind/) and the public functions
 * (api/) build on these, never on the public API.
 */
#ifndef CF_TABLE_H
#define CF_TABLE_H

#include "table/layout.h"

/* Gives f the shape (nb buckets of b slots of fbits bits, flags,
 * max_kicks: already validated), the mixed partner map and every derived
 * field; no table bytes yet (cf__table_alloc). */
void cf__table_shape(cf__table *f, uint64_t nb, unsigned b, unsigned fbits, unsigned flags,
                     unsigned max_kicks);

/* Frees the table's bytes when it owns them (not a mapping's: io/). */
void cf__table_release(cf__table *f);

/* Empties the table. */
void cf__table_clear(cf__table *f);

/* Bytes of the table when owned (with its padding), else 0. */
size_t cf__table_memory(const cf__table *f);

/* The table's statistics (format_version is api/'s to fill in; memory_bytes
 * is the table's alone, the kind adds its handle's). */
void cf__table_stats(const cf__table *f, cf_stats *out);

/* The FPP of a table of width f and bucket size b at load `load`
 * (cf_theoretical_fpp's formula: config.c). */
double cf__fpp(unsigned f, unsigned b, double load);

/* cfg with every field at its default (cf_config_init's: config.c). */
void cf__config_defaults(cf_config *cfg);

/* ---- merging tables (table_merge.c) ---- */

/* The same buckets for every key: shape, seed, layout and partner map. */
bool cf__table_same_shape(const cf__table *a, const cf__table *b);

/* Adds every fingerprint of src's table to dst's (the same shape); stops at
 * the first failure, leaving dst part-way (see cf__table_save). */
cf_status cf__table_merge_all(cf__table *dst, const cf__table *src);

/* A table's contents and counters, to put back when a merge fails. */
typedef struct cf__table_saved {
    uint8_t *table;
    uint64_t items, kicks, failed;
} cf__table_saved;

/* Copies t's table and counters into sv (through t's allocator: release
 * sv->table with cf__free); CF_OK or CF_E_NOMEM. */
cf_status cf__table_save(const cf__table *t, cf__table_saved *sv);
/* Puts back what cf__table_save copied. */
void cf__table_restore(cf__table *t, cf__table_saved *sv);

/* The plain kind's merge: every fingerprint of src into dst, all or
 * nothing.  CF_OK, CF_E_PARAM (another shape), CF_E_FULL, CF_E_NOMEM. */
cf_status cf__table_merge(cf__table *dst, const cf__table *src);

#endif /* CF_TABLE_H */
