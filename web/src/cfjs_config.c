/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfjs_config.c -- the package's options as a cf_config, one place for the
 * two modules that need it: the package's (cfjs_new) and the explanation's
 * (cfjs_explain, explain.wasm).
 */
#include <math.h>

#include "cfjs.h"

uint64_t cfjs_u64(double v) {
    return v >= 0 && v <= 9007199254740992.0 ? (uint64_t)v : 0;
}

void cfjs_config(cf_config *cfg, double capacity, double fpp, unsigned fingerprint_bits,
                 unsigned bucket_size, double num_buckets, unsigned max_kicks, double max_load,
                 uint32_t seed_lo, uint32_t seed_hi, bool semi_sort, double expire_after) {
    cf_config_init(cfg);
    cfg->capacity = cfjs_u64(capacity);
    if (!isnan(fpp)) cfg->target_fpp = fpp;
    if (!isnan(max_load)) cfg->max_load = max_load;
    cfg->fingerprint_bits = fingerprint_bits;
    cfg->bucket_size = bucket_size;
    cfg->num_buckets = cfjs_u64(num_buckets);
    cfg->max_kicks = max_kicks;
    cfg->seed = (uint64_t)seed_hi << 32 | seed_lo;
    cfg->flags = semi_sort ? CF_SEMI_SORT : 0;
    cfg->expire_after = cfjs_u64(expire_after);
}
