/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfjs.c -- the C side of the JavaScript package (web/package/index.js):
 * the calls the package makes into the WebAssembly build of the library.
 * Public API only (cuckoofilter.h); the library itself is compiled
 * unchanged beside this file (web/build.sh).
 *
 * Most of the package calls the library directly (cf_insert, cf_contains,
 * cf_serialize, ...).  What lives here is what JavaScript cannot do well
 * through the bare API:
 *
 *   - one call per array: cfjs_insert_many and cfjs_contains_many take
 *     every key of a JavaScript array packed into one buffer
 *
 *         bytes: [key 0][key 1][key 2] ...       ends: [e0, e1, e2, ...]
 *                 0..e0  e0..e1  e1..e2                 (uint32 end offsets)
 *
 *     and loop in C: hash a run of keys, then the library's batched
 *     insert or lookup on the run.  A call from JavaScript costs about
 *     as much as a lookup, so a loop of calls would double the cost.
 *   - structs flattened to doubles (cf_location, cf_move, cf_stats), so the
 *     package never depends on a struct's layout;
 *   - 64-bit numbers (bucket indexes, sizes) passed as doubles: wasm32
 *     tables are far below 2^53 buckets;
 *   - the package's options made a cf_config (cfjs_config.c, shared with
 *     the explanation of a refusal, cfjs_explain.c).
 *
 * It also compiles natively (web/bench/native_bench.c times the same calls
 * without WebAssembly).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuckoofilter.h"
#include "cfjs.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#define CFJS_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define CFJS_EXPORT
#endif

/* Keys hashed per run of a bulk call: their hashes stay in cache between
 * hashing and the batched insert or lookup. */
#define CFJS_RUN 1024

CFJS_EXPORT cf_status cfjs_new(double capacity, double fpp, unsigned fingerprint_bits,
                               unsigned bucket_size, double num_buckets, unsigned max_kicks,
                               double max_load, uint32_t seed_lo, uint32_t seed_hi, bool semi_sort,
                               double expire_after, cf_filter **out) {
    cf_config cfg;
    cfjs_config(&cfg, capacity, fpp, fingerprint_bits, bucket_size, num_buckets, max_kicks,
                max_load, seed_lo, seed_hi, semi_sort, expire_after);
    return cf_new(&cfg, out);
}

/* The packed keys of a bulk call: key i is bytes[ends[i-1] .. ends[i]). */
static size_t key_start(const uint32_t *ends, size_t i) {
    return i == 0 ? 0 : ends[i - 1];
}

static void hash_run(const cf_filter *f, const uint8_t *bytes, const uint32_t *ends, size_t from,
                     size_t n, uint64_t *hashes) {
    for (size_t i = 0; i < n; i++) {
        size_t a = key_start(ends, from + i), b = ends[from + i];
        hashes[i] = cf_hash(f, bytes + a, b - a);
    }
}

CFJS_EXPORT cf_status cfjs_insert_many(cf_filter *f, const uint8_t *bytes, const uint32_t *ends,
                                       size_t n, bool unique, size_t *inserted) {
    uint64_t hashes[CFJS_RUN];
    *inserted = 0;
    for (size_t from = 0; from < n; from += CFJS_RUN) {
        size_t run = n - from < CFJS_RUN ? n - from : CFJS_RUN, done = 0;
        hash_run(f, bytes, ends, from, run, hashes);
        cf_status s = CF_OK;
        if (!unique)
            s = cf_insert_batch(f, hashes, run, &done);
        else /* one by one: a key may repeat within the run */
            for (; done < run; done++)
                if ((s = cf_insert_unique_hash(f, hashes[done])) != CF_OK && s != CF_E_EXISTS)
                    break;
        if (s == CF_E_EXISTS) s = CF_OK;
        *inserted += done;
        if (s != CF_OK) return s;
    }
    return CF_OK;
}

CFJS_EXPORT size_t cfjs_contains_many(const cf_filter *f, const uint8_t *bytes,
                                      const uint32_t *ends, size_t n, bool *found) {
    uint64_t hashes[CFJS_RUN];
    size_t hits = 0;
    for (size_t from = 0; from < n; from += CFJS_RUN) {
        size_t run = n - from < CFJS_RUN ? n - from : CFJS_RUN;
        hash_run(f, bytes, ends, from, run, hashes);
        hits += cf_contains_batch(f, hashes, run, found + from);
    }
    return hits;
}

CFJS_EXPORT double cfjs_items(const cf_filter *f) {
    cf_stats s;
    return cf_get_stats(f, &s) == CF_OK ? (double)s.items : 0;
}

