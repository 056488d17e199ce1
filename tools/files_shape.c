/*
 * files_shape.c -- creating the filter that --capacity, --fpp and friends
 * describe, and saying why when the library refuses.
 *
 * cf_new answers CF_E_PARAM for several reasons; the user needs the one
 * that applies and the numbers behind it ("--fpp 1e-10 needs 34-bit
 * fingerprints (at most 32)").  The numbers are the library's: the width a
 * target asks for comes from cf_config_resolve, never recomputed here.
 */
#include <math.h>

#include "cli.h"
#include "files.h"

/* The fingerprint width cfg's target FPP asks for, resolved on one bucket:
 * the target is relaxed by powers of two until the library accepts it (each
 * halving of the FPP costs one bit).  0 when none is accepted. */
static unsigned width_for_target(const cf_config *cfg) {
    cf_config p = *cfg;
    p.num_buckets = 1;
    p.flags = 0;
    p.fingerprint_bits = 0;
    p.allocator = NULL;
    for (unsigned k = 0; k <= CF_MAX_FINGERPRINT_BITS; k++) {
        p.target_fpp = ldexp(cfg->target_fpp, (int)k);
        if (!(p.target_fpp < 1)) break;
        cf_shape sh;
        if (cf_config_resolve(&p, &sh) == CF_OK) return sh.fingerprint_bits + k;
    }
    return 0;
}

/* Why cf_new refused o's configuration with CF_E_PARAM (the option checks
 * in files_util.c have already ruled out values out of range). */
static void explain_param(const files_opts *o) {
    const cf_config *c = &o->cfg;
    unsigned want = o->has_fbits ? c->fingerprint_bits : width_for_target(c);
    bool inplace = (c->flags & CF_GROW) && c->growth_mode == CF_GROWTH_INPLACE;
    /* An in-place filter's slots are not a plain table's: its own reasons. */
    if (inplace && o->has_fbits && want != 15 && want != 16 && want != 32) {
        cli_error("--grow=inplace takes slots of 15, 16 or 32 bits, not --fingerprint-bits %u "
                  "(leave it out to derive the width from --fpp)",
                  want);
    } else if (inplace && o->has_fbits) {
        cli_error("--fingerprint-bits %u with --grow=inplace: a full first table's FPP must "
                  "stay under --fpp %g (ask for a larger --fpp, or leave the width out)",
                  want, c->target_fpp);
    } else if (inplace) {
        cli_error("--fpp %g is too small for --grow=inplace: not even 32-bit slots keep it over "
                  "the doublings they are made for (ask for a larger --fpp)",
                  c->target_fpp);
    } else if (!o->has_fbits && want > CF_MAX_FINGERPRINT_BITS) {
        cli_error("--fpp %g needs %u-bit fingerprints (at most %d); ask for %g or more",
                  c->target_fpp, want, CF_MAX_FINGERPRINT_BITS,
                  ldexp(c->target_fpp, (int)(want - CF_MAX_FINGERPRINT_BITS)));
    } else if ((c->flags & CF_SEMI_SORT) && c->bucket_size != 4) {
        cli_error("--semi-sort needs --bucket-size 4 (a semi-sorted bucket holds 4 "
                  "fingerprints), not %u",
                  c->bucket_size);
    } else if ((c->flags & CF_SEMI_SORT) && o->has_fbits) {
        cli_error("--semi-sort needs 5..16-bit fingerprints, not --fingerprint-bits %u", want);
    } else if (c->flags & CF_SEMI_SORT) {
        cli_error("--semi-sort needs 5..16-bit fingerprints; --fpp %g asks for %u bits",
                  c->target_fpp, want);
    } else {
        cli_error("cannot create the filter: %s", cf_strerror(CF_E_PARAM));
    }
}

/* An explicit width narrower than any the library would derive for f's
 * table: its items' partner buckets spread too little for the table to
 * fill to its load, so it will not hold the capacity it was sized for. */
static void warn_if_narrow(const files_opts *o, const cf_filter *f) {
    cf_stats st;
    cf_get_stats(f, &st);
    cf_config p = o->cfg;
    p.num_buckets = st.num_buckets;
    p.fingerprint_bits = 0;
    p.target_fpp = nextafter(1.0, 0.0); /* the loosest target: only the table's need counts */
    p.flags = 0;
    p.allocator = NULL;
    cf_shape need;
    if (cf_config_resolve(&p, &need) != CF_OK) return;
    if (o->cfg.fingerprint_bits >= need.fingerprint_bits) return;
    fprintf(stderr,
            "cuckoo: warning: --fingerprint-bits %u is too narrow for %llu buckets (the library "
            "derives at least %u): the table will not fill to its load, so it will likely not "
            "hold %llu items; drop --fingerprint-bits or give %u or more\n",
            o->cfg.fingerprint_bits, (unsigned long long)st.num_buckets, need.fingerprint_bits,
            (unsigned long long)(o->has_capacity ? o->cfg.capacity : st.slots),
            need.fingerprint_bits);
}

cf_filter *files_new(const files_opts *o) {
    cf_filter *f = NULL;
    cf_status s = cf_new(&o->cfg, &f);
    if (s == CF_OK) {
        if (o->has_fbits) warn_if_narrow(o, f);
        return f;
    }
    const char *size_opt = o->has_buckets ? "--buckets" : "--capacity";
    unsigned long long size = o->has_buckets ? o->cfg.num_buckets : o->cfg.capacity;
    if (s == CF_E_PARAM)
        explain_param(o);
    else if (s == CF_E_TOO_LARGE)
        cli_error("%s %llu needs a table larger than this machine can address", size_opt, size);
    else if (s == CF_E_NOMEM)
        cli_error("not enough memory for the table of %s %llu", size_opt, size);
    else
        cli_error("cannot create the filter: %s", cf_strerror(s));
    return NULL;
}

bool files_check_shape(const files_opts *o) {
    if (!o->has_capacity && !o->has_buckets) {
        cli_error("--capacity is required");
        return false;
    }
    return true;
}
