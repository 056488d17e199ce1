/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * chain.h -- filters that grow (CF_GROW): a chain of ordinary tables.
 *
 *   cf_filter (CF_GROW, no table of its own)
 *        └──► cf__chain ──► tables[0]   tables[1]     ...   tables[n-1]
 *                           nb0 buckets nb0*g buckets       nb0*g^(n-1)
 *                           f0 bits     f1 >= f0            newest: inserts go here
 *
 * Each table is a complete plain table (a cf_filter of kind CF__PLAIN, same
 * seed, bucket size and eviction budget) used through table/'s code
 * (kernel.h, batch.h), so a filter without CF_GROW runs exactly the code it
 * ran before; the only cost to it is the kind switch at the top of each
 * public function (api/).  The key is hashed
 * once; every table derives its own fingerprint and buckets from that hash.
 *
 * FPP budget.  A lookup is a false positive when any table's is, so the
 * filter's FPP is at most the sum of the tables' FPPs.  Table k may use a
 * quarter (CF__CHAIN_SHARE) of what the earlier tables left of target_fpp,
 * measured at full load (cf_theoretical_fpp(f, b, 1)):
 *
 *   budget_k = (target - sum_{j<k} fpp_j(full)) / 4,    fpp_k(full) <= budget_k
 *
 * (the width cf__resolve_config derives from budget_k, one bit wider in the
 * rare case its full-load FPP is still above it), so the sum stays below the
 * target for any number of tables, and a table that rounds its width up
 * leaves the difference to the next ones.  Without
 * rounding, budget_k = target * 3^k / 4^(k+1): about 0.42 bits more per
 * table (log2(4/3)) on the width, where halving the budget each time (+1 bit
 * per table) cost 32 bits per item at 10M items grown from 1000, against 27
 * for a quarter of what is left (docs/GROWTH.md).
 */
#ifndef CF_CHAIN_H
#define CF_CHAIN_H

#include "kind/kind_ops.h"
#include "kind/pending.h"

/* The share of the remaining FPP budget each new table may use. */
#define CF__CHAIN_SHARE 0.25

typedef struct cf__chain {
    cf_filter *tables[CF_MAX_TABLES]; /* oldest first; count of them are set   */
    unsigned count;                   /* >= 1                                   */
    unsigned growth;                  /* bucket multiplier between tables       */
    uint64_t max_bytes;               /* limit on the sum of table_bytes, 0 none */
    double target_fpp;                /* the sum of tables' full-load FPPs < this */
    unsigned max_tables;              /* cf_grow_set_limits; 0 = CF_MAX_TABLES, not saved */
    cf__pending pending;              /* deletes owed (chain.c, "Deletes"); saved */
    bool unsettled;                   /* a delete since the last whole retry pass
                                         (true after a load: a pass that finds
                                         nothing to do changes nothing) */
} cf__chain;

/* The chain of a CF__CHAIN handle (its state). */
static inline cf__chain *cf__chain_of(const cf_filter *f) {
    return (cf__chain *)f->state;
}

/* The most tables the chain may hold: cf_grow_set_limits' cap, or
 * CF_MAX_TABLES. */
static inline unsigned cf__chain_table_cap(const cf__chain *c) {
    return c->max_tables ? c->max_tables : CF_MAX_TABLES;
}

/* The sum of the tables' table_bytes: what max_bytes limits. */
size_t cf__chain_table_bytes(const cf__chain *c);

/* cf_new for cfg->flags & CF_GROW. */
cf_status cf__chain_new(const cf_config *cfg, cf_filter **out);

/* An empty CF_GROW handle with a chain of no tables, for the loaders:
 * flags must include CF_GROW; tables are attached with cf__chain_attach. */
cf_status cf__chain_shell(const cf_allocator *a, unsigned flags, unsigned growth,
                          uint64_t max_bytes, double target_fpp, cf_filter **out);
void cf__chain_attach(cf_filter *f, cf_filter *table);

/* Adds a table as an insert that finds no room does; CF_E_FULL (a limit)
 * or CF_E_NOMEM leave the filter as it was.  *added is the new table. */
cf_status cf__chain_add_table(cf_filter *f, cf_filter **added);
/* Drops the newest table (count >= 2): undoes cf__chain_add_table. */
void cf__chain_drop_newest(cf_filter *f);

/* Releases the tables, the chain and the handle (not a mapping: io/'s
 * cf__unmap is for that). */
void cf__chain_free(cf_filter *f);

/* cf_make_growable for the plain, writable filter *fp (api/ checked it):
 * *fp becomes a grown filter whose first table it is. */
cf_status cf__chain_wrap(cf_filter **fp, const cf_config *cfg);

/* Retries every owed delete (chain.c, "Deletes"): true when one was
 * carried out. */
bool cf__chain_settle_all(cf_filter *f);

/* The sum of the tables' FPPs at full load: what the budget has spent. */
double cf__chain_spent(const cf__chain *c);

/* The public operations for a CF_GROW filter; f is valid and writable where
 * the operation writes (the public functions check NULL and read_only). */
cf_status cf__chain_insert_hash(cf_filter *f, uint64_t h);
cf_status cf__chain_insert_unique_hash(cf_filter *f, uint64_t h);
bool cf__chain_contains_hash(const cf_filter *f, uint64_t h);
cf_status cf__chain_delete_hash(cf_filter *f, uint64_t h);
size_t cf__chain_count_hash(const cf_filter *f, uint64_t h);
size_t cf__chain_contains_batch(const cf_filter *f, const uint64_t *hashes, size_t n, bool *out);
cf_status cf__chain_insert_batch(cf_filter *f, const uint64_t *hashes, size_t n, size_t *inserted);
void cf__chain_stats(const cf_filter *f, cf_stats *out);
size_t cf__chain_memory(const cf_filter *f);
cf_status cf__chain_clear(cf_filter *f);
/* Table k of src into table k of dst, all or nothing (CF_E_PARAM unless
 * both grew from one shape with the same growth and target FPP). */
cf_status cf__chain_merge(cf_filter *dst, const cf_filter *src);

CF__KIND_CONTRACT(chain)

#endif /* CF_CHAIN_H */
