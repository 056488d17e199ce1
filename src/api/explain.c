/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * explain.c -- cf_config_explain and cf_bloom_config_explain: the reason
 * cf_new (cf_bloom_new) refuses a configuration, in one sentence that
 * names the option, its value, why, and what would work.
 *
 * The checks follow cf_new's order kind by kind (api/filter.c, then the
 * kind's new: kind/concurrent.c, kind/chain.c, kind/inplace.c, table/'s
 * cf__resolve_config and cf__check_shape), and every number in a sentence
 * comes from the helper cf_new itself uses (cf__width_for_fpp,
 * cf__inplace_width, cf__table_bytes, ...).  tests/test_explain.c holds the
 * two to one answer: over a grid of configurations, the status here is
 * cf_new's.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "base/alloc.h"
#include "bloom/bloom.h"
#include "kind/chain.h"
#include "kind/expiring.h"
#include "kind/inplace.h"
#include "table/table.h"

/* The C names, for a NULL table or entry. */
static const char *const cf__c_names[CF_OPTION_COUNT] = {
    [CF_OPT_CAPACITY] = "capacity=",
    [CF_OPT_TARGET_FPP] = "target_fpp=",
    [CF_OPT_FINGERPRINT_BITS] = "fingerprint_bits=",
    [CF_OPT_BUCKET_SIZE] = "bucket_size=",
    [CF_OPT_MAX_KICKS] = "max_kicks=",
    [CF_OPT_MAX_LOAD] = "max_load=",
    [CF_OPT_NUM_BUCKETS] = "num_buckets=",
    [CF_OPT_GROWTH] = "growth=",
    [CF_OPT_MAX_BYTES] = "max_bytes=",
    [CF_OPT_GROWTH_MODE] = "growth_mode=",
    [CF_OPT_NUM_BITS] = "num_bits=",
    [CF_OPT_NUM_HASHES] = "num_hashes=",
    [CF_OPT_SEMI_SORT] = "CF_SEMI_SORT",
    [CF_OPT_CONCURRENT] = "CF_CONCURRENT",
    [CF_OPT_GROW] = "CF_GROW",
    [CF_OPT_GROW_INPLACE] = "CF_GROW with CF_GROWTH_INPLACE",
    [CF_OPT_EXPIRE_AFTER] = "expire_after=",
};

/* Where the sentence goes. */
typedef struct cf__why {
    const cf_option_names *names;
    char *buf;
    size_t cap, needed;
} cf__why;

static const char *cf__opt(const cf__why *w, cf_option o) {
    const char *n = w->names != NULL ? w->names->name[o] : NULL;
    return n != NULL ? n : cf__c_names[o];
}

/* Drops the separator a spelling puts after an option's name ("--fpp ")
 * where the name stands alone, before punctuation or at the end: "(or
 * --buckets)", not "(or --buckets )".  In place; the new length. */
static size_t cf__tidy(char *s, size_t n) {
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        char next = i + 1 < n ? s[i + 1] : '\0';
        if (s[i] == ' ' && (next == ')' || next == ':' || next == ',' || next == ' ' ||
                            next == ';' || next == '\0'))
            continue;
        s[out++] = s[i];
    }
    s[out] = '\0';
    return out;
}

/* Writes the sentence and returns st. */
__attribute__((format(printf, 3, 4))) static cf_status cf__say(cf__why *w, cf_status st,
                                                               const char *fmt, ...) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n < sizeof line) {
        w->needed = cf__tidy(line, (size_t)n);
        if (w->cap) snprintf(w->buf, w->cap, "%s", line);
        return st;
    }
    /* Longer than any sentence with the front ends' names: as it is. */
    char one;
    va_start(ap, fmt);
    n = vsnprintf(w->cap ? w->buf : &one, w->cap ? w->cap : 1, fmt, ap);
    va_end(ap);
    w->needed = n > 0 ? (size_t)n : 0;
    return st;
}

/* x rounded up to three significant digits: a suggested value printed
 * with %.3g must still work when read back. */
static double cf__up3(double x) {
    if (!(x > 0.0)) return x;
    double scale = pow(10.0, floor(log10(x)) - 2.0);
    double r = ceil(x / scale) * scale;
    return r < x ? nextafter(r, INFINITY) : r;
}

