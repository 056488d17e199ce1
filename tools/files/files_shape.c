/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * files_shape.c -- creating the filter that --capacity, --fpp and friends
 * describe, and saying why when the library refuses.
 *
 * cf_new answers CF_E_PARAM for several reasons; the user needs the one
 * that applies and the numbers behind it ("--fpp 1e-10 needs 35-bit
 * fingerprints ...").  The sentence is the library's (cf_config_explain),
 * in this command's spelling of the options, as Python and the Redis
 * module print it in theirs.
 */
#include <math.h>
#include <stdio.h>

#include "cli/cli.h"
#include "files/files.h"

/* The command's spelling of the options, for the library's sentences
 * (cf_config_explain). */
static const cf_option_names cli_names = {{
    [CF_OPT_CAPACITY] = "--capacity ",
    [CF_OPT_TARGET_FPP] = "--fpp ",
    [CF_OPT_FINGERPRINT_BITS] = "--fingerprint-bits ",
    [CF_OPT_BUCKET_SIZE] = "--bucket-size ",
    [CF_OPT_MAX_KICKS] = "--max-kicks ",
    [CF_OPT_NUM_BUCKETS] = "--buckets ",
    [CF_OPT_SEMI_SORT] = "--semi-sort",
    [CF_OPT_GROW] = "--grow",
    [CF_OPT_GROW_INPLACE] = "--grow=inplace",
    [CF_OPT_EXPIRE_AFTER] = "--expire (seconds) ",
}};

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
    char why[512];
    if (s == CF_E_PARAM || s == CF_E_TOO_LARGE) {
        /* Why, in the library's words: the option, the value, what works. */
        if (cf_config_explain(&o->cfg, &cli_names, why, sizeof why, NULL) == CF_OK)
            snprintf(why, sizeof why, "%s", cf_strerror(s));
        cli_error("cannot create the filter: %s", why);
    } else if (s == CF_E_NOMEM) {
        cf_shape sh;
        if (!(o->cfg.flags & (CF_GROW | CF_CONCURRENT)) && cf_config_resolve(&o->cfg, &sh) == CF_OK)
            cli_error("not enough memory for a table of %zu bytes", sh.table_bytes);
        else
            cli_error("not enough memory for the filter");
    } else {
        cli_error("cannot create the filter: %s", cf_strerror(s));
    }
    return NULL;
}

bool files_check_shape(const files_opts *o) {
    if (!o->has_capacity && !o->has_buckets) {
        cli_error("--capacity is required");
        return false;
    }
    return true;
}
