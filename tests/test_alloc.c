/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_alloc.c -- every allocation goes through the filter's allocator, and
 * every allocation failure comes back as CF_E_NOMEM with nothing leaked.
 *
 * A counting allocator fails its Nth call; for every N up to the number of
 * calls a whole workload makes, the workload must either succeed or stop
 * cleanly, and the allocator must end balanced (as many frees as successful
 * allocations).  ASan checks the rest.
 */
#include "test.h"

#include "cuckoofilter.h"

/* Creates, fills until full, queries and frees two filters (the second with
 * an eviction budget too large for the stack, so each of its searches that
 * outgrows the stack allocates scratch for the time of that insert) and a
 * Bloom filter. */
static cf_status workload(test_counting *c) {
    cf_allocator a = {test_counting_alloc, test_counting_free, c, NULL, NULL};
    static const unsigned budgets[] = {20, 5000};
    for (int i = 0; i < 2; i++) {
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.capacity = 1000;
        cfg.max_kicks = budgets[i];
        cfg.allocator = &a;
        cf_filter *f;
        cf_status s = cf_new(&cfg, &f);
        if (s != CF_OK) {
            CHECK(f == NULL);
            return s;
        }
        uint64_t added = 0;
        for (uint64_t k = 0; k < 1100; k++, added++) {
            cf_stats before, after;
            cf_get_stats(f, &before);
            s = cf_insert(f, &k, sizeof k);
            if (s == CF_OK) continue;
            if (s == CF_E_FULL && k >= 900) break;
            CHECK_STATUS(s, CF_E_NOMEM); /* the scratch of a deep eviction search */
            cf_get_stats(f, &after);
            CHECK_EQ(after.items, before.items);
            for (uint64_t j = 0; j < k; j++) CHECK(cf_contains(f, &j, sizeof j));
            cf_free(f);
            return s;
        }
        for (uint64_t k = 0; k < added; k++) CHECK(cf_contains(f, &k, sizeof k));
        CHECK_GE(cf_memory_usage(f), 1000 * 13 / 8);
        cf_free(f);
    }

    cf_bloom_config bc;
    cf_bloom_config_init(&bc);
    bc.capacity = 1000;
    bc.allocator = &a;
    cf_bloom *b;
    cf_status s = cf_bloom_new(&bc, &b);
    if (s != CF_OK) {
        CHECK(b == NULL);
        return s;
    }
    cf_bloom_insert(b, "x", 1);
    CHECK(cf_bloom_contains(b, "x", 1));
    cf_bloom_free(b);
    return CF_OK;
}

static void test_every_allocation_can_fail(void) {
    test_counting probe = {0, -1, 0};
    CHECK_STATUS(workload(&probe), CF_OK);
    CHECK_EQ(probe.live, 0);
    long total = probe.calls;
    /* 2 x (handle, table), Bloom handle, bits, and the second filter's deep
     * searches (held only during their insert: live is 0 in between). */
    CHECK(total > 7);
    for (long n = 1; n <= total; n++) {
        test_counting c = {0, n, 0};
        CHECK_STATUS(workload(&c), CF_E_NOMEM);
        CHECK_EQ(c.live, 0);
    }
}

/* A table too large for the allocator is CF_E_NOMEM, not a crash. */
static void *refusing_alloc(void *ctx, size_t size) {
    (void)ctx;
    return size > ((size_t)1 << 30) ? NULL : malloc(size);
}
static void plain_free(void *ctx, void *p) {
    (void)ctx;
    free(p);
}

static void test_huge_table_is_nomem(void) {
    cf_allocator a = {refusing_alloc, plain_free, NULL, NULL, NULL};
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.num_buckets = (uint64_t)1 << 40; /* 6 TiB at 12 bits */
    cfg.fingerprint_bits = 12;
    cfg.allocator = &a;
    cf_filter *f = (cf_filter *)&cfg; /* must be reset to NULL */
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_NOMEM);
    CHECK(f == NULL);
}

