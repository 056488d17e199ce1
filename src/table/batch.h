/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * batch.h -- many hashes against one plain table (batch.c).
 */
#ifndef CF_BATCH_H
#define CF_BATCH_H

#include "table/kernel.h"

/* How many of the n hashes the table holds; out[j] (when out is not NULL)
 * says whether hash j is found. */
size_t cf__table_contains_batch(const cf__table *f, const uint64_t *hashes, size_t n, bool *out);

/* cf__table_contains_batch for a table of one-word (swar) buckets whose
 * slots hold more than the fingerprint (the expiring kind's stamps): the
 * fingerprint is h masked by fp_mask, and each lane is compared under keep
 * (its fingerprint bits in every lane, the lanes' top bits clear). */
size_t cf__table_contains_batch_lanes(const cf__table *f, const uint64_t *hashes, size_t n,
                                      bool *out, uint64_t fp_mask, uint64_t keep);

/* Inserts the n hashes in order, stopping at the first failure (its status);
 * *inserted (when not NULL) counts the ones inserted. */
cf_status cf__table_insert_batch(cf__table *f, const uint64_t *hashes, size_t n, size_t *inserted);

#endif /* CF_BATCH_H */