static const char *cf__kinds_word(unsigned flags) {
    return (flags & CF_GROW) ? "growth" : "semi-sorting";
}

/* The plain table's rules (cf__resolve_config, cf__check_shape,
 * cf__table_bytes), for cfg as a plain table.  `share`: the target FPP is
 * this fraction of what the user asked for (a chain's first table). */
static cf_status cf__explain_table(cf__why *w, const cf_config *cfg, double share) {
    unsigned b = cfg->bucket_size ? cfg->bucket_size : CF_DEFAULT_BUCKET_SIZE;
    if (b != 1 && b != 2 && b != 4 && b != 8)
        return cf__say(w, CF_E_PARAM, "%s%u is not a bucket size: give 1, 2, 4 or 8",
                       cf__opt(w, CF_OPT_BUCKET_SIZE), b);
    uint64_t nb = cfg->num_buckets;
    if (nb == 0) {
        if (cfg->capacity == 0)
            return cf__say(w, CF_E_PARAM, "%s0 holds nothing: give at least 1 (or %s)",
                           cf__opt(w, CF_OPT_CAPACITY), cf__opt(w, CF_OPT_NUM_BUCKETS));
        double load = cf__sizing_load(cfg, b);
        if (!(load > 0.0 && load <= 1.0))
            return cf__say(w, CF_E_PARAM,
                           "%s%g is not a load factor: give one in (0, 1], or 0 "
                           "for the bucket size's default (%g)",
                           cf__opt(w, CF_OPT_MAX_LOAD), cfg->max_load, cf_default_max_load(b));
        if (!(ceil((double)cfg->capacity / (b * load)) < 1.8e19))
            return cf__say(w, CF_E_TOO_LARGE, "%s%llu needs more than 2^64 buckets",
                           cf__opt(w, CF_OPT_CAPACITY), (unsigned long long)cfg->capacity);
    }
    unsigned f = cfg->fingerprint_bits;
    if (f == 0) {
        double asked = cfg->target_fpp / share;
        if (!(cfg->target_fpp > 0.0 && cfg->target_fpp < 1.0))
            return cf__say(w, CF_E_PARAM,
                           "%s%g is not a probability below 1: give one in (0, 1), "
                           "e.g. 0.01 for 1%%",
                           cf__opt(w, CF_OPT_TARGET_FPP), asked);
        unsigned want = cf__width_for_fpp(b, cfg->target_fpp);
        if (want > CF_MAX_FINGERPRINT_BITS)
            return cf__say(w, CF_E_PARAM,
                           "%s%g needs %s%u-bit fingerprints with %s%u, and they "
                           "have at most %d: ask for %s%.3g or more",
                           cf__opt(w, CF_OPT_TARGET_FPP), asked, want > 999 ? "over " : "", want,
                           cf__opt(w, CF_OPT_BUCKET_SIZE), b, CF_MAX_FINGERPRINT_BITS,
                           cf__opt(w, CF_OPT_TARGET_FPP),
                           cf__up3(cf__loosest_fpp_for_width(b, CF_MAX_FINGERPRINT_BITS) / share));
    } else if (f < CF_MIN_FINGERPRINT_BITS || f > CF_MAX_FINGERPRINT_BITS) {
        return cf__say(w, CF_E_PARAM,
                       "%s%u is not a fingerprint width: give %d to %d, or leave "
                       "it out to derive it from %s",
                       cf__opt(w, CF_OPT_FINGERPRINT_BITS), f, CF_MIN_FINGERPRINT_BITS,
                       CF_MAX_FINGERPRINT_BITS, cf__opt(w, CF_OPT_TARGET_FPP));
    }
    if ((cfg->flags & ~(unsigned)(CF_SEMI_SORT | CF_GROW)) != 0)
        return cf__say(w, CF_E_PARAM, "flags 0x%x hold bits the library does not know", cfg->flags);
    unsigned fbits, rb, kicks;
    cf_config plain = *cfg;
    plain.flags &= ~(unsigned)CF_GROW;
    cf_status st = cf__resolve_config(&plain, &fbits, &rb, &nb, &kicks);
    if ((cfg->flags & CF_SEMI_SORT) && b != 4)
        return cf__say(w, CF_E_PARAM,
                       "%s needs %s4 (a semi-sorted bucket holds four "
                       "fingerprints), not %u",
                       cf__opt(w, CF_OPT_SEMI_SORT), cf__opt(w, CF_OPT_BUCKET_SIZE), b);
    if (st == CF_E_PARAM && (cfg->flags & CF_SEMI_SORT) && f != 0)
        return cf__say(w, CF_E_PARAM, "%s needs 5- to 16-bit fingerprints, not %s%u",
                       cf__opt(w, CF_OPT_SEMI_SORT), cf__opt(w, CF_OPT_FINGERPRINT_BITS), f);
    if (st == CF_E_PARAM && (cfg->flags & CF_SEMI_SORT)) {
        cf_config wide = plain;
        wide.flags = 0;
        unsigned wf = 0, wb, wk;
        uint64_t wn;
        (void)cf__resolve_config(&wide, &wf, &wb, &wn, &wk);
        return cf__say(w, CF_E_PARAM,
                       "%s needs 5- to 16-bit fingerprints, and %s%g asks for %u "
                       "(%s, %s%u): ask for %s%.3g or more, or leave %s out",
                       cf__opt(w, CF_OPT_SEMI_SORT), cf__opt(w, CF_OPT_TARGET_FPP),
                       cfg->target_fpp / share, wf, cf__kinds_word(cfg->flags),
                       cf__opt(w, CF_OPT_BUCKET_SIZE), b, cf__opt(w, CF_OPT_TARGET_FPP),
                       cf__up3(cf__loosest_fpp_for_width(b, 16) / share),
                       cf__opt(w, CF_OPT_SEMI_SORT));
    }
    if (st == CF_E_PARAM && f == 0 && cf__min_width(b, nb) > CF_MAX_FINGERPRINT_BITS)
        return cf__say(w, CF_E_PARAM,
                       "%s%llu makes %llu buckets of %u slots, which fill only "
                       "with fingerprints of at least %u bits (at most %d): use a larger %s",
                       cfg->num_buckets ? cf__opt(w, CF_OPT_NUM_BUCKETS)
                                        : cf__opt(w, CF_OPT_CAPACITY),
                       (unsigned long long)(cfg->num_buckets ? cfg->num_buckets : cfg->capacity),
                       (unsigned long long)nb, b, cf__min_width(b, nb), CF_MAX_FINGERPRINT_BITS,
                       cf__opt(w, CF_OPT_BUCKET_SIZE));
    if (cfg->max_kicks > CF_MAX_KICKS_LIMIT)
        return cf__say(w, CF_E_PARAM, "%s%u is above the eviction budget's limit: give 1 to %u",
                       cf__opt(w, CF_OPT_MAX_KICKS), cfg->max_kicks, CF_MAX_KICKS_LIMIT);
    if (st != CF_OK) /* every case above: not reached unless the rules changed */
        return cf__say(w, st, "the configuration is refused: %s", cf_strerror(st));
    size_t bytes;
    if (cf__table_bytes(nb, rb, fbits, plain.flags, &bytes) != CF_OK)
        return cf__say(w, CF_E_TOO_LARGE,
                       "%s%llu needs a table of %llu buckets of %u %u-bit "
                       "slots, more than this machine can address",
                       cfg->num_buckets ? cf__opt(w, CF_OPT_NUM_BUCKETS)
                                        : cf__opt(w, CF_OPT_CAPACITY),
                       (unsigned long long)(cfg->num_buckets ? cfg->num_buckets : cfg->capacity),
                       (unsigned long long)nb, rb, fbits);
    return CF_OK;
}

