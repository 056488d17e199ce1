/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_explain.c -- cf_config_explain and cf_bloom_config_explain: the
 * status they give is the one cf_new (cf_bloom_new) returns, over a grid of
 * configurations, and their sentences name the option that is wrong, its
 * value, and a fix that works (the suggested value is tried).
 */
#include <math.h>
#include <stdlib.h>

#include "test.h"

/* Refuses blocks past 64 MiB: configurations too large to build here
 * answer CF_E_NOMEM from cf_new, which cf_config_explain calls CF_OK. */
static void *small_alloc(void *ctx, size_t n) {
    (void)ctx;
    return n > ((size_t)64 << 20) ? NULL : malloc(n);
}
static void small_free(void *ctx, void *p) {
    (void)ctx;
    free(p);
}
static const cf_allocator small = {small_alloc, small_free, NULL, NULL, NULL};

/* The cuckoo command's spelling. */
static const cf_option_names cli = {{
    [CF_OPT_CAPACITY] = "--capacity ",
    [CF_OPT_TARGET_FPP] = "--fpp ",
    [CF_OPT_FINGERPRINT_BITS] = "--fingerprint-bits ",
    [CF_OPT_BUCKET_SIZE] = "--bucket-size ",
    [CF_OPT_MAX_KICKS] = "--max-kicks ",
    [CF_OPT_NUM_BUCKETS] = "--buckets ",
    [CF_OPT_SEMI_SORT] = "--semi-sort",
    [CF_OPT_GROW] = "--grow",
    [CF_OPT_GROW_INPLACE] = "--grow=inplace",
    [CF_OPT_CONCURRENT] = "--concurrent",
}};

static cf_status status_of_new(cf_config cfg) {
    cf_filter *f = NULL;
    cf_status s = cf_new(&cfg, &f);
    cf_free(f);
    return s == CF_E_NOMEM ? CF_OK : s;
}

static void test_agrees_with_cf_new(void) {
    static const uint64_t caps[] = {0, 1, 10, 1000, 1000000, (uint64_t)1 << 40, UINT64_MAX};
    static const double fpps[] = {0,     -1,    5e-324, 1e-300, 1e-20, 1e-10, 1e-9, 2e-9, 1e-5,
                                  0.001, 0.005, 0.01,   0.3,    0.99,  1,     2,    NAN};
    static const unsigned fbits[] = {0, 1, 4, 5, 12, 15, 16, 17, 32, 33};
    static const unsigned buckets[] = {0, 1, 2, 3, 4, 8, 16};
    static const unsigned kicks[] = {0, 1, 500, 65535, 65536};
    static const double loads[] = {0, 0.5, 1, 1.5, -1};
    static const uint64_t nbs[] = {0, 1, 1000, (uint64_t)1 << 62};
    static const unsigned flags[] = {
        0, CF_SEMI_SORT, CF_GROW, CF_GROW | CF_SEMI_SORT, CF_CONCURRENT, CF_CONCURRENT | CF_GROW,
        8};
    static const unsigned modes[] = {0, 1, 2};
    static const unsigned growths[] = {0, 2, 70000};
    static const uint64_t max_bytes[] = {0, 10, (uint64_t)1 << 30};
    /* Mostly 0 (the other kinds), else an expiring filter's window. */
    static const uint64_t expires[] = {0, 0, 0, 0, 1, 7, 86400, UINT64_MAX};
#define PICK(a) a[test_rand(&s) % (sizeof a / sizeof a[0])]
    uint64_t s = 11;
    int checked = 0, refused = 0, expiring_ok = 0;
    for (int i = 0; i < 20000; i++) {
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.capacity = PICK(caps);
        cfg.target_fpp = PICK(fpps);
        cfg.fingerprint_bits = PICK(fbits);
        cfg.bucket_size = PICK(buckets);
        cfg.max_kicks = PICK(kicks);
        cfg.max_load = PICK(loads);
        cfg.num_buckets = test_rand(&s) % 2 ? 0 : PICK(nbs);
        cfg.flags = PICK(flags);
        cfg.growth_mode = test_rand(&s) % 3 ? PICK(modes) : 0;
        cfg.growth = PICK(growths);
        cfg.max_bytes = PICK(max_bytes);
        cfg.expire_after = PICK(expires);
        cfg.allocator = &small;
        char why[256];
        size_t needed = 99;
        cf_status e = cf_config_explain(&cfg, &cli, why, sizeof why, &needed);
        cf_status n = status_of_new(cfg);
        if (e != n) {
            fprintf(stderr,
                    "cap %llu fpp %g f %u b %u kicks %u load %g nb %llu flags %u mode %u "
                    "growth %u max_bytes %llu expire %llu: explain %s, cf_new %s (%s)\n",
                    (unsigned long long)cfg.capacity, cfg.target_fpp, cfg.fingerprint_bits,
                    cfg.bucket_size, cfg.max_kicks, cfg.max_load,
                    (unsigned long long)cfg.num_buckets, cfg.flags, cfg.growth_mode, cfg.growth,
                    (unsigned long long)cfg.max_bytes, (unsigned long long)cfg.expire_after,
                    cf_status_name(e), cf_status_name(n), why);
            CHECK_STATUS(e, n);
        }
        if (e == CF_OK) {
            expiring_ok += cfg.expire_after != 0;
            CHECK(why[0] == '\0' && needed == 0);
        } else {
            refused++;
            CHECK(strlen(why) > 20 && needed == strlen(why));
            if (strstr(why, "invalid argument") != NULL)
                fprintf(stderr,
                        "no reason: %s (cap %llu fpp %g f %u b %u kicks %u load %g nb %llu flags "
                        "%u mode %u)\n",
                        why, (unsigned long long)cfg.capacity, cfg.target_fpp, cfg.fingerprint_bits,
                        cfg.bucket_size, cfg.max_kicks, cfg.max_load,
                        (unsigned long long)cfg.num_buckets, cfg.flags, cfg.growth_mode);
            CHECK(strstr(why, "invalid argument") == NULL); /* a reason, not the status */
            /* An option named alone (not before its value) loses the
             * spelling's separator: "(or --buckets)", not "(or --buckets )". */
            if (strstr(why, " )") || strstr(why, " :") || strstr(why, " ,") || strstr(why, "  "))
                fprintf(stderr, "a separator left before punctuation: %s\n", why);
            CHECK(!strstr(why, " )") && !strstr(why, " :") && !strstr(why, " ,") &&
                  !strstr(why, "  "));
        }
        checked++;
    }
#undef PICK
    CHECK_EQ(checked, 20000);
    CHECK(refused > 5000 && refused < 19500); /* the grid reaches both answers */
    CHECK(expiring_ok > 100);                 /* expiring filters among them */
}

