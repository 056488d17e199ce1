/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * kind_ops.h -- the contract every kind of filter keeps: the same
 * operations, with the same signatures, named cf__<kind>_<op>.
 *
 *   kind         module            what it is
 *   plain        kind/plain.h      one table (table/), inlined into api/
 *   chain        kind/chain.c      a chain of plain tables (CF_GROW)
 *   concurrent   kind/concurrent.c one table shared by threads (CF_CONCURRENT)
 *   inplace      kind/inplace.c    one table that doubles in place
 *                                  (CF_GROW + CF_GROWTH_INPLACE)
 *   expiring     kind/expiring.c   one table of stamped slots and a clock
 *                                  (cfg.expire_after)
 *
 * Each kind's header declares its operations its own way (plain's and a
 * few hot ones are static inline, the rest extern) and then states
 * CF__KIND_CONTRACT(kind): a kind that lacks an operation, or whose
 * signature differs from the one below, fails to compile.  api/ reaches
 * a kind only through these operations and CF__KIND_DISPATCH, so adding
 * a kind means adding it to cf__kind and CF__KIND_DISPATCH and writing its
 * module (docs/ARCHITECTURE.md, "Where does X go").
 *
 * The operations take a valid filter of the kind; the public functions
 * (api/) have already checked NULL, key bytes and read_only.
 */
#ifndef CF_KIND_OPS_H
#define CF_KIND_OPS_H

#include "kind/handle.h"

/* X(return type, operation, parameters) for every operation of a kind. */
#define CF__KIND_OPS(X, kind)                                              \
    X(kind, cf_status, new, (const cf_config *cfg, cf_filter **out))       \
    X(kind, cf_status, insert_hash, (cf_filter * f, uint64_t h))           \
    X(kind, cf_status, insert_unique_hash, (cf_filter * f, uint64_t h))    \
    X(kind, bool, contains_hash, (const cf_filter *f, uint64_t h))         \
    X(kind, cf_status, delete_hash, (cf_filter * f, uint64_t h))           \
    X(kind, size_t, count_hash, (const cf_filter *f, uint64_t h))          \
    X(kind, cf_status, insert_batch,                                       \
      (cf_filter * f, const uint64_t *hashes, size_t n, size_t *inserted)) \
    X(kind, size_t, contains_batch,                                        \
      (const cf_filter *f, const uint64_t *hashes, size_t n, bool *out))   \
    X(kind, cf_status, merge, (cf_filter * dst, const cf_filter *src))     \
    X(kind, cf_status, clear, (cf_filter * f))                             \
    X(kind, void, stats, (const cf_filter *f, cf_stats *out))              \
    X(kind, size_t, memory, (const cf_filter *f))                          \
    X(kind, void, free, (cf_filter * f))

#define CF__KIND_CHECK_OP(kind, ret, op, params)                                                \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&cf__##kind##_##op), ret(*) params), \
                   "cf__" #kind "_" #op " does not match its contract (kind/kind_ops.h)");

/* In each kind's header, after its declarations. */
#define CF__KIND_CONTRACT(kind) CF__KIND_OPS(CF__KIND_CHECK_OP, kind)

/* `return cf__<kind>_<op>(args...)` for the kind k: api/'s whole dispatch
 * for an operation that returns a value (one case per kind;
 * compiled with -Wswitch-enum, so a kind added to cf__kind and not here
 * fails to build). */
#define CF__KIND_DISPATCH(k, op, ...)                             \
    switch (k) {                                                  \
    case CF__PLAIN: return cf__plain_##op(__VA_ARGS__);           \
    case CF__CHAIN: return cf__chain_##op(__VA_ARGS__);           \
    case CF__CONCURRENT: return cf__concurrent_##op(__VA_ARGS__); \
    case CF__INPLACE: return cf__inplace_##op(__VA_ARGS__);       \
    case CF__EXPIRING: return cf__expiring_##op(__VA_ARGS__);     \
    }                                                             \
    __builtin_unreachable()

#endif /* CF_KIND_OPS_H */