/* kind/inplace.c's cf__inplace_new. */
static cf_status cf__explain_inplace(cf__why *w, const cf_config *cfg) {
    const char *inplace = cf__opt(w, CF_OPT_GROW_INPLACE);
    if (cfg->flags & CF_SEMI_SORT)
        return cf__say(w, CF_E_PARAM,
                       "%s cannot be %s: its slots hold fingerprints of varying "
                       "length; drop %s",
                       inplace, cf__opt(w, CF_OPT_SEMI_SORT), cf__opt(w, CF_OPT_SEMI_SORT));
    if (cfg->flags != CF_GROW)
        return cf__say(w, CF_E_PARAM, "flags 0x%x hold bits the library does not know", cfg->flags);
    if (!(cfg->target_fpp > 0.0 && cfg->target_fpp < 1.0))
        return cf__say(w, CF_E_PARAM,
                       "%s%g is not a probability below 1: give one in (0, 1), "
                       "e.g. 0.01 for 1%%",
                       cf__opt(w, CF_OPT_TARGET_FPP), cfg->target_fpp);
    if (cfg->bucket_size != 0 && cfg->bucket_size != CF__INPLACE_SLOTS)
        return cf__say(w, CF_E_PARAM, "%s needs %s%u (its table has four slots a bucket), not %u",
                       inplace, cf__opt(w, CF_OPT_BUCKET_SIZE), CF__INPLACE_SLOTS,
                       cfg->bucket_size);
    if (cfg->max_kicks > CF_MAX_KICKS_LIMIT)
        return cf__say(w, CF_E_PARAM, "%s%u is above the eviction budget's limit: give 1 to %u",
                       cf__opt(w, CF_OPT_MAX_KICKS), cfg->max_kicks, CF_MAX_KICKS_LIMIT);
    if (!(cfg->max_load >= 0.0 && cfg->max_load <= 1.0))
        return cf__say(w, CF_E_PARAM,
                       "%s%g is not a load factor: give one in (0, 1], or 0 for "
                       "the default",
                       cf__opt(w, CF_OPT_MAX_LOAD), cfg->max_load);
    unsigned f = cfg->fingerprint_bits, wbits = cf__inplace_width(cfg);
    if (wbits == 0 && f != 0 && f != 15 && f != 16 && f != 32)
        return cf__say(w, CF_E_PARAM,
                       "%s takes slots of 15, 16 or 32 bits, not %s%u (or leave "
                       "it out to derive the width from %s)",
                       inplace, cf__opt(w, CF_OPT_FINGERPRINT_BITS), f,
                       cf__opt(w, CF_OPT_TARGET_FPP));
    if (wbits == 0 && f != 0)
        return cf__say(w, CF_E_PARAM,
                       "%s%u with %s: the first table, filled, would pass %s%g; "
                       "ask for %s%.3g or more, or leave the width out",
                       cf__opt(w, CF_OPT_FINGERPRINT_BITS), f, inplace,
                       cf__opt(w, CF_OPT_TARGET_FPP), cfg->target_fpp,
                       cf__opt(w, CF_OPT_TARGET_FPP),
                       cf__up3(cf__inplace_fpp_floor(f, false) * (1.0 + 1e-9)));
    if (wbits == 0)
        return cf__say(w, CF_E_PARAM,
                       "%s%g is too small for %s: even 32-bit slots keep an FPP "
                       "over its doublings only from %.3g; ask for %s%.3g or more",
                       cf__opt(w, CF_OPT_TARGET_FPP), cfg->target_fpp, inplace,
                       cf__inplace_fpp_floor(32, true), cf__opt(w, CF_OPT_TARGET_FPP),
                       cf__up3(cf__inplace_fpp_floor(32, true)));
    const char *size_opt =
        cfg->num_buckets ? cf__opt(w, CF_OPT_NUM_BUCKETS) : cf__opt(w, CF_OPT_CAPACITY);
    unsigned long long size = cfg->num_buckets ? cfg->num_buckets : cfg->capacity;
    unsigned level;
    size_t bytes;
    cf_status st = cf__inplace_first_table(cfg, wbits, &level, &bytes);
    if (st == CF_E_PARAM)
        return cf__say(w, CF_E_PARAM, "%s0 holds nothing: give at least 1 (or %s)",
                       cf__opt(w, CF_OPT_CAPACITY), cf__opt(w, CF_OPT_NUM_BUCKETS));
    if (st != CF_OK)
        return cf__say(w, st,
                       "%s%llu needs more buckets than a table of %u-bit slots can "
                       "address",
                       size_opt, size, wbits);
    if (cfg->max_bytes != 0 && bytes > cfg->max_bytes)
        return cf__say(w, CF_E_PARAM,
                       "%s%llu is below the first table's %zu bytes (%s%llu): "
                       "give at least %zu, or a smaller %s",
                       cf__opt(w, CF_OPT_MAX_BYTES), (unsigned long long)cfg->max_bytes, bytes,
                       size_opt, size, bytes, size_opt);
    return CF_OK;
}

