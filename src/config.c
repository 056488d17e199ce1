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
 * chosen by its fingerprint alone, so with few fingerprint values many items
 * share few partner offsets and the table fills unevenly (the paper's
 * f >= log(n)/b bound).  min_width is the measured floor that keeps the
 * default loads (tests/test_load.c): a derived width never goes below it.
 * Tables are never rounded to a power of two.
 */
#include <math.h>

#include "cf_internal.h"

void cf_config_init(cf_config *cfg) {
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

static bool cf__valid_bucket_size(unsigned b) {
    return b == 1 || b == 2 || b == 4 || b == 8;
}

cf_status cf__check_shape(unsigned fbits, unsigned b, uint64_t nb, unsigned max_kicks,
                          unsigned flags) {
    CF__RETURN_IF(fbits < CF_MIN_FINGERPRINT_BITS || fbits > CF_MAX_FINGERPRINT_BITS, CF_E_PARAM);
    CF__RETURN_IF(!cf__valid_bucket_size(b), CF_E_PARAM);
    CF__RETURN_IF((flags & ~CF_SEMI_SORT) != 0, CF_E_PARAM);
    /* A semi-sorted bucket (4f - 4 bits) must fit one 64-bit load. */
    CF__RETURN_IF((flags & CF_SEMI_SORT) && (b != 4 || fbits < 5 || fbits > 16), CF_E_PARAM);
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
 * default max_load.  Measured on tables that are not powers of two, worst of
 * several seeds: about half the bits of nb for b = 1, a quarter for b = 2
 * and a third for b = 4 and 8, plus a margin, up to 1e7 buckets; above that
 * the need stops growing (at 2.5e7 buckets of 4 slots, 9 bits fill to 95.7%
 * and 10 bits to 96.3%; at 5e7 of 2 slots, 10 bits to 86.5%; at 1.25e7 of 8
 * slots, 11 bits to 99.2%), hence the caps.  Only loose targets meet the
 * floor: 10 bits for b = 4 is what any target FPP under 1.6% asks for. */
static unsigned cf__min_width(unsigned b, uint64_t nb) {
    unsigned l2 = cf__ceil_log2(nb), w;
    switch (b) {
    case 1: w = (l2 + 1) / 2 + 3; return w < 8 ? 8 : w;
    case 2: w = (l2 + 3) / 4 + 4; return w < 5 ? 5 : w > 10 ? 10 : w;
    case 4: w = (l2 + 5) / 3 + 2; return w < 5 ? 5 : w > 10 ? 10 : w;
    default: w = (l2 + 2) / 3 + 4; return w < 4 ? 4 : w > 11 ? 11 : w;
    }
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
        double load = cfg->max_load != 0.0 ? cfg->max_load : cf_default_max_load(*b);
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
        double want = ceil(log2(2.0 * *b / fpp));
        CF__RETURN_IF(want > CF_MAX_FINGERPRINT_BITS, CF_E_PARAM);
        unsigned floor_bits = cf__min_width(*b, *nb);
        *fbits = want < floor_bits ? floor_bits : (unsigned)want;
    }
    return cf__check_shape(*fbits, *b, *nb, *max_kicks, cfg->flags);
}