/* The value after `opt` in `why`, as a number (NAN when absent). */
static double value_after(const char *why, const char *opt, int nth) {
    const char *p = why;
    for (int i = 0; i <= nth; i++) {
        p = strstr(p, opt);
        if (p == NULL) return NAN;
        p += strlen(opt);
    }
    return strtod(p, NULL);
}

/* Whether the target a refusal suggests (the sentence's last --fpp) is
 * the loosest one `width`-bit fingerprints meet: cfg with it resolves to
 * that width, and with half of it is refused. */
static void check_suggested_fpp(cf_config cfg, const char *why, unsigned width) {
    const char *last = NULL;
    for (const char *p = strstr(why, "--fpp "); p != NULL; p = strstr(p + 1, "--fpp ")) last = p;
    REQUIRE(last != NULL);
    double ok = strtod(last + strlen("--fpp "), NULL);
    REQUIRE(ok > 0 && ok < 1);
    cf_shape sh;
    cfg.target_fpp = ok;
    CHECK_STATUS(cf_config_resolve(&cfg, &sh), CF_OK);
    CHECK_EQ(sh.fingerprint_bits, width);
    cfg.target_fpp = ok / 2;
    CHECK_STATUS(cf_config_resolve(&cfg, &sh), CF_E_PARAM);
}

/* A target too strict for 32-bit fingerprints names the bits it needs and
 * the loosest target that works. */
static void test_fpp_too_small(void) {
    static const double fpps[] = {1e-10, 1e-20, 1e-300, 5e-324};
    for (size_t i = 0; i < sizeof fpps / sizeof fpps[0]; i++) {
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.capacity = 1000;
        cfg.target_fpp = fpps[i];
        char why[256];
        CHECK_STATUS(cf_config_explain(&cfg, &cli, why, sizeof why, NULL), CF_E_PARAM);
        CHECK(strstr(why, "--fpp ") == why); /* the option and its value come first */
        CHECK(strstr(why, "at most 32") != NULL);
        CHECK(strstr(why, "-bit fingerprints") != NULL);
        check_suggested_fpp(cfg, why, 32);
    }
}

/* The same for an expiring filter, whose fingerprints stop at 28 bits (a
 * stamp beside them in 32-bit slots). */
static void test_expiring_fpp_too_small(void) {
    static const double fpps[] = {1e-8, 1e-10, 1e-300};
    for (size_t i = 0; i < sizeof fpps / sizeof fpps[0]; i++) {
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.capacity = 1000;
        cfg.expire_after = 3600;
        cfg.target_fpp = fpps[i];
        char why[256];
        CHECK_STATUS(cf_config_explain(&cfg, &cli, why, sizeof why, NULL), CF_E_PARAM);
        CHECK(strstr(why, "28 bits") != NULL);
        check_suggested_fpp(cfg, why, 28);
    }
}

/* The case: in-place growth with semi-sorting is refused for the
 * semi-sorting, not for the FPP. */
