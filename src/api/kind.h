/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * kind.h -- what api/ needs to dispatch on a filter's kind (cf__kind,
 * kind/handle.h): the one answer to an operation a kind does not support.
 *
 * Which kind supports which operation is the matrix in
 * docs/ARCHITECTURE.md; each public function decides it with one switch
 * on the kind (compiled with -Wswitch-enum, so a new kind cannot be
 * forgotten), and every unsupported case returns cf__unsupported().
 */
#ifndef CF_KIND_H
#define CF_KIND_H

#include "kind/handle.h"

/* The header's documented status for an operation the filter's kind does
 * not support (e.g. cf_merge of a concurrent filter): CF_E_PARAM, as for
 * any argument the function cannot take. */
static inline cf_status cf__unsupported(void) {
    return CF_E_PARAM;
}

/* After a switch on a kind whose every case returns: there is no other
 * kind, and saying so lets the compiler drop the test for one (two
 * instructions on a concurrent insert). */
#define CF__NO_OTHER_KIND() __builtin_unreachable()

#endif /* CF_KIND_H */