/* Loading a filter allocates its handle and table, nothing more, whatever
 * eviction budget it declares. */
static size_t bytes_allocated;
static void *summing_alloc(void *ctx, size_t size) {
    (void)ctx;
    bytes_allocated += size;
    return malloc(size);
}

static void test_load_allocates_only_the_table(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.num_buckets = 1;
    cfg.max_kicks = CF_MAX_KICKS_LIMIT;
    cf_filter *f, *g;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    uint8_t buf[256];
    size_t n;
    REQUIRE(cf_serialize(f, buf, sizeof buf, &n) == CF_OK);
    cf_allocator a = {summing_alloc, plain_free, NULL, NULL, NULL};
    bytes_allocated = 0;
    REQUIRE(cf_deserialize(buf, n, &a, &g) == CF_OK);
    CHECK_LE(bytes_allocated, 4096); /* not 16 bytes x 65,537 search nodes */
    CHECK_EQ(cf_memory_usage(g), bytes_allocated);
    /* A search that cannot outgrow the stack (one bucket: nothing to move
     * to) allocates nothing; none keeps memory in the filter. */
    size_t loaded = bytes_allocated;
    for (uint64_t k = 0; k < 5; k++) cf_insert(g, &k, sizeof k);
    CHECK_EQ(bytes_allocated, loaded);
    CHECK_EQ(cf_memory_usage(g), loaded);
    cf_free(g);
    cf_free(f);
    cfg.max_kicks = CF_MAX_KICKS_LIMIT + 1;
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
}

/* With a calloc member, cf_new takes the table from it (and trusts it to be
 * zeroed); without one, the table comes from alloc and is zeroed by hand.
 * Both allocators here hand out garbage-filled memory from alloc, so a
 * table that were not zeroed would show up as stored items. */
static long callocs, allocs;
static void *dirty_alloc(void *ctx, size_t size) {
    (void)ctx;
    allocs++;
    unsigned char *p = malloc(size);
    if (p) memset(p, 0xA5, size);
    return p;
}
static void *counting_calloc(void *ctx, size_t size) {
    (void)ctx;
    callocs++;
    return calloc(1, size);
}

static void test_calloc_member_takes_the_table(void) {
    for (int with_calloc = 0; with_calloc < 2; with_calloc++) {
        cf_allocator a = {dirty_alloc, plain_free, NULL, with_calloc ? counting_calloc : NULL,
                          NULL};
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.capacity = 100000;
        cfg.allocator = &a;
        callocs = allocs = 0;
        cf_filter *f;
        REQUIRE(cf_new(&cfg, &f) == CF_OK);
        CHECK_EQ(callocs, with_calloc ? 1 : 0); /* the table, and only it */
        CHECK_EQ(allocs, with_calloc ? 1 : 2);  /* the handle (and the table) */
        cf_stats st;
        cf_get_stats(f, &st);
        CHECK_EQ(st.items, 0);
        for (uint64_t k = 0; k < 1000; k++) CHECK(!cf_contains(f, &k, sizeof k));
        uint64_t k = 7;
        CHECK_STATUS(cf_insert(f, &k, sizeof k), CF_OK);
        CHECK(cf_contains(f, &k, sizeof k));
        cf_free(f);
    }
    /* calloc alone is half an allocator; so is realloc alone. */
    cf_allocator only = {NULL, NULL, NULL, counting_calloc, NULL};
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 10;
    cfg.allocator = &only;
    cf_filter *f;
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
    cf_allocator only_realloc = {NULL, NULL, NULL, NULL, test_counting_realloc};
    cfg.allocator = &only_realloc;
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
}

TEST_MAIN(TEST(test_every_allocation_can_fail), TEST(test_huge_table_is_nomem),
          TEST(test_load_allocates_only_the_table), TEST(test_calloc_member_takes_the_table))
