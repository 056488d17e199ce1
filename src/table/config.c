/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * config.c -- defaults, parameter checks and sizing.
 *
 * Sizing from what users know (capacity and a target FPP):
 *
 *   num_buckets      = ceil(capacity / (b * max_load))
 *   fingerprint_bits = max(ceil(log2(2b / target_fpp)),  min_width(b, nb))
 *                          (FPP ~ 2b / 2^f at full load)
 *
 * max_load defaults to a load that inserts reliably reach with the default
 * eviction budget for each bucket size (measured by tests/test_load.c).
 * That needs fingerprints wide enough for the table: an item's partner is
 * chosen by its fingerprint alone, so with very few fingerprint values each
 * bucket reaches few others and the table fills unevenly (the paper's
 * f >= log(n)/b bound).  min_width is the measured floor that keeps the
 * default loads (tests/test_load.c): a derived width never goes below it.
 * Tables are never rounded to a power of two.
 */
#include <math.h>

#include "table/table.h"

void cf_config_init(cf_config *cfg) {
    cf__config_defaults(cfg);
}

void cf__config_defaults(cf_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->target_fpp = CF_DEFAULT_TARGET_FPP;
    cfg->bucket_size = CF_DEFAULT_BUCKET_SIZE;
    cfg->max_kicks = CF_DEFAULT_MAX_KICKS;
    cfg->growth = CF_DEFAULT_GROWTH;
}

double cf_default_max_load(unsigned bucket_size) {
    switch (bucket_size) {
    case 1: return 0.40;
    case 2: return 0.84;
    case 4: return 0.95;
    case 8: return 0.98;
    default: return 0.0;
    }
}

double cf__sizing_load(const cf_config *cfg, unsigned b) {
    return cfg->max_load != 0.0 ? cfg->max_load : cf_default_max_load(b);
}

static bool cf__valid_bucket_size(unsigned b) {
    return b == 1 || b == 2 || b == 4 || b == 8;
}

cf_status cf__check_shape(unsigned fbits, unsigned b, uint64_t nb, unsigned max_kicks,
                          unsigned flags) {
    CF__RETURN_IF(fbits < CF_MIN_FINGERPRINT_BITS || fbits > CF_MAX_FINGERPRINT_BITS, CF_E_PARAM);
    CF__RETURN_IF(!cf__valid_bucket_size(b), CF_E_PARAM);
    CF__RETURN_IF((flags & ~CF_SEMI_SORT) != 0, CF_E_PARAM);
    CF__RETURN_IF((flags & CF_SEMI_SORT) && !cf__semi_sort_fits(b, fbits), CF_E_PARAM);
    CF__RETURN_IF(nb == 0, CF_E_PARAM);
    CF__RETURN_IF(max_kicks == 0 || max_kicks > CF_MAX_KICKS_LIMIT, CF_E_PARAM);
    return CF_OK;
}

cf_status cf__table_bytes(uint64_t nb, unsigned b, unsigned f, unsigned flags, size_t *out) {
    *out = 0;
    uint64_t slots = nb * b; /* b <= 8, so overflow shows as a failed division */
    CF__RETURN_IF(slots / b != nb, CF_E_TOO_LARGE);
    unsigned per_bucket = cf__bucket_bits(b, f, flags);
    uint64_t bits = nb * per_bucket;
    CF__RETURN_IF(bits / per_bucket != nb, CF_E_TOO_LARGE);
    uint64_t bytes = bits / 8 + (bits % 8 != 0);
    /* Keep room for the padding and the handle, and for ptrdiff_t arithmetic. */
    CF__RETURN_IF(bytes > (uint64_t)(PTRDIFF_MAX / 2), CF_E_TOO_LARGE);
    *out = (size_t)bytes;
    return CF_OK;
}

double cf_theoretical_fpp(unsigned fingerprint_bits, unsigned bucket_size, double load) {
    return cf__fpp(fingerprint_bits, bucket_size, load);
}

