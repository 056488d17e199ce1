/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_hash.c -- the library's hash is XXH3-64 with the filter's seed, bit
 * for bit: src/base/hash.h computes keys of up to 16 bytes itself, with the
 * seed's part prepared once per filter, and files, the CLI, the Python
 * package and other implementations all depend on the result.
 */
#include "test.h"

#include "cuckoofilter.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

static void test_every_short_length_and_seed(void) {
    static const uint64_t seeds[] = {0,
                                     1,
                                     2,
                                     0x80000000u,
                                     0xffffffffu,
                                     0x100000000ull,
                                     0x9e3779b97f4a7c15ull,
                                     UINT64_MAX,
                                     UINT64_MAX - 1};
    uint64_t rng = 42, mismatches = 0, checked = 0;
    uint8_t key[64];
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0] + 40; s++) {
        uint64_t seed = s < sizeof seeds / sizeof seeds[0] ? seeds[s] : test_rand(&rng);
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.capacity = 100;
        cfg.seed = seed;
        cf_filter *f;
        REQUIRE(cf_new(&cfg, &f) == CF_OK);
        for (size_t len = 0; len <= sizeof key; len++)
            for (int round = 0; round < 20; round++) {
                for (size_t i = 0; i < sizeof key; i++) key[i] = (uint8_t)test_rand(&rng);
                if (round == 0) memset(key, 0, sizeof key);
                if (round == 1) memset(key, 0xff, sizeof key);
                mismatches += cf_hash(f, key, len) != XXH3_64bits_withSeed(key, len, seed);
                checked++;
            }
        /* The empty key may be NULL. */
        mismatches += cf_hash(f, NULL, 0) != XXH3_64bits_withSeed("", 0, seed);
        cf_free(f);
    }
    CHECK_EQ(mismatches, 0);
    CHECK(checked > 40000);
}

/* A filter loaded from bytes prepares its seed as cf_new does. */
static void test_loaded_filter_hashes_alike(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 1000;
    cfg.seed = 0x0123456789abcdefull;
    cf_filter *f, *g;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    size_t n;
    uint8_t *buf = test_serialize(f, &n);
    REQUIRE(cf_deserialize(buf, n, NULL, &g) == CF_OK);
    for (uint64_t k = 0; k < 1000; k++)
        CHECK_EQ(cf_hash(g, &k, sizeof k), XXH3_64bits_withSeed(&k, sizeof k, cfg.seed));
    free(buf);
    cf_free(f), cf_free(g);
}

TEST_MAIN(TEST(test_every_short_length_and_seed), TEST(test_loaded_filter_hashes_alike))
