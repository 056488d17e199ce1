/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * merge.c -- adding every fingerprint of one filter to another of the same
 * shape, so that a filter can be built in parts (on many machines, from
 * split key lists) and combined.
 *
 * Only filters of one kind merge, and only when their tables pair up
 * (the same shape, seed and layout): then the merged filter answers every
 * key as a filter built from both key sets would, and a failed merge leaves
 * dst as it was.
 *
 * The work is each kind's (table/table_merge.c for plain tables and a chain's,
 * kind/inplace.c); this file checks the arguments and dispatches.
 */
#include "api/kind.h"
#include "kind/chain.h"
#include "kind/concurrent.h"
#include "kind/expiring.h"
#include "kind/inplace.h"
#include "kind/plain.h"

cf_status cf_merge(cf_filter *dst, const cf_filter *src) {
    CF__RETURN_IF(dst == NULL || src == NULL || dst == src, CF_E_PARAM);
    CF__RETURN_IF(dst->t.read_only, CF_E_READONLY);
    /* Only filters of one kind merge: their tables pair up. */
    CF__RETURN_IF(dst->kind != src->kind, cf__unsupported());
    CF__KIND_DISPATCH(dst->kind, merge, dst, src);
}
