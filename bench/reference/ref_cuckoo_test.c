/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * ref_cuckoo_test.c -- checks that the benchmark's baseline is the filter it
 * claims to be (ref_cuckoo.h): a wrong baseline would make every ratio the
 * benchmarks print meaningless.
 *
 *   layout   one item in an empty table sits in lane 0 of bucket
 *            (h >> 32) & (nb - 1), h recomputed here from the constants,
 *            as little-endian bytes at offset index * 4f / 8, and an item
 *            whose first bucket is full in lane 0 of its XOR partner;
 *   filling  inserts succeed until the victim cache is taken, then all fail;
 *            the table reaches the load a 4-way random walk reaches;
 *   answers  every stored item is found (the victim's too); the measured
 *            FPP is near 1 - (1 - 1/(2^f - 1))^(8 * load);
 *   delete   every stored item deletes once, leaving the table (and its
 *            padding) all zero;
 *   inline   the f = 12 code compiled into the caller (ref_cuckoo_impl.h,
 *            what cf-lookup-bench times) fills, answers and deletes exactly
 *            as the out-of-line functions: the same bytes, counters and
 *            victim after the same operations, the same answer on every key.
 */
#include "common/bench_util.h"
#include "reference/ref_cuckoo.h"
#include "reference/ref_cuckoo_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                               \
    do {                                                               \
        if (!(cond)) {                                                 \
            fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                              \
            fputc('\n', stderr);                                       \
            failures++;                                                \
        }                                                              \
    } while (0)

/* Lane 0 of bucket i, read byte by byte as little-endian. */
static uint32_t lane0(const ref_cuckoo *r, uint64_t i) {
    const uint8_t *p = r->table + i * r->bucket_bytes;
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
    return v & ((1u << r->fp_bits) - 1);
}

static void check_layout(unsigned f) {
    ref_cuckoo r;
    CHECK(ref_cuckoo_init(&r, 1024, f, 5), "init f=%u", f);
    uint64_t item = 0x0123456789abcdefull;
    uint64_t h = (uint64_t)((r.add + r.mul * (unsigned __int128)item) >> 64);
    uint64_t index = (h >> 32) & 1023;
    uint32_t tag = (uint32_t)(h & ((1u << f) - 1));
    if (tag == 0) tag = 1;
    CHECK(ref_cuckoo_insert(&r, item), "insert into an empty table");
    CHECK(lane0(&r, index) == tag, "f=%u: bucket %llu lane 0 holds %u, want tag %u", f,
          (unsigned long long)index, lane0(&r, index), tag);
    CHECK(ref_cuckoo_table_bytes(&r) == 1024 * (size_t)f / 2, "table bytes at f=%u", f);

    /* Four more items of the same first bucket fill it; the fifth goes to
     * lane 0 of its partner (index ^ (tag * 0x5bd1e995)) & (nb - 1). */
    unsigned same = 1;
    for (uint64_t x = 1; same < 5; x++) {
        uint64_t hx = (uint64_t)((r.add + r.mul * (unsigned __int128)x) >> 64);
        uint32_t tx = (uint32_t)(hx & ((1u << f) - 1));
        if (tx == 0) tx = 1;
        uint64_t partner = (index ^ (uint32_t)(tx * 0x5bd1e995u)) & 1023;
        if (((hx >> 32) & 1023) != index || partner == index) continue;
        CHECK(ref_cuckoo_insert(&r, x), "insert");
        if (++same == 5)
            CHECK(lane0(&r, partner) == tx, "f=%u: partner %llu lane 0 holds %u, want tag %u", f,
                  (unsigned long long)partner, lane0(&r, partner), tx);
    }
    ref_cuckoo_destroy(&r);
}

static void check_fill(unsigned f, uint64_t nb) {
    ref_cuckoo r;
    CHECK(ref_cuckoo_init(&r, nb, f, 11), "init");
    uint64_t slots = nb * REF_BUCKET_SIZE, rng = f * 1000003u + nb, stored = 0;
    /* Room for every slot and the victim: the next insert must fail. */
    uint64_t *keys = malloc((slots + 2) * sizeof *keys);
    for (uint64_t i = 0; i < slots + 2; i++) keys[i] = bench_splitmix64(&rng);
    while (stored < slots + 2 && ref_cuckoo_insert(&r, keys[stored])) stored++;
    CHECK(r.has_victim && stored < slots + 2,
          "f=%u nb=%llu: the fill ends with the victim cache taken", f, (unsigned long long)nb);
    CHECK(!ref_cuckoo_insert(&r, keys[0] ^ 1), "an insert after the victim fails");
    CHECK(r.items == stored, "items %llu, stored %llu", (unsigned long long)r.items,
          (unsigned long long)stored);
    double load = (double)stored / (double)slots;
    if (nb >= 4096) CHECK(load > 0.9, "f=%u nb=%llu: load %.3f", f, (unsigned long long)nb, load);
    uint64_t missed = 0;
    for (uint64_t i = 0; i < stored; i++) missed += !ref_cuckoo_contains(&r, keys[i]);
    CHECK(missed == 0, "f=%u nb=%llu: %llu stored items not found", f, (unsigned long long)nb,
          (unsigned long long)missed);
    if (nb >= 4096) {
        uint64_t hits = 0, n = 400000;
        for (uint64_t i = 0; i < n; i++) hits += ref_cuckoo_contains(&r, bench_splitmix64(&rng));
        double want = 1 - pow(1 - 1.0 / ((1u << f) - 1), 2.0 * REF_BUCKET_SIZE * load);
        /* Hits are binomial: allow five standard deviations. */
        double expect = want * (double)n, sd = sqrt(expect * (1 - want));
        CHECK(fabs((double)hits - expect) < 5 * sd + 1,
              "f=%u: %llu false positives, want about %.0f", f, (unsigned long long)hits, expect);
    }
    uint64_t failed = 0;
    for (uint64_t i = 0; i < stored; i++) failed += !ref_cuckoo_delete(&r, keys[i]);
    CHECK(failed == 0, "f=%u nb=%llu: %llu deletes failed", f, (unsigned long long)nb,
          (unsigned long long)failed);
    size_t nonzero = 0;
    for (size_t i = 0; i < ref_cuckoo_table_bytes(&r) + 8; i++) nonzero += r.table[i] != 0;
    CHECK(nonzero == 0 && r.items == 0 && !r.has_victim, "f=%u: %zu bytes left after deleting all",
          f, nonzero);
    free(keys);
    ref_cuckoo_destroy(&r);
}

/* Everything but the table's address: what the same operations must leave
 * the same on both filters. */
static bool same_state(const ref_cuckoo *a, const ref_cuckoo *b) {
    return a->items == b->items && a->rng == b->rng && a->total_kicks == b->total_kicks &&
           a->has_victim == b->has_victim && a->victim_tag == b->victim_tag &&
           a->victim_index == b->victim_index &&
           memcmp(a->table, b->table, ref_cuckoo_table_bytes(a) + 8) == 0;
}

/* One filter driven out of line (ref_cuckoo_insert etc.), one inline with
 * f = 12 (ref_cuckoo_insert12 etc.), given the same keys: filled past the
 * victim, every answer compared on stored and other keys, then half the
 * keys deleted (the victim's way home included) and the rest. */
static void check_inline(uint64_t nb) {
    ref_cuckoo out, in;
    CHECK(ref_cuckoo_init(&out, nb, 12, 23) && ref_cuckoo_init(&in, nb, 12, 23), "init");
    uint64_t slots = nb * REF_BUCKET_SIZE, rng = nb ^ 0x51ed27, n = slots + 2, stored = 0;
    uint64_t *keys = malloc(n * sizeof *keys);
    for (uint64_t i = 0; i < n; i++) keys[i] = bench_splitmix64(&rng);
    uint64_t differ = 0;
    for (uint64_t i = 0; i < n; i++) {
        bool a = ref_cuckoo_insert(&out, keys[i]), b = ref_cuckoo_insert12(&in, keys[i]);
        differ += a != b;
        stored += a;
    }
    CHECK(differ == 0 && same_state(&out, &in) && out.has_victim,
          "nb=%llu: inline inserts differ (%llu answers) or leave another table",
          (unsigned long long)nb, (unsigned long long)differ);
    for (uint64_t i = 0; i < stored + 100000; i++) {
        uint64_t k = i < stored ? keys[i] : bench_splitmix64(&rng);
        bool a = ref_cuckoo_contains(&out, k), b = ref_cuckoo_contains12(&in, k);
        differ += a != b || (i < stored && !b);
    }
    CHECK(differ == 0, "nb=%llu: %llu inline lookups differ or miss", (unsigned long long)nb,
          (unsigned long long)differ);
    for (uint64_t i = 0; i < stored; i++) {
        differ += ref_cuckoo_delete(&out, keys[i]) != ref_cuckoo_delete12(&in, keys[i]);
        if (i == stored / 2 && !same_state(&out, &in)) differ++;
    }
    CHECK(differ == 0 && same_state(&out, &in) && in.items == 0,
          "nb=%llu: inline deletes differ or leave another table", (unsigned long long)nb);
    free(keys);
    ref_cuckoo_destroy(&out);
    ref_cuckoo_destroy(&in);
}

int main(void) {
    static const unsigned widths[] = {4, 8, 12, 16};
    ref_cuckoo r;
    CHECK(!ref_cuckoo_init(&r, 1000, 12, 1), "nb must be a power of two");
    CHECK(!ref_cuckoo_init(&r, 1024, 10, 1), "f must be 4, 8, 12 or 16");
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        check_layout(widths[i]);
        for (uint64_t nb = 1; nb <= 16384; nb *= 16) check_fill(widths[i], nb);
    }
    for (uint64_t nb = 1; nb <= (1u << 16); nb *= 16) check_inline(nb);
    if (failures) fprintf(stderr, "ref_cuckoo_test: %d checks failed\n", failures);
    return failures ? 1 : 0;
}