double cf__fpp(unsigned fingerprint_bits, unsigned bucket_size, double load) {
    if (fingerprint_bits < 1 || fingerprint_bits > 64 || load <= 0) return 0.0;
    double per_slot = 1.0 / (ldexp(1.0, (int)fingerprint_bits) - 1.0);
    /* 1 - (1 - p)^n computed without cancellation for tiny p. */
    return -expm1(2.0 * bucket_size * load * log1p(-per_slot));
}

static unsigned cf__ceil_log2(uint64_t n) {
    unsigned bits = 0;
    while (bits < 64 && ((uint64_t)1 << bits) < n) bits++;
    return bits;
}

/* The narrowest derived width that still fills nb buckets of b slots to the
 * default max_load (load at the first failed insert, measured with the
 * default eviction budget over 2^16..2^26 buckets; docs/C-API.md, "Sizing"):
 *
 *   b = 1: about half the bits of nb: a single-slot bucket has one way out;
 *   b = 2: 6 bits up to 2^22 buckets, 7 up to 2^25, then 8 (f = 5 fills
 *          2^15 buckets to 83.7% for one seed; f = 6 fills 2^22 to 86.3%
 *          but 2^23 to 54% for one seed);
 *   b = 4: 5 bits (f = 5 at 2^25: 96.1%; f = 4 at 2^22: 95.4%, too close);
 *   b = 8: 5 bits (f = 5 at 2^22: 99.3%), below every width a target FPP
 *          under 1 asks for anyway.
 *
 * With the mixed partner map (cf_internal.h) these are what the table
 * needs, so a derived width follows the target FPP everywhere but b = 1 and
 * very loose targets. */
unsigned cf__min_width(unsigned b, uint64_t nb) {
    unsigned l2 = cf__ceil_log2(nb), w;
    switch (b) {
    case 1: w = (l2 + 1) / 2 + 3; return w < 8 ? 8 : w;
    case 2: return l2 <= 22 ? 6 : l2 <= 25 ? 7 : 8;
    default: return 5;
    }
}

unsigned cf__width_for_fpp(unsigned b, double fpp) {
    double want = ceil(log2(2.0 * b / fpp));
    return want > 1000.0 ? 1000u : want < 1.0 ? 1u : (unsigned)want;
}

double cf__loosest_fpp_for_width(unsigned b, unsigned f) {
    return 2.0 * b * ldexp(1.0, -(int)f);
}

/* Resolves derived parameters (bucket size, width, buckets) from cfg. */
cf_status cf__resolve_config(const cf_config *cfg, unsigned *fbits, unsigned *b, uint64_t *nb,
                             unsigned *max_kicks) {
    *b = cfg->bucket_size ? cfg->bucket_size : CF_DEFAULT_BUCKET_SIZE;
    CF__RETURN_IF(!cf__valid_bucket_size(*b), CF_E_PARAM);
    *max_kicks = cfg->max_kicks ? cfg->max_kicks : CF_DEFAULT_MAX_KICKS;

    if (cfg->num_buckets != 0) {
        *nb = cfg->num_buckets;
    } else {
        CF__RETURN_IF(cfg->capacity == 0, CF_E_PARAM);
        double load = cf__sizing_load(cfg, *b);
        CF__RETURN_IF(!(load > 0.0 && load <= 1.0), CF_E_PARAM);
        double buckets = ceil((double)cfg->capacity / (*b * load));
        CF__RETURN_IF(!(buckets < 1.8e19), CF_E_TOO_LARGE);
        *nb = buckets < 1.0 ? 1 : (uint64_t)buckets;
    }

    if (cfg->fingerprint_bits != 0) {
        *fbits = cfg->fingerprint_bits;
    } else {
        double fpp = cfg->target_fpp;
        CF__RETURN_IF(!(fpp > 0.0 && fpp < 1.0), CF_E_PARAM);
        unsigned want = cf__width_for_fpp(*b, fpp);
        CF__RETURN_IF(want > CF_MAX_FINGERPRINT_BITS, CF_E_PARAM);
        unsigned floor_bits = cf__min_width(*b, *nb);
        *fbits = want < floor_bits ? floor_bits : want;
    }
    return cf__check_shape(*fbits, *b, *nb, *max_kicks, cfg->flags);
}