/* kind/chain.c's cf__chain_new: its first table gets a quarter of the
 * target (CF__CHAIN_SHARE: the same constant, from chain.h). */
static cf_status cf__explain_chain(cf__why *w, const cf_config *cfg, double share) {
    if ((cfg->flags & ~(unsigned)(CF_GROW | CF_SEMI_SORT)) != 0)
        return cf__say(w, CF_E_PARAM, "flags 0x%x hold bits the library does not know", cfg->flags);
    unsigned growth = cfg->growth ? cfg->growth : CF_DEFAULT_GROWTH;
    if (growth > CF_MAX_GROWTH)
        return cf__say(w, CF_E_PARAM, "%s%u is above the most a table may grow by: give 1 to %d",
                       cf__opt(w, CF_OPT_GROWTH), growth, CF_MAX_GROWTH);
    if (!(cfg->target_fpp > 0.0 && cfg->target_fpp < 1.0))
        return cf__say(w, CF_E_PARAM,
                       "%s%g is not a probability below 1: give one in (0, 1), "
                       "e.g. 0.01 for 1%%",
                       cf__opt(w, CF_OPT_TARGET_FPP), cfg->target_fpp);
    cf_config first = *cfg;
    first.target_fpp = cfg->target_fpp * share;
    CF__FORWARD_IF_ERROR(cf__explain_table(w, &first, share));
    unsigned fbits, b, kicks;
    uint64_t nb;
    first.flags &= ~(unsigned)CF_GROW;
    (void)cf__resolve_config(&first, &fbits, &b, &nb, &kicks);
    double full = cf__fpp(fbits, b, 1.0);
    if (!(full < cfg->target_fpp))
        return cf__say(w, CF_E_PARAM,
                       "%s%u with %s: a full table's FPP (%.3g) is not below "
                       "%s%g, so no table could follow; leave the width out or ask for a "
                       "larger %s",
                       cf__opt(w, CF_OPT_FINGERPRINT_BITS), fbits, cf__opt(w, CF_OPT_GROW), full,
                       cf__opt(w, CF_OPT_TARGET_FPP), cfg->target_fpp,
                       cf__opt(w, CF_OPT_TARGET_FPP));
    size_t bytes;
    (void)cf__table_bytes(nb, b, fbits, first.flags, &bytes);
    if (cfg->max_bytes != 0 && bytes > cfg->max_bytes)
        return cf__say(
            w, CF_E_PARAM,
            "%s%llu is below the first table's %zu bytes: give at "
            "least %zu, or a smaller %s",
            cf__opt(w, CF_OPT_MAX_BYTES), (unsigned long long)cfg->max_bytes, bytes, bytes,
            cfg->num_buckets ? cf__opt(w, CF_OPT_NUM_BUCKETS) : cf__opt(w, CF_OPT_CAPACITY));
    return CF_OK;
}