/* cf_get_stats as doubles, in the order of enum cfjs_stat (cfjs.h). */
CFJS_EXPORT cf_status cfjs_stats(const cf_filter *f, double *out) {
    cf_stats s;
    cf_status st = cf_get_stats(f, &s);
    if (st != CF_OK) return st;
    out[CFJS_STAT_ITEMS] = (double)s.items;
    out[CFJS_STAT_BUCKETS] = (double)s.num_buckets;
    out[CFJS_STAT_SLOTS] = (double)s.slots;
    out[CFJS_STAT_BUCKET_SIZE] = s.bucket_size;
    out[CFJS_STAT_FINGERPRINT_BITS] = s.fingerprint_bits;
    out[CFJS_STAT_BITS_PER_SLOT] = s.bits_per_slot;
    out[CFJS_STAT_MAX_KICKS] = s.max_kicks;
    out[CFJS_STAT_SEED_LO] = (double)(uint32_t)s.seed;
    out[CFJS_STAT_SEED_HI] = (double)(uint32_t)(s.seed >> 32);
    out[CFJS_STAT_SEMI_SORT] = (s.flags & CF_SEMI_SORT) != 0;
    out[CFJS_STAT_LOAD_FACTOR] = s.load_factor;
    out[CFJS_STAT_BITS_PER_ITEM] = s.bits_per_item;
    out[CFJS_STAT_EXPECTED_FPP] = s.expected_fpp;
    out[CFJS_STAT_FPP_BOUND] = s.fpp_bound;
    out[CFJS_STAT_TABLE_BYTES] = (double)s.table_bytes;
    out[CFJS_STAT_MEMORY_BYTES] = (double)s.memory_bytes;
    out[CFJS_STAT_TOTAL_KICKS] = (double)s.total_kicks;
    out[CFJS_STAT_FAILED_INSERTS] = (double)s.failed_inserts;
    out[CFJS_STAT_FORMAT_VERSION] = s.format_version;
    out[CFJS_STAT_TABLES] = s.tables;
    out[CFJS_STAT_EXPIRE_AFTER] = (double)s.expire_after;
    out[CFJS_STAT_EXPIRE_SPAN] = (double)s.expire_span;
    out[CFJS_STAT_STAMP_BITS] = s.stamp_bits;
    out[CFJS_STAT_STAMPS] = s.stamps;
    out[CFJS_STAT_NOW] = (double)s.now;
    return CF_OK;
}

CFJS_EXPORT cf_status cfjs_insert_unique(cf_filter *f, const void *key, size_t len) {
    return cf_insert_unique_hash(f, cf_hash(f, key, len));
}

CFJS_EXPORT cf_status cfjs_set_time(cf_filter *f, double now) {
    return cf_set_time(f, cfjs_u64(now));
}

/* cf_locate: out = {fingerprint, bucket1, bucket2}. */
CFJS_EXPORT cf_status cfjs_locate(const cf_filter *f, const void *key, size_t len, double *out) {
    cf_location loc;
    cf_status s = cf_locate(f, key, len, &loc);
    if (s != CF_OK) return s;
    out[0] = loc.fingerprint;
    out[1] = (double)loc.bucket1;
    out[2] = (double)loc.bucket2;
    return CF_OK;
}

CFJS_EXPORT cf_status cfjs_read_bucket(const cf_filter *f, double bucket, uint32_t *slots,
                                       size_t cap) {
    return cf_read_bucket(f, cfjs_u64(bucket), slots, cap);
}

/* Every slot of the table, bucket after bucket (num_buckets * bucket_size
 * values in slots), for drawing it whole in one call. */
CFJS_EXPORT cf_status cfjs_read_table(const cf_filter *f, uint32_t *slots, size_t cap) {
    cf_stats st;
    cf_status s = cf_get_stats(f, &st);
    if (s != CF_OK) return s;
    if (cap < st.slots) return CF_E_PARAM;
    for (uint64_t b = 0; b < st.num_buckets; b++) {
        s = cf_read_bucket(f, b, slots + b * st.bucket_size, st.bucket_size);
        if (s != CF_OK) return s;
    }
    return CF_OK;
}

/* cf_insert_traced into moves[0 .. cap * CFJS_MOVE_FIELDS): CFJS_MOVE_FIELDS
 * doubles a move (from bucket, -1 for the key's own fingerprint; from slot;
 * to bucket; to slot; fingerprint).  *nmoves as cf_insert_traced sets it.
 * CF_E_NOMEM, with nothing inserted, when cap moves do not fit the heap. */
CFJS_EXPORT cf_status cfjs_insert_traced(cf_filter *f, const void *key, size_t len, double *moves,
                                         size_t cap, size_t *nmoves) {
    cf_move small[64];
    cf_move *m = cap <= 64 ? small : malloc(cap * sizeof *m);
    *nmoves = 0;
    if (m == NULL) return CF_E_NOMEM;
    size_t n = 0;
    cf_status s = cf_insert_traced(f, key, len, m, cap, &n);
    *nmoves = n;
    for (size_t i = 0; s == CF_OK && i < n && i < cap; i++) {
        double *o = moves + i * CFJS_MOVE_FIELDS;
        o[0] = m[i].from_bucket == CF_NO_BUCKET ? -1 : (double)m[i].from_bucket;
        o[1] = m[i].from_slot;
        o[2] = (double)m[i].to_bucket;
        o[3] = m[i].to_slot;
        o[4] = m[i].fingerprint;
    }
    if (m != small) free(m);
    return s;
}
