/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test.h -- the whole test framework: checks that print file, line and both
 * values, and a main() per test file that runs its tests in order.
 */
#ifndef CF_TEST_H
#define CF_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuckoofilter.h"

static int test_failures_;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
            test_failures_++;                                                        \
        }                                                                            \
    } while (0)

#define CHECK_INT_(a, op, b)                                                                       \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (!(a_ op b_)) {                                                                         \
            fprintf(stderr, "%s:%d: %s %s %s failed: %lld vs %lld\n", __FILE__, __LINE__, #a, #op, \
                    #b, a_, b_);                                                                   \
            test_failures_++;                                                                      \
        }                                                                                          \
    } while (0)
#define CHECK_EQ(a, b) CHECK_INT_(a, ==, b)
#define CHECK_NE(a, b) CHECK_INT_(a, !=, b)
#define CHECK_LE(a, b) CHECK_INT_(a, <=, b)
#define CHECK_LT(a, b) CHECK_INT_(a, <, b)
#define CHECK_GE(a, b) CHECK_INT_(a, >=, b)

/* Compares two cf_status values and prints their names. */
#define CHECK_STATUS(a, b)                                                                    \
    do {                                                                                      \
        cf_status a_ = (a), b_ = (b);                                                         \
        if (a_ != b_) {                                                                       \
            fprintf(stderr, "%s:%d: %s == %s failed: %s vs %s\n", __FILE__, __LINE__, #a, #b, \
                    cf_status_name(a_), cf_status_name(b_));                                  \
            test_failures_++;                                                                 \
        }                                                                                     \
    } while (0)

#define CHECK_DBL_NEAR(a, b, tol)                                                                \
    do {                                                                                         \
        double a_ = (a), b_ = (b);                                                               \
        if (!(a_ - b_ <= (tol) && b_ - a_ <= (tol))) {                                           \
            fprintf(stderr, "%s:%d: |%s - %s| <= %s failed: %.9g vs %.9g\n", __FILE__, __LINE__, \
                    #a, #b, #tol, a_, b_);                                                       \
            test_failures_++;                                                                    \
        }                                                                                        \
    } while (0)

/* Stops the test at once: for failures after which nothing else is meaningful. */
#define REQUIRE(cond)                                                                  \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: REQUIRE(%s) failed\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

typedef struct test_case {
    const char *name;
    void (*run)(void);
} test_case;

/* Runs every test, prints one line per test and "N passed, N failed". */
static inline int test_run_all(const test_case *tests, size_t n) {
    size_t passed = 0, failed = 0;
    for (size_t i = 0; i < n; i++) {
        int before = test_failures_;
        tests[i].run();
        int ok = test_failures_ == before;
        printf("%s %s\n", ok ? "ok  " : "FAIL", tests[i].name);
        fflush(stdout);
        if (ok)
            passed++;
        else
            failed++;
    }
    printf("%zu passed, %zu failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

#define TEST_MAIN(...)                                                 \
    int main(void) {                                                   \
        static const test_case tests_[] = {__VA_ARGS__};               \
        return test_run_all(tests_, sizeof tests_ / sizeof tests_[0]); \
    }
#define TEST(fn) \
    { #fn, fn }

/* A small deterministic generator for test data (splitmix64). */
static inline uint64_t test_rand(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* An allocator for tests that inject failures (as the ctx of a
 * cf_allocator {test_counting_alloc, test_counting_free, &c, NULL, NULL}): counts
 * calls and live blocks, and fails call number fail_at (0: none), so a test
 * can fail every allocation of an operation in turn and check for leaks. */
typedef struct test_counting {
    long calls, fail_at, live;
} test_counting;

static inline void *test_counting_alloc(void *ctx, size_t size) {
    test_counting *c = ctx;
    if (++c->calls == c->fail_at) return NULL;
    void *p = malloc(size);
    if (p) c->live++;
    return p;
}

static inline void test_counting_free(void *ctx, void *p) {
    test_counting *c = ctx;
    c->live--;
    free(p);
}

/* The same allocator's realloc (a fifth member): a call of its own, and
 * the block as live as before. */
static inline void *test_counting_realloc(void *ctx, void *p, size_t old_size, size_t size) {
    test_counting *c = ctx;
    (void)old_size;
    if (++c->calls == c->fail_at) return NULL;
    return realloc(p, size);
}

/* The filter's bytes as cf_serialize writes them, in a malloc'd buffer the
 * caller frees; *n receives their count.  Stops the test if the buffer
 * cannot be had or cf_serialize does not write exactly
 * cf_serialized_size(f) bytes. */
static inline uint8_t *test_serialize(const cf_filter *f, size_t *n) {
    size_t size = cf_serialized_size(f), written = 0;
    uint8_t *buf = malloc(size);
    REQUIRE(buf != NULL);
    REQUIRE(cf_serialize(f, buf, size, &written) == CF_OK);
    REQUIRE(written == size);
    *n = size;
    return buf;
}

/* The exact model of a filter's contents: key k in [0, universe) was
 * inserted count[k] times (as an 8-byte key), total copies in all. */
typedef struct test_model {
    uint32_t *count;
    uint64_t universe, total;
} test_model;

/* Checks that every key of the model is found and counted at least as
 * often as it was inserted: no false negative. */
static inline void test_model_all_found(const cf_filter *f, const test_model *m) {
    uint64_t missing = 0, undercount = 0;
    for (uint64_t k = 0; k < m->universe; k++) {
        if (m->count[k] == 0) continue;
        missing += !cf_contains(f, &k, sizeof k);
        undercount += cf_count(f, &k, sizeof k) < m->count[k];
    }
    CHECK_EQ(missing, 0);
    CHECK_EQ(undercount, 0);
}

#endif /* CF_TEST_H */