/* An allocator with only one of alloc and free (cf__allocator_resolve). */
static cf_status cf__explain_allocator(cf__why *w, const cf_allocator *a) {
    cf_allocator alloc;
    if (cf__allocator_resolve(a, &alloc) == CF_OK) return CF_OK;
    return cf__say(w, CF_E_PARAM,
                   "the allocator gives %s without %s: give both, or neither "
                   "(malloc and free)",
                   a->alloc ? "alloc" : "free", a->alloc ? "free" : "alloc");
}

static cf_status cf__explain_kind(cf__why *w, const cf_config *cfg);

static cf_status cf__explain(cf__why *w, const cf_config *cfg) {
    if (cfg == NULL) return cf__say(w, CF_E_PARAM, "no configuration was given");
    if (cfg->growth_mode > CF_GROWTH_INPLACE)
        return cf__say(w, CF_E_PARAM, "%s%u is not a growth mode: give %u (chain) or %u (in place)",
                       cf__opt(w, CF_OPT_GROWTH_MODE), cfg->growth_mode, CF_GROWTH_CHAIN,
                       CF_GROWTH_INPLACE);
    cf_status st = cf__explain_kind(w, cfg);
    if (st != CF_OK) return st;
    return cf__explain_allocator(w, cfg->allocator);
}

/* kind/expiring.c's cf__expiring_new: no flag, then a plain table's
 * checks, then room for the stamp beside the fingerprint. */
