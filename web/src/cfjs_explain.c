/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfjs_explain.c -- why the library refuses a configuration, in the
 * package's words: the one export of explain.wasm, which the package loads
 * only when CuckooFilter.create() is refused (cfjs.h says why apart).
 */
#include <emscripten.h>

#include "cfjs.h"

/* How the package spells the options: the keys of the object
 * CuckooFilter.create takes, as written in it ("fpp: 1e-20"). */
static const cf_option_names js_names = {{
    [CF_OPT_CAPACITY] = "capacity: ",
    [CF_OPT_TARGET_FPP] = "fpp: ",
    [CF_OPT_FINGERPRINT_BITS] = "fingerprintBits: ",
    [CF_OPT_BUCKET_SIZE] = "bucketSize: ",
    [CF_OPT_MAX_KICKS] = "maxKicks: ",
    [CF_OPT_MAX_LOAD] = "maxLoad: ",
    [CF_OPT_NUM_BUCKETS] = "buckets: ",
    [CF_OPT_SEMI_SORT] = "semiSort: true",
    [CF_OPT_EXPIRE_AFTER] = "expire: ",
}};

EMSCRIPTEN_KEEPALIVE cf_status cfjs_explain(double capacity, double fpp, unsigned fingerprint_bits,
                                            unsigned bucket_size, double num_buckets,
                                            unsigned max_kicks, double max_load, uint32_t seed_lo,
                                            uint32_t seed_hi, bool semi_sort, double expire_after,
                                            char *why, size_t why_cap) {
    cf_config cfg;
    cfjs_config(&cfg, capacity, fpp, fingerprint_bits, bucket_size, num_buckets, max_kicks,
                max_load, seed_lo, seed_hi, semi_sort, expire_after);
    return cf_config_explain(&cfg, &js_names, why, why_cap, NULL);
}
