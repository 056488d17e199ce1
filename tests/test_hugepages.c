/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* Big tables ask for transparent huge pages, small ones and tables of an
 * embedder's allocator do not, and CF_HUGEPAGES=0 turns the advice off.
 * What the kernel does with the advice depends on its THP mode
 * (/sys/kernel/mm/transparent_hugepage/enabled), so the test reads the mode
 * and checks what it implies for the table's mapping in /proc/self/smaps
 * (its THPeligible line): in "madvise" mode exactly the advised tables are
 * eligible, in "always" mode every big one, in "never" mode none. */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include "test.h"

#include "table/layout.h"
#include "kind/inplace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum thp_mode { THP_NONE, THP_NEVER, THP_MADVISE, THP_ALWAYS } thp_mode;

static thp_mode read_mode(void) {
    FILE *fp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (fp == NULL) return THP_NONE;
    char line[128] = "";
    char *got = fgets(line, sizeof line, fp);
    fclose(fp);
    if (got == NULL) return THP_NONE;
    if (strstr(line, "[always]")) return THP_ALWAYS;
    if (strstr(line, "[madvise]")) return THP_MADVISE;
    return THP_NEVER;
}

/* The THPeligible value of the mapping holding address p: 0 or 1, or -1
 * when the kernel does not report it (no such line, no /proc). */
static int thp_eligible(const void *p) {
    FILE *fp = fopen("/proc/self/smaps", "r");
    if (fp == NULL) return -1;
    char line[512];
    int in = 0, value = -1;
    unsigned long a = (unsigned long)(uintptr_t)p;
    while (fgets(line, sizeof line, fp) != NULL) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = a >= lo && a < hi;
            continue;
        }
        int v;
        if (in && sscanf(line, "THPeligible: %d", &v) == 1) {
            value = v;
            break;
        }
    }
    fclose(fp);
    return value;
}

/* Whether [p, p + n) lies in one mapping of /proc/self/maps (-1: no /proc). */
static int one_mapping(const void *p, size_t n) {
    FILE *fp = fopen("/proc/self/maps", "r");
    if (fp == NULL) return -1;
    char line[512];
    unsigned long a = (unsigned long)(uintptr_t)p, z = a + n - 1;
    int found = 0;
    while (fgets(line, sizeof line, fp) != NULL) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && a >= lo && a < hi) {
            found = z < hi;
            break;
        }
    }
    fclose(fp);
    return found;
}

static cf_filter *make(uint64_t nb, const cf_allocator *a) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.num_buckets = nb;
    cfg.fingerprint_bits = 16; /* 8 bytes a bucket */
    cfg.allocator = a;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    return f;
}

static void *plain_alloc(void *ctx, size_t n) {
    (void)ctx;
    return malloc(n);
}

static void plain_free(void *ctx, void *p) {
    (void)ctx;
    free(p);
}

static void test_advice_follows_the_mode(void) {
    thp_mode mode = read_mode();
    unsetenv("CF_HUGEPAGES");
    cf_filter *big = make((uint64_t)1 << 21, NULL);   /* 16 MiB */
    cf_filter *small = make((uint64_t)1 << 16, NULL); /* 512 KiB: below the limit */
    cf_allocator mine = {plain_alloc, plain_free, NULL, NULL, NULL};
    cf_filter *theirs = make((uint64_t)1 << 21, &mine); /* an embedder's memory */
    setenv("CF_HUGEPAGES", "0", 1);
    cf_filter *off = make((uint64_t)1 << 21, NULL);
    unsetenv("CF_HUGEPAGES");

    /* The middle of each table (any byte would do: the advice covers every
     * page the table touches, malloc's header page included). */
    int e_big = thp_eligible(big->t.table + big->t.table_bytes / 2);
    int e_small = thp_eligible(small->t.table + small->t.table_bytes / 2);
    int e_theirs = thp_eligible(theirs->t.table + theirs->t.table_bytes / 2);
    int e_off = thp_eligible(off->t.table + off->t.table_bytes / 2);
    printf("THP mode %d: eligible big %d, small %d, embedder's %d, CF_HUGEPAGES=0 %d\n", (int)mode,
           e_big, e_small, e_theirs, e_off);
    if (mode == THP_NONE || e_big < 0) {
        /* No THP in this kernel: the advice must at least leave the
         * filter working (below). */
        CHECK(e_big <= 0 && e_off <= 0);
    } else if (mode == THP_MADVISE) {
        CHECK_EQ(e_big, 1);
        CHECK_EQ(e_small, 0);
        CHECK_EQ(e_theirs, 0);
        CHECK_EQ(e_off, 0);
    } else if (mode == THP_ALWAYS) {
        CHECK_EQ(e_big, 1);
        CHECK_EQ(e_off, 1); /* the kernel needs no advice */
    } else {
        CHECK_EQ(e_big, 0);
    }
    /* The advised table is an ordinary one. */
    for (uint64_t k = 0; k < 100000; k++) CHECK_STATUS(cf_insert_u64(big, k), CF_OK);
    uint64_t missing = 0;
    for (uint64_t k = 0; k < 100000; k++) missing += !cf_contains_u64(big, k);
    CHECK_EQ(missing, 0);
    cf_free(big);
    cf_free(small);
    cf_free(theirs);
    cf_free(off);
}

/* An in-place grown table (CF_GROWTH_INPLACE) that doubles past the limit
 * is advised as a table made that big would be. */
static void test_doubled_table_is_advised(void) {
    thp_mode mode = read_mode();
    unsetenv("CF_HUGEPAGES");
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.flags = CF_GROW;
    cfg.growth_mode = CF_GROWTH_INPLACE;
    cfg.num_buckets = (uint64_t)1 << 17; /* 16-bit slots: 1 MiB, below the limit */
    cfg.target_fpp = 0.01;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    int before = thp_eligible(f->t.table + f->t.table_bytes / 2);
    for (int i = 0; i < 3; i++) REQUIRE(cf__inplace_double(f) == CF_OK); /* 8 MiB */
    int after = thp_eligible(f->t.table + f->t.table_bytes / 2);
    /* The advice left malloc's mapping whole: advice on part of it would
     * split it, and realloc's mremap refuses a range over two mappings
     * (the doublings then copy the table). */
    CHECK(one_mapping(f->t.table, f->t.table_bytes) != 0);
    printf("THP mode %d: in-place table eligible at 1 MiB %d, doubled to 8 MiB %d\n", (int)mode,
           before, after);
    if (mode == THP_MADVISE && after >= 0) {
        CHECK_EQ(before, 0);
        CHECK_EQ(after, 1);
    }
    for (uint64_t k = 0; k < 100000; k++) CHECK_STATUS(cf_insert_u64(f, k), CF_OK);
    uint64_t missing = 0;
    for (uint64_t k = 0; k < 100000; k++) missing += !cf_contains_u64(f, k);
    CHECK_EQ(missing, 0);
    cf_free(f);
}

TEST_MAIN(TEST(test_advice_follows_the_mode), TEST(test_doubled_table_is_advised))