static cf_status cf__explain_expiring(cf__why *w, const cf_config *cfg) {
    if (cfg->flags != 0) {
        unsigned fl = cfg->flags;
        const char *what =
            (fl & CF_GROW) ? cf__opt(w, cfg->growth_mode == CF_GROWTH_INPLACE ? CF_OPT_GROW_INPLACE
                                                                              : CF_OPT_GROW)
            : (fl & CF_CONCURRENT) ? cf__opt(w, CF_OPT_CONCURRENT)
            : (fl & CF_SEMI_SORT)  ? cf__opt(w, CF_OPT_SEMI_SORT)
                                   : "other flags";
        return cf__say(w, CF_E_PARAM,
                       "%s%llu cannot be combined with %s (yet): an expiring filter is one "
                       "table of stamped slots; drop one of them",
                       cf__opt(w, CF_OPT_EXPIRE_AFTER), (unsigned long long)cfg->expire_after,
                       what);
    }
    cf_config sized; /* the capacity raised for the tick after a window */
    cf__expiring_sized(cfg, &sized);
    cf_status st = cf__explain_table(w, &sized, 1.0);
    /* A plain table's refusal of a target no 32-bit fingerprint meets
     * names a 32-bit target, which an expiring table refuses again: the
     * widest fingerprint that leaves room for a stamp, 28 bits, is the one
     * to name. */
    unsigned bs = cfg->bucket_size ? cfg->bucket_size : CF_DEFAULT_BUCKET_SIZE;
    if (st == CF_E_PARAM && cfg->fingerprint_bits == 0 && cfg->target_fpp > 0.0 &&
        cfg->target_fpp < 1.0 && (bs == 1 || bs == 2 || bs == 4 || bs == 8) &&
        cf__width_for_fpp(bs, cfg->target_fpp) > CF_MAX_FINGERPRINT_BITS)
        return cf__say(w, CF_E_PARAM,
                       "%s%llu needs room for a stamp beside each fingerprint, and %s%g needs "
                       "fingerprints of more than 28 bits: ask for %s%.3g or more",
                       cf__opt(w, CF_OPT_EXPIRE_AFTER), (unsigned long long)cfg->expire_after,
                       cf__opt(w, CF_OPT_TARGET_FPP), cfg->target_fpp,
                       cf__opt(w, CF_OPT_TARGET_FPP), cf__up3(cf__loosest_fpp_for_width(bs, 28)));
    CF__FORWARD_IF_ERROR(st);
    unsigned f, b, kicks;
    uint64_t nb;
    (void)cf__resolve_config(&sized, &f, &b, &nb, &kicks);
    if (cf__expiring_stamp_bits(f, b) == 0)
        return cf__say(w, CF_E_PARAM,
                       "%s%llu needs room for a stamp beside each fingerprint, and %u-bit "
                       "fingerprints leave none in 32-bit slots: ask for at most 28 bits "
                       "(%s%.3g or more)",
                       cf__opt(w, CF_OPT_EXPIRE_AFTER), (unsigned long long)cfg->expire_after, f,
                       cf__opt(w, CF_OPT_TARGET_FPP), cf__up3(cf__loosest_fpp_for_width(b, 28)));
    size_t bytes;
    unsigned s = cf__expiring_stamp_bits(f, b);
    if (cf__table_bytes(nb, b, f + s, 0, &bytes) != CF_OK)
        return cf__say(w, CF_E_TOO_LARGE,
                       "%s%llu needs a table of %llu buckets of %u %u-bit slots (fingerprint "
                       "and stamp), more than this machine can address",
                       cfg->num_buckets ? cf__opt(w, CF_OPT_NUM_BUCKETS)
                                        : cf__opt(w, CF_OPT_CAPACITY),
                       (unsigned long long)(cfg->num_buckets ? cfg->num_buckets : cfg->capacity),
                       (unsigned long long)nb, b, f + s);
    return CF_OK;
}

