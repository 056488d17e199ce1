/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * fuzz_deserialize.c -- any bytes given to cf_deserialize.
 *
 * Each input is tried twice: as it is (which mostly exercises the magic,
 * version, truncation and checksum checks), and with its header check and
 * trailer checksum recomputed (for a grown filter, version 2: the header's
 * check and every record's two checks; version 4, grown in place, and 7,
 * expiring: the 128-byte header's check and the trailer), so that mutated fields reach the
 * field and table validation behind the checksums.  Properties:
 *   - a status, never a crash, and *out is NULL on failure;
 *   - allocations never exceed what the header's parameters and the input's
 *     length justify (the table is at most the input; the eviction scratch
 *     is what max_kicks asks for; a grown filter adds a handle per table,
 *     at most 64), and nothing leaks;
 *   - an accepted input serializes back to exactly the same bytes, and the
 *     filter it gives answers and accepts writes;
 *   - the file readers agree: the same bytes in a file give the same status
 *     through cf_load and cf_map(verify = true) (Linux: an in-memory file).
 * The prefix readers (cf_deserialize_prefix, cf_bloom_deserialize_prefix)
 * get every input too: a status, never a crash; an input the whole-input
 * reader accepts is read whole; a filter read from a prefix is what the
 * whole-input reader makes of exactly those bytes; CF_E_TRUNCATED asks for
 * more than the input, and any other failure is one of the whole input too.
 * The same input also goes to cf_bloom_deserialize, as it is and, when it
 * starts with the Bloom magic, with its trailer recomputed: a status, never
 * a crash; allocations at most the input plus the handle; an accepted
 * input serializes back to the same bytes and answers and takes adds; the
 * same bytes in a file give the same status through cf_bloom_load and
 * cf_bloom_map, and a mapped filter gives them back and refuses adds.
 */
#if defined(__linux__)
#define _GNU_SOURCE /* memfd_create */
#include <sys/mman.h>
#include <unistd.h>
#endif
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuckoofilter.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#define CHECK(c)           \
    do {                   \
        if (!(c)) abort(); \
    } while (0)

typedef struct counting {
    size_t live, peak, calls;
} counting;

/* Sizes are kept in a header word so free knows what it releases. */
static void *count_alloc(void *ctx, size_t size) {
    counting *c = ctx;
    size_t *p = malloc(size + sizeof(size_t) * 2);
    if (p == NULL) return NULL;
    p[0] = size;
    c->live += size;
    c->calls++;
    if (c->live > c->peak) c->peak = c->live;
    return p + 2;
}

static void count_free(void *ctx, void *ptr) {
    counting *c = ctx;
    size_t *p = (size_t *)ptr - 2;
    c->live -= p[0];
    free(p);
}

static uint64_t get_le(const uint8_t *p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void put_le(uint8_t *p, uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* The same bytes through the file readers, which must agree with memory. */
static void try_files(const uint8_t *data, size_t size, cf_status want) {
#if defined(__linux__)
    static int fd = -2; /* one in-memory file for the whole run */
    if (fd == -2) fd = memfd_create("fuzz_deserialize", 0);
    if (fd < 0) return;
    CHECK(ftruncate(fd, 0) == 0);
    CHECK(size == 0 || pwrite(fd, data, size, 0) == (ssize_t)size);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    cf_filter *f = NULL;
    cf_status s = cf_load(path, NULL, &f);
    CHECK(s == want && (f != NULL) == (s == CF_OK));
    cf_free(f);
    f = NULL;
    s = cf_map(path, NULL, true, &f);
    CHECK(s == want && (f != NULL) == (s == CF_OK));
    cf_free(f);
#else
    (void)data, (void)size, (void)want;
#endif
}

/* cf_deserialize_prefix on the input whose cf_deserialize status is whole. */
static void try_prefix(const uint8_t *data, size_t size, cf_status whole) {
    cf_filter *f = (cf_filter *)&whole, *g = NULL; /* must be overwritten */
    size_t used = 1;
    cf_status s = cf_deserialize_prefix(data, size, NULL, &f, &used);
    CHECK((f != NULL) == (s == CF_OK));
    if (whole == CF_OK) CHECK(s == CF_OK && used == size);
    if (s == CF_OK) {
        CHECK(used <= size && cf_deserialize(data, used, NULL, &g) == CF_OK);
        CHECK(cf_serialized_size(f) == used && cf_serialized_size(g) == used);
    } else {
        CHECK(s == CF_E_TRUNCATED ? used > size : used == 0);
        CHECK(whole != CF_OK);
    }
    cf_free(g);
    cf_free(f);
}

static void try_one(const uint8_t *data, size_t size) {
    counting c = {0, 0, 0};
    cf_allocator a = {count_alloc, count_free, &c, NULL, NULL};
    cf_filter *f = (cf_filter *)&c; /* must be overwritten */
    cf_status s = cf_deserialize(data, size, &a, &f);
    /* The table never exceeds the input; the scratch follows max_kicks
     * (16-byte nodes, max_kicks + 2b of them at most) plus a small handle. */
    size_t max_kicks = size >= 60 ? (size_t)get_le(data + 56, 4) : 0;
    size_t handles = size >= 10 && get_le(data + 8, 2) == 2 ? 64 * 1024 : 0;
    CHECK(c.peak <= size + 8 + (max_kicks + 16) * 16 + 4096 + handles);
    try_files(data, size, s);
    try_prefix(data, size, s);
    if (s != CF_OK) {
        CHECK(f == NULL);
        CHECK(c.live == 0);
        return;
    }
    CHECK(f != NULL);
    CHECK(cf_serialized_size(f) == size);
    uint8_t *again = malloc(size);
    CHECK(again != NULL);
    size_t written = 0;
    CHECK(cf_serialize(f, again, size, &written) == CF_OK);
    CHECK(written == size && memcmp(again, data, size) == 0);
    free(again);

    cf_stats st;
    cf_get_stats(f, &st);
    CHECK(st.items <= st.slots);
    uint64_t k = 0;
    for (k = 0; k < 8; k++) (void)cf_contains(f, &k, sizeof k);
    /* An insert into a grown filter may add a table growth times the
     * newest (up to 65536 times): only where that stays small. */
    cf_stats newest;
    CHECK(cf_table_stats(f, st.tables - 1, &newest) == CF_OK);
    bool small = !(st.flags & CF_GROW) || (double)newest.table_bytes * st.growth < 1e6;
    if (small && cf_insert(f, &k, sizeof k) == CF_OK) {
        CHECK(cf_contains(f, &k, sizeof k));
        CHECK(cf_delete(f, &k, sizeof k) == CF_OK);
    }
    /* An expiring filter's clock moves on (one pass over the table), never
     * back; every other kind has none. */
    if (st.expire_after != 0) {
        CHECK(cf_set_time(f, st.now + st.expire_span) == CF_OK);
        cf_get_stats(f, &newest);
        CHECK(newest.items <= st.items);
        CHECK(st.now == 0 || cf_set_time(f, st.now - 1) == CF_E_INVAL);
    } else {
        CHECK(cf_set_time(f, 1) == CF_E_PARAM);
    }
    cf_free(f);
    CHECK(c.live == 0);
}

/* The Bloom file readers agree with memory: the same status through
 * cf_bloom_load and cf_bloom_map, and a mapped filter serializes back to
 * the input and refuses adds. */
static void try_bloom_files(const uint8_t *data, size_t size, cf_status want) {
#if defined(__linux__)
    static int fd = -2; /* one in-memory file for the whole run */
    if (fd == -2) fd = memfd_create("fuzz_bloom", 0);
    if (fd < 0) return;
    CHECK(ftruncate(fd, 0) == 0);
    CHECK(size == 0 || pwrite(fd, data, size, 0) == (ssize_t)size);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    cf_bloom *b = NULL;
    cf_status s = cf_bloom_load(path, NULL, &b);
    CHECK(s == want && (b != NULL) == (s == CF_OK));
    cf_bloom_free(b);
    b = NULL;
    s = cf_bloom_map(path, NULL, &b);
    CHECK(s == want && (b != NULL) == (s == CF_OK));
    if (s == CF_OK) {
        uint8_t *again = malloc(size);
        CHECK(again != NULL);
        CHECK(cf_bloom_serialize(b, again, size, NULL) == CF_OK);
        CHECK(memcmp(again, data, size) == 0);
        free(again);
        CHECK(cf_bloom_insert(b, "fuzz", 4) == CF_E_READONLY);
    }
    cf_bloom_free(b);
#else
    (void)data, (void)size, (void)want;
#endif
}

/* cf_bloom_deserialize_prefix on the input whose cf_bloom_deserialize
 * status is whole. */
static void try_bloom_prefix(const uint8_t *data, size_t size, cf_status whole) {
    cf_bloom *b = (cf_bloom *)&whole, *c = NULL; /* must be overwritten */
    size_t used = 1;
    cf_status s = cf_bloom_deserialize_prefix(data, size, NULL, &b, &used);
    CHECK((b != NULL) == (s == CF_OK));
    if (whole == CF_OK) CHECK(s == CF_OK && used == size);
    if (s == CF_OK) {
        CHECK(used <= size && cf_bloom_deserialize(data, used, NULL, &c) == CF_OK);
        CHECK(cf_bloom_serialized_size(b) == used);
    } else {
        CHECK(s == CF_E_TRUNCATED ? used > size : used == 0);
        CHECK(whole != CF_OK);
    }
    cf_bloom_free(c);
    cf_bloom_free(b);
}

/* The input as a Bloom filter's image (docs/FORMAT.md, "Bloom filters"). */
static void try_bloom(const uint8_t *data, size_t size) {
    counting c = {0, 0, 0};
    cf_allocator a = {count_alloc, count_free, &c, NULL, NULL};
    cf_bloom *b = (cf_bloom *)&c; /* must be overwritten */
    cf_status s = cf_bloom_deserialize(data, size, &a, &b);
    CHECK(c.peak <= size + 4096); /* the bits (less than the input) and the handle */
    try_bloom_files(data, size, s);
    try_bloom_prefix(data, size, s);
    if (s != CF_OK) {
        CHECK(b == NULL);
        CHECK(c.live == 0);
        return;
    }
    CHECK(b != NULL);
    CHECK(cf_bloom_serialized_size(b) == size);
    uint8_t *again = malloc(size);
    CHECK(again != NULL);
    size_t written = 0;
    CHECK(cf_bloom_serialize(b, again, size, &written) == CF_OK);
    CHECK(written == size && memcmp(again, data, size) == 0);
    free(again);
    CHECK(cf_bloom_insert(b, "fuzz", 4) == CF_OK);
    CHECK(cf_bloom_contains(b, "fuzz", 4));
    cf_bloom_free(b);
    CHECK(c.live == 0);
}

static const uint8_t bloom_magic[8] = {0x89, 'C', 'K', 'B', '\r', '\n', 0x1a, '\n'};

/* Recomputes the checks of each version-1 record of a version-2 input, as
 * far as the input holds them. */
static void fix_records(uint8_t *buf, size_t size) {
    size_t off = 64;
    while (off + 64 <= size) {
        put_le(buf + off + 60, (uint32_t)XXH3_64bits(buf + off, 60), 4);
        uint64_t nb = get_le(buf + off + 16, 8), f = buf[off + 10], b = buf[off + 11];
        uint64_t bits = (get_le(buf + off + 14, 2) & 1) ? 4 * f - 4 : b * f;
        if (bits == 0 || nb > (UINT64_MAX / 2) / bits) return;
        uint64_t t = (nb * bits + 7) / 8;
        if (t > size - off - 64 || size - off - 64 - t < 8) return;
        put_le(buf + off + 64 + t, XXH3_64bits(buf + off, 64 + t), 8);
        off += (size_t)((64 + t + 8 + 63) / 64 * 64);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* An exact-size copy, so that a read past the end is caught. */
    uint8_t *buf = calloc(size ? size : 1, 1);
    CHECK(buf != NULL);
    if (size) memcpy(buf, data, size);
    try_one(buf, size);
    try_bloom(buf, size);
    if (size >= 48 && memcmp(buf, bloom_magic, sizeof bloom_magic) == 0) {
        put_le(buf + size - 8, XXH3_64bits(buf, size - 8), 8);
        if (memcmp(buf, data, size) != 0) try_bloom(buf, size);
        free(buf);
        return 0;
    }
    uint64_t version = size >= 10 ? get_le(buf + 8, 2) : 0;
    if (size >= 136 && (version == 4 || version == 7)) { /* in place, expiring: 128 bytes */
        put_le(buf + 124, (uint32_t)XXH3_64bits(buf, 124), 4);
        put_le(buf + size - 8, XXH3_64bits(buf, size - 8), 8);
        if (memcmp(buf, data, size) != 0) try_one(buf, size);
    } else if (size >= 64) {
        put_le(buf + 60, (uint32_t)XXH3_64bits(buf, 60), 4);
        if (get_le(buf + 8, 2) == 2)
            fix_records(buf, size);
        else if (size >= 72)
            put_le(buf + size - 8, XXH3_64bits(buf, size - 8), 8);
        if (memcmp(buf, data, size) != 0) try_one(buf, size);
    }
    free(buf);
    return 0;
}
