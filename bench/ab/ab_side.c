/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * ab_side.c -- one side of bench/ab/ab.c: the wrappers of ab_side.h over one
 * commit's library.  Compiled by bench/ab.sh with that commit's include/ and
 * -DAB_SIDE=ab_side_base or ab_side_head; uses only the public API (and
 * only functions every version since 0.1.0 has; growing filters where the
 * header has them).
 *
 * Keys are 64-bit values given to the library as their 8 bytes, as a caller
 * with integer keys does.
 */
#include "ab/ab_side.h"

#include <cuckoofilter.h>

#ifndef AB_SIDE
#error "compile with -DAB_SIDE=ab_side_base or -DAB_SIDE=ab_side_head"
#endif

#define AB_CHUNK 1024 /* hashes per cf_insert_batch call */

static struct cf_filter *make(uint64_t nb, unsigned fp_bits, uint64_t seed) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.num_buckets = nb;
    cfg.bucket_size = 4;
    cfg.fingerprint_bits = fp_bits;
    cfg.seed = seed;
    cf_filter *f;
    return cf_new(&cfg, &f) == CF_OK ? f : NULL;
}

static struct cf_filter *make_grown(bool inplace, uint64_t seed) {
#ifdef CF_GROW
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = AB_GROWN_CAPACITY;
    cfg.target_fpp = AB_GROWN_FPP;
    cfg.flags = CF_GROW;
    cfg.seed = seed;
#ifdef CF_GROWTH_INPLACE
    cfg.growth_mode = inplace ? CF_GROWTH_INPLACE : CF_GROWTH_CHAIN;
#else
    if (inplace) return NULL;
#endif
    cf_filter *f;
    return cf_new(&cfg, &f) == CF_OK ? f : NULL;
#else
    (void)inplace, (void)seed;
    return NULL;
#endif
}

static void destroy(struct cf_filter *f) {
    cf_free(f);
}

static uint64_t items(const struct cf_filter *f) {
    cf_stats st;
    cf_get_stats(f, &st);
    return st.items;
}

static uint64_t hash(const struct cf_filter *f, uint64_t key) {
    return cf_hash(f, &key, sizeof key);
}

static bool insert(struct cf_filter *f, uint64_t key) {
    return cf_insert(f, &key, sizeof key) == CF_OK;
}

static bool remove_key(struct cf_filter *f, uint64_t key) {
    return cf_delete(f, &key, sizeof key) == CF_OK;
}

static bool contains(const struct cf_filter *f, uint64_t key) {
    return cf_contains(f, &key, sizeof key);
}

static bool contains_hash(const struct cf_filter *f, uint64_t h) {
    return cf_contains_hash(f, h);
}

static size_t insert_keys_batch(struct cf_filter *f, const uint64_t *keys, size_t n) {
    uint64_t hashes[AB_CHUNK];
    size_t done = 0;
    while (done < n) {
        size_t m = n - done < AB_CHUNK ? n - done : AB_CHUNK, stored = 0;
        for (size_t j = 0; j < m; j++) hashes[j] = cf_hash(f, &keys[done + j], sizeof keys[0]);
        cf_status s = cf_insert_batch(f, hashes, m, &stored);
        done += stored;
        if (s != CF_OK) break;
    }
    return done;
}

static size_t contains_batch(const struct cf_filter *f, const uint64_t *hashes, size_t n,
                             bool *out) {
    return cf_contains_batch(f, hashes, n, out);
}

const ab_side AB_SIDE = {make,          make_grown, destroy,  items,         hash,
                         insert,        remove_key, contains, contains_hash, insert_keys_batch,
                         contains_batch};