static void test_inplace_reasons(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 10;
    cfg.flags = CF_GROW | CF_SEMI_SORT;
    cfg.growth_mode = CF_GROWTH_INPLACE;
    cfg.target_fpp = 0.01;
    char why[256];
    CHECK_STATUS(cf_config_explain(&cfg, &cli, why, sizeof why, NULL), CF_E_PARAM);
    CHECK(strstr(why, "--grow=inplace") != NULL && strstr(why, "--semi-sort") != NULL);
    CHECK(strstr(why, "--fpp") == NULL);

    /* Concurrent with in-place growth names the in-place option. */
    cfg.flags = CF_GROW | CF_CONCURRENT;
    CHECK_STATUS(cf_config_explain(&cfg, &cli, why, sizeof why, NULL), CF_E_PARAM);
    CHECK(strstr(why, "--grow=inplace") != NULL);

    cfg.flags = CF_GROW;
    cfg.bucket_size = 2;
    CHECK_STATUS(cf_config_explain(&cfg, &cli, why, sizeof why, NULL), CF_E_PARAM);
    CHECK(strstr(why, "--bucket-size 4") != NULL && strstr(why, "not 2") != NULL);

    /* Too strict for any slot: the floor it names works. */
    cfg.bucket_size = 0;
    cfg.target_fpp = 1e-12;
    CHECK_STATUS(cf_config_explain(&cfg, &cli, why, sizeof why, NULL), CF_E_PARAM);
    double ok = value_after(why, "--fpp ", 1);
    REQUIRE(ok > 0 && ok < 1);
    cf_filter *f = NULL;
    cfg.target_fpp = ok;
    CHECK_STATUS(cf_new(&cfg, &f), CF_OK);
    cf_free(f);
}

static void test_names_and_buffers(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 0;
    char why[256];
    /* The C names without a table. */
    CHECK_STATUS(cf_config_explain(&cfg, NULL, why, sizeof why, NULL), CF_E_PARAM);
    CHECK(strstr(why, "capacity=0") == why && strstr(why, "num_buckets=") != NULL);
    /* A partial table falls back entry by entry. */
    cf_option_names some = {{[CF_OPT_CAPACITY] = "capacity="}};
    some.name[CF_OPT_NUM_BUCKETS] = "num_buckets=";
    CHECK_STATUS(cf_config_explain(&cfg, &some, why, sizeof why, NULL), CF_E_PARAM);
    CHECK(strstr(why, "capacity=0") == why);
    /* Truncated, terminated, and the whole length reported. */
    char tiny[8];
    size_t needed = 0;
    CHECK_STATUS(cf_config_explain(&cfg, &cli, tiny, sizeof tiny, &needed), CF_E_PARAM);
    CHECK_EQ(strlen(tiny), sizeof tiny - 1);
    CHECK(needed > sizeof tiny);
    CHECK_STATUS(cf_config_explain(&cfg, &cli, NULL, 0, &needed), CF_E_PARAM);
    CHECK(needed > sizeof tiny);
    CHECK_STATUS(cf_config_explain(NULL, &cli, why, sizeof why, NULL), CF_E_PARAM);
    /* A good configuration: CF_OK and an empty sentence. */
    cfg.capacity = 100;
    CHECK_STATUS(cf_config_explain(&cfg, &cli, why, sizeof why, &needed), CF_OK);
    CHECK(why[0] == '\0' && needed == 0);
}

static void test_bloom(void) {
    static const uint64_t caps[] = {0, 1, 1000, UINT64_MAX};
    static const double fpps[] = {0, 1e-300, 0.01, 1, NAN};
    static const uint64_t bits[] = {0, 1, 1000, UINT64_MAX};
    static const unsigned hashes[] = {0, 1, 7, 64, 65};
    uint64_t s = 5;
    for (int i = 0; i < 2000; i++) {
        cf_bloom_config bc;
        cf_bloom_config_init(&bc);
        bc.capacity = caps[test_rand(&s) % 4];
        bc.target_fpp = fpps[test_rand(&s) % 5];
        bc.num_bits = bits[test_rand(&s) % 4];
        bc.num_hashes = hashes[test_rand(&s) % 5];
        bc.allocator = &small;
        char why[256];
        cf_status e = cf_bloom_config_explain(&bc, &cli, why, sizeof why, NULL);
        cf_bloom *b = NULL;
        cf_status n = cf_bloom_new(&bc, &b);
        cf_bloom_free(b);
        if (n == CF_E_NOMEM) n = CF_OK;
        CHECK_STATUS(e, n);
        if (e != CF_OK) CHECK(strlen(why) > 20);
    }
    cf_bloom_config bc;
    cf_bloom_config_init(&bc);
    bc.capacity = 0;
    char why[256];
    CHECK_STATUS(cf_bloom_config_explain(&bc, &cli, why, sizeof why, NULL), CF_E_PARAM);
    CHECK(strstr(why, "--capacity 0") == why);
}

TEST_MAIN(TEST(test_agrees_with_cf_new), TEST(test_fpp_too_small),
          TEST(test_expiring_fpp_too_small), TEST(test_inplace_reasons),
          TEST(test_names_and_buffers), TEST(test_bloom))