static cf_status cf__explain_kind(cf__why *w, const cf_config *cfg) {
    if (cfg->expire_after != 0) return cf__explain_expiring(w, cfg);
    if (cfg->flags & CF_CONCURRENT) {
        if (cfg->flags != CF_CONCURRENT)
            return cf__say(w, CF_E_PARAM, "%s cannot be combined with %s (yet): choose one",
                           cf__opt(w, CF_OPT_CONCURRENT),
                           (cfg->flags & CF_GROW) ? cf__opt(w, cfg->growth_mode == CF_GROWTH_INPLACE
                                                                   ? CF_OPT_GROW_INPLACE
                                                                   : CF_OPT_GROW)
                           : (cfg->flags & CF_SEMI_SORT) ? cf__opt(w, CF_OPT_SEMI_SORT)
                                                         : "other flags");
        cf_config plain = *cfg;
        plain.flags = 0;
        return cf__explain_table(w, &plain, 1.0);
    }
    if ((cfg->flags & CF_GROW) && cfg->growth_mode == CF_GROWTH_INPLACE)
        return cf__explain_inplace(w, cfg);
    if (cfg->flags & CF_GROW) return cf__explain_chain(w, cfg, CF__CHAIN_SHARE);
    return cf__explain_table(w, cfg, 1.0);
}

cf_status cf_config_explain(const cf_config *cfg, const cf_option_names *names, char *buf,
                            size_t cap, size_t *needed) {
    cf__why w = {names, buf, buf != NULL ? cap : 0, 0};
    if (w.cap) buf[0] = '\0';
    cf_status st = cf__explain(&w, cfg);
    if (st == CF_OK && w.cap) buf[0] = '\0';
    if (needed != NULL) *needed = st == CF_OK ? 0 : w.needed;
    return st;
}

/* bloom/bloom.c's cf_bloom_new. */
static cf_status cf__explain_bloom(cf__why *w, const cf_bloom_config *cfg) {
    if (cfg == NULL) return cf__say(w, CF_E_PARAM, "no configuration was given");
    if (cfg->num_bits == 0) {
        if (cfg->capacity == 0)
            return cf__say(w, CF_E_PARAM, "%s0 holds nothing: give at least 1 (or %s)",
                           cf__opt(w, CF_OPT_CAPACITY), cf__opt(w, CF_OPT_NUM_BITS));
        if (!(cfg->target_fpp > 0.0 && cfg->target_fpp < 1.0))
            return cf__say(w, CF_E_PARAM,
                           "%s%g is not a probability below 1: give one in (0, "
                           "1), e.g. 0.01 for 1%%",
                           cf__opt(w, CF_OPT_TARGET_FPP), cfg->target_fpp);
        uint64_t bits;
        if (cf__bloom_bits_for(cfg->capacity, cfg->target_fpp, &bits) != CF_OK)
            return cf__say(w, CF_E_TOO_LARGE, "%s%llu at %s%g needs more than 2^64 bits",
                           cf__opt(w, CF_OPT_CAPACITY), (unsigned long long)cfg->capacity,
                           cf__opt(w, CF_OPT_TARGET_FPP), cfg->target_fpp);
    }
    if (cfg->num_hashes > 64)
        return cf__say(w, CF_E_PARAM,
                       "%s%u is above 64: give 1 to 64, or 0 for the best for the "
                       "size",
                       cf__opt(w, CF_OPT_NUM_HASHES), cfg->num_hashes);
    if (cfg->num_hashes == 0 && cfg->capacity == 0)
        return cf__say(w, CF_E_PARAM, "%s%llu without %s: give %s too, or %s",
                       cf__opt(w, CF_OPT_NUM_BITS), (unsigned long long)cfg->num_bits,
                       cf__opt(w, CF_OPT_NUM_HASHES), cf__opt(w, CF_OPT_NUM_HASHES),
                       cf__opt(w, CF_OPT_CAPACITY));
    uint64_t m = cfg->num_bits;
    if (m == 0) (void)cf__bloom_bits_for(cfg->capacity, cfg->target_fpp, &m);
    size_t bytes;
    if (cf__bloom_bytes(m, &bytes) != CF_OK)
        return cf__say(w, CF_E_TOO_LARGE, "%llu bits are more than this machine can address",
                       (unsigned long long)m);
    return cf__explain_allocator(w, cfg->allocator);
}

cf_status cf_bloom_config_explain(const cf_bloom_config *cfg, const cf_option_names *names,
                                  char *buf, size_t cap, size_t *needed) {
    cf__why w = {names, buf, buf != NULL ? cap : 0, 0};
    if (w.cap) buf[0] = '\0';
    cf_status st = cf__explain_bloom(&w, cfg);
    if (needed != NULL) *needed = st == CF_OK ? 0 : w.needed;
    return st;
}
