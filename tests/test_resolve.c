/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_resolve.c -- cf_config_resolve describes exactly the filter cf_new
 * builds (or fails with cf_new's status), and cf_stats reports the format
 * version the file carries.
 */
#include <math.h>

#include "test.h"

#include "cuckoofilter.h"

static void free_nothing(void *ctx, void *p) {
    (void)ctx;
    (void)p;
}

/* One configuration: resolve it, build it, and compare the two answers. */
static void check_config(const cf_config *cfg, const char *what) {
    cf_shape sh;
    memset(&sh, 0xa5, sizeof sh);
    cf_status rs = cf_config_resolve(cfg, &sh);
    cf_filter *f = NULL;
    cf_status ns = cf_new(cfg, &f);
    if (rs != ns)
        fprintf(stderr, "%s: resolve %s, new %s\n", what, cf_status_name(rs), cf_status_name(ns));
    CHECK_STATUS(rs, ns);
    if (rs != CF_OK) {
        cf_shape zero;
        memset(&zero, 0, sizeof zero);
        CHECK(memcmp(&sh, &zero, sizeof sh) == 0);
        cf_free(f);
        return;
    }
    REQUIRE(f != NULL);
    cf_stats st;
    cf_get_stats(f, &st);
    CHECK_EQ(sh.num_buckets, st.num_buckets);
    CHECK_EQ(sh.slots, st.slots);
    CHECK_EQ(sh.bucket_size, st.bucket_size);
    CHECK_EQ(sh.fingerprint_bits, st.fingerprint_bits);
    CHECK_EQ(sh.bits_per_slot, st.bits_per_slot);
    CHECK_EQ(sh.max_kicks, st.max_kicks);
    CHECK_EQ(sh.flags, st.flags);
    CHECK_EQ(sh.table_bytes, st.table_bytes);
    CHECK_EQ(sh.serialized_size, cf_serialized_size(f));
    double load = cfg->max_load != 0.0 ? cfg->max_load : cf_default_max_load(st.bucket_size);
    CHECK_DBL_NEAR(sh.max_load, load, 0.0);
    CHECK_DBL_NEAR(sh.fpp_at_max_load,
                   cf_theoretical_fpp(st.fingerprint_bits, st.bucket_size, load), 0.0);
    cf_free(f);
}

static void test_resolve_matches_new(void) {
    static const uint64_t capacities[] = {0, 1, 7, 1000, 123457, 2000000};
    static const double fpps[] = {0.2, 0.01, 0.0013, 1e-6, 1e-12};
    static const unsigned sizes[] = {0, 1, 2, 3, 4, 8};
    static const unsigned flags[] = {0, CF_SEMI_SORT, 0x80};
    static const double loads[] = {0, 0.5, 1.5};
    unsigned n = 0;
    for (size_t c = 0; c < sizeof capacities / sizeof *capacities; c++)
        for (size_t p = 0; p < sizeof fpps / sizeof *fpps; p++)
            for (size_t b = 0; b < sizeof sizes / sizeof *sizes; b++)
                for (size_t fl = 0; fl < sizeof flags / sizeof *flags; fl++)
                    for (size_t l = 0; l < sizeof loads / sizeof *loads; l++) {
                        cf_config cfg;
                        cf_config_init(&cfg);
                        cfg.capacity = capacities[c];
                        cfg.target_fpp = fpps[p];
                        cfg.bucket_size = sizes[b];
                        cfg.flags = flags[fl];
                        cfg.max_load = loads[l];
                        char what[128];
                        snprintf(what, sizeof what, "cap %llu fpp %g b %u flags %u load %g",
                                 (unsigned long long)capacities[c], fpps[p], sizes[b], flags[fl],
                                 loads[l]);
                        check_config(&cfg, what);
                        n++;
                    }
    CHECK_GE(n, 1000);

    /* Explicit shapes, widths and budgets, semi-sorted ones included. */
    static const struct {
        uint64_t nb;
        unsigned f, b, flags, kicks;
    } explicit_[] = {
        {1, 1, 1, 0, 1},
        {13, 7, 2, 0, 0},
        {1030, 16, 4, CF_SEMI_SORT, 0},
        {50, 9, 4, CF_SEMI_SORT, 65535},
        {5, 32, 8, 0, 0},
        {5, 33, 8, 0, 0},
        {5, 17, 4, CF_SEMI_SORT, 0},
        {5, 4, 4, CF_SEMI_SORT, 0},
        {5, 8, 8, CF_SEMI_SORT, 0},
        {9, 12, 4, 0, 65536},
        {UINT64_MAX, 12, 4, 0, 0},
        {(uint64_t)1 << 59, 32, 4, 0, 0},
    };
    for (size_t i = 0; i < sizeof explicit_ / sizeof *explicit_; i++) {
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.num_buckets = explicit_[i].nb;
        cfg.fingerprint_bits = explicit_[i].f;
        cfg.bucket_size = explicit_[i].b;
        cfg.flags = explicit_[i].flags;
        cfg.max_kicks = explicit_[i].kicks;
        char what[64];
        snprintf(what, sizeof what, "explicit shape %zu", i);
        check_config(&cfg, what);
    }

    /* The allocator rule is cf_new's too. */
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 100;
    cf_allocator half = {NULL, free_nothing, NULL, NULL, NULL};
    cfg.allocator = &half;
    check_config(&cfg, "half an allocator");
    cf_shape sh;
    CHECK_STATUS(cf_config_resolve(&cfg, &sh), CF_E_PARAM);
    CHECK_STATUS(cf_config_resolve(NULL, &sh), CF_E_PARAM);
    CHECK_STATUS(cf_config_resolve(&cfg, NULL), CF_E_PARAM);
    /* Grown and concurrent filters are not single fixed tables: refused,
     * though cf_new builds them. */
    static const unsigned special[] = {CF_GROW, CF_CONCURRENT};
    for (int i = 0; i < 2; i++) {
        cf_config_init(&cfg);
        cfg.capacity = 1000;
        cfg.target_fpp = 0.01;
        cfg.flags = special[i];
        CHECK_STATUS(cf_config_resolve(&cfg, &sh), CF_E_PARAM);
        cf_filter *f;
        CHECK_STATUS(cf_new(&cfg, &f), CF_OK);
        cf_free(f);
    }
}

/* The format version in cf_stats is the one in the bytes cf_serialize writes
 * (bytes 8-9, little-endian, docs/FORMAT.md), and survives a round trip. */
static void test_stats_format_version(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 100;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    size_t n;
    uint8_t *buf = test_serialize(f, &n);
    cf_stats st;
    cf_get_stats(f, &st);
    CHECK_GE(st.format_version, 1);
    CHECK_EQ(st.format_version, buf[8] | buf[9] << 8);
    cf_filter *g;
    REQUIRE(cf_deserialize(buf, n, NULL, &g) == CF_OK);
    cf_get_stats(g, &st);
    CHECK_EQ(st.format_version, buf[8] | buf[9] << 8);
    free(buf);
    cf_free(f);
    cf_free(g);
}

TEST_MAIN(TEST(test_resolve_matches_new), TEST(test_stats_format_version))
