/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfjs.h -- the calls web/package/index.js makes into the WebAssembly build
 * beside the library's own (cfjs.c says why each exists).  Statuses and
 * ownership are the library's: each call returns what the library call it
 * wraps returns.
 */
#ifndef CFJS_H
#define CFJS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuckoofilter.h"

/* Doubles per move written by cfjs_insert_traced. */
#define CFJS_MOVE_FIELDS 5

/* A count the package passes as a double, checked there to be a whole
 * number in [0, 2^53]; 0 for anything else. */
uint64_t cfjs_u64(double v);

/* A cf_config from the package's options (cfjs_config.c): cf_config_init's
 * defaults, then each option given.  fpp and max_load NaN: not given;
 * capacity, num_buckets and the unsigned fields 0: not given (as in
 * cf_config).  capacity and num_buckets are whole numbers in [0, 2^53]
 * (the package checks). */
void cfjs_config(cf_config *cfg, double capacity, double fpp, unsigned fingerprint_bits,
                 unsigned bucket_size, double num_buckets, unsigned max_kicks, double max_load,
                 uint32_t seed_lo, uint32_t seed_hi, bool semi_sort, double expire_after);

/* cf_new(cfjs_config(...)). */
cf_status cfjs_new(double capacity, double fpp, unsigned fingerprint_bits, unsigned bucket_size,
                   double num_buckets, unsigned max_kicks, double max_load, uint32_t seed_lo,
                   uint32_t seed_hi, bool semi_sort, double expire_after, cf_filter **out);

/* cf_config_explain(cfjs_config(...)) in the package's option names: the
 * status cf_new would return and, when not CF_OK, the library's sentence
 * in why (why_cap bytes).  In a module of its own (explain.wasm), loaded
 * only when cfjs_new refuses: the sentence's number formatting (printf)
 * would make the package's module a third larger. */
cf_status cfjs_explain(double capacity, double fpp, unsigned fingerprint_bits, unsigned bucket_size,
                       double num_buckets, unsigned max_kicks, double max_load, uint32_t seed_lo,
                       uint32_t seed_hi, bool semi_sort, double expire_after, char *why,
                       size_t why_cap);

/* Inserts the n packed keys in order (key i: bytes[ends[i-1] .. ends[i]),
 * ends[-1] = 0), stopping at the first failure: *inserted keys went in,
 * and the status is that insert's (cf_insert_batch's rule).  unique: each
 * with cf_insert_unique instead, a key already present counted as
 * inserted (an expiring filter's refresh). */
cf_status cfjs_insert_many(cf_filter *f, const uint8_t *bytes, const uint32_t *ends, size_t n,
                           bool unique, size_t *inserted);
/* cf_insert_unique through its _hash form, which bulk calls use too (one
 * copy of that path in the module). */
cf_status cfjs_insert_unique(cf_filter *f, const void *key, size_t len);
/* cf_set_time with the time as a double (whole seconds, below 2^53). */
cf_status cfjs_set_time(cf_filter *f, double now);

/* found[i] = cf_contains(key i); returns how many were found. */
size_t cfjs_contains_many(const cf_filter *f, const uint8_t *bytes, const uint32_t *ends, size_t n,
                          bool *found);

/* cf_stats.items (0 for NULL). */
double cfjs_items(const cf_filter *f);

/* cf_get_stats as doubles: out[CFJS_STAT_x] (CFJS_STAT_COUNT of them); the
 * 64-bit seed in two 32-bit halves.  index.js names them in this order. */
enum cfjs_stat {
    CFJS_STAT_ITEMS,
    CFJS_STAT_BUCKETS,
    CFJS_STAT_SLOTS,
    CFJS_STAT_BUCKET_SIZE,
    CFJS_STAT_FINGERPRINT_BITS,
    CFJS_STAT_BITS_PER_SLOT,
    CFJS_STAT_MAX_KICKS,
    CFJS_STAT_SEED_LO,
    CFJS_STAT_SEED_HI,
    CFJS_STAT_SEMI_SORT,
    CFJS_STAT_LOAD_FACTOR,
    CFJS_STAT_BITS_PER_ITEM,
    CFJS_STAT_EXPECTED_FPP,
    CFJS_STAT_FPP_BOUND,
    CFJS_STAT_TABLE_BYTES,
    CFJS_STAT_MEMORY_BYTES,
    CFJS_STAT_TOTAL_KICKS,
    CFJS_STAT_FAILED_INSERTS,
    CFJS_STAT_FORMAT_VERSION,
    CFJS_STAT_TABLES,
    CFJS_STAT_EXPIRE_AFTER,
    CFJS_STAT_EXPIRE_SPAN,
    CFJS_STAT_STAMP_BITS,
    CFJS_STAT_STAMPS,
    CFJS_STAT_NOW,
    CFJS_STAT_COUNT
};
cf_status cfjs_stats(const cf_filter *f, double *out);

/* cf_locate: out[0..3) = fingerprint, bucket1, bucket2. */
cf_status cfjs_locate(const cf_filter *f, const void *key, size_t len, double *out);

/* cf_read_bucket, and every bucket in order (cap >= the table's slots). */
cf_status cfjs_read_bucket(const cf_filter *f, double bucket, uint32_t *slots, size_t cap);
cf_status cfjs_read_table(const cf_filter *f, uint32_t *slots, size_t cap);

/* cf_insert_traced with each move as CFJS_MOVE_FIELDS doubles. */
cf_status cfjs_insert_traced(cf_filter *f, const void *key, size_t len, double *moves, size_t cap,
                             size_t *nmoves);

#endif /* CFJS_H */
