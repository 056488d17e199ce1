/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_bloom_format.c -- a Bloom filter's bytes (cf_bloom_serialize,
 * cf_bloom_deserialize; docs/FORMAT.md, "Bloom filters"): the layout read
 * back field by field from the document, round trips that give the same
 * bytes and the same answers, every damaged input with its exact status
 * (from memory, a loaded file and a mapped file alike), allocation failures
 * at every allocation, leaking nothing, and mapped filters (cf_bloom_map):
 * the same answers, adds refused, the mapping released by cf_bloom_free.
 */
#define _GNU_SOURCE /* mkdtemp */
#include <dirent.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "test.h"

static const uint8_t bloom_magic[8] = {0x89, 'C', 'K', 'B', '\r', '\n', 0x1a, '\n'};

static uint64_t get_le(const uint8_t *p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void put_le(uint8_t *p, uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Recomputes the trailer, so that the damaged field is what a reader rejects. */
static void reseal(uint8_t *img, size_t len) {
    put_le(img + len - 8, XXH3_64bits(img, len - 8), 8);
}

static cf_bloom *make(uint64_t num_bits, unsigned k, uint64_t seed, uint64_t keys) {
    cf_bloom_config cfg;
    cf_bloom_config_init(&cfg);
    cfg.num_bits = num_bits;
    cfg.num_hashes = k;
    cfg.seed = seed;
    cf_bloom *b = NULL;
    REQUIRE(cf_bloom_new(&cfg, &b) == CF_OK);
    for (uint64_t i = 0; i < keys; i++) cf_bloom_insert(b, &i, sizeof i);
    return b;
}

static uint8_t *bloom_bytes(const cf_bloom *b, size_t *n) {
    size_t size = cf_bloom_serialized_size(b), written = 0;
    uint8_t *buf = malloc(size);
    REQUIRE(buf != NULL);
    REQUIRE(cf_bloom_serialize(b, buf, size, &written) == CF_OK);
    REQUIRE(written == size);
    *n = size;
    return buf;
}

/* The status of reading len bytes at img; a filter read is freed. */
static cf_status read_status(const uint8_t *img, size_t len) {
    cf_bloom *out = (cf_bloom *)1;
    cf_status s = cf_bloom_deserialize(img, len, NULL, &out);
    if (s != CF_OK) CHECK(out == NULL);
    cf_bloom_free(s == CF_OK ? out : NULL);
    return s;
}

/* A scratch directory for the file tests, made once. */
static const char *scratch(void) {
    static char dir[64] = "";
    if (dir[0] == '\0') {
        snprintf(dir, sizeof dir, "/tmp/test_bloom_format.XXXXXX");
        REQUIRE(mkdtemp(dir) != NULL);
    }
    return dir;
}

/* The status of cf_bloom_load of a file holding len bytes at img. */
static cf_status load_status(const uint8_t *img, size_t len) {
    char path[128];
    snprintf(path, sizeof path, "%s/damaged.bloom", scratch());
    FILE *fp = fopen(path, "wb");
    REQUIRE(fp != NULL);
    REQUIRE(len == 0 || fwrite(img, 1, len, fp) == len);
    REQUIRE(fclose(fp) == 0);
    cf_bloom *out = (cf_bloom *)1;
    cf_status s = cf_bloom_load(path, NULL, &out);
    if (s != CF_OK) CHECK(out == NULL);
    cf_bloom_free(s == CF_OK ? out : NULL);
    /* A map checks the same things on the file's pages. */
    out = (cf_bloom *)1;
    cf_status m = cf_bloom_map(path, NULL, &out);
    if (m != CF_OK) CHECK(out == NULL);
    cf_bloom_free(m == CF_OK ? out : NULL);
    if (m != s) {
        fprintf(stderr, "  %zu bytes: cf_bloom_map %s, cf_bloom_load %s\n", len, cf_status_name(m),
                cf_status_name(s));
        test_failures_++;
    }
    unlink(path);
    return s;
}

/* Lines of /proc/self/maps that name path: 1 while it is mapped, 0 after
 * (-1 where there is no /proc). */
static int mappings_of(const char *path) {
    FILE *fp = fopen("/proc/self/maps", "r");
    if (fp == NULL) return -1;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, fp) != NULL) n += strstr(line, path) != NULL;
    fclose(fp);
    return n;
}

/* The layout, read as docs/FORMAT.md gives it, not through the library. */
static void test_layout_is_the_documented_one(void) {
    cf_bloom *b = make(1001, 5, 0x0123456789abcdefull, 40);
    size_t n;
    uint8_t *img = bloom_bytes(b, &n);
    CHECK_EQ(n, 40 + 126 + 8); /* ceil(1001 / 8) = 126 */
    CHECK(memcmp(img, bloom_magic, 8) == 0);
    CHECK_EQ(get_le(img + 8, 2), 1);
    CHECK_EQ(img[10], 5);
    for (int i = 11; i < 16; i++) CHECK_EQ(img[i], 0);
    CHECK_EQ(get_le(img + 16, 8), 1001);
    CHECK(get_le(img + 24, 8) == 0x0123456789abcdefull);
    CHECK_EQ(get_le(img + 32, 8), 40);
    CHECK(get_le(img + n - 8, 8) == XXH3_64bits(img, n - 8));
    CHECK_EQ(img[40 + 125] >> 1, 0); /* 1001 = 125 * 8 + 1: 7 padding bits */
    /* The bits are the filter's: bit j of the array is bit j % 8 of byte j / 8,
     * and a filter whose only set bits are read from there answers alike. */
    uint64_t set = 0;
    for (uint64_t j = 0; j < 1001; j++) set += (img[40 + j / 8] >> (j % 8)) & 1;
    /* The lookup written from the document: every key added has its k bits
     * set, and the bits answer every other key as the library does. */
    for (uint64_t i = 0; i < 2040; i++) {
        uint64_t h = XXH3_64bits_withSeed(&i, sizeof i, 0x0123456789abcdefull);
        uint64_t x = h ^ (h >> 30);
        x *= 0xbf58476d1ce4e5b9ull;
        x ^= x >> 27;
        x *= 0x94d049bb133111ebull;
        uint64_t step = (x ^ (x >> 31)) | 1, g = h;
        bool all = true;
        for (unsigned j = 0; j < 5; j++, g += step) {
            uint64_t bit = (uint64_t)(((unsigned __int128)g * 1001) >> 64);
            all = all && ((img[40 + bit / 8] >> (bit % 8)) & 1);
        }
        CHECK(all == cf_bloom_contains(b, &i, sizeof i));
        if (i < 40) CHECK(all);
    }
    CHECK_LE(set, 40 * 5);
    CHECK_GE(set, 5);
    free(img);
    cf_bloom_free(b);
}

static void round_trip(uint64_t num_bits, unsigned k, uint64_t seed, uint64_t keys) {
    cf_bloom *b = make(num_bits, k, seed, keys);
    size_t n;
    uint8_t *img = bloom_bytes(b, &n);
    cf_bloom *c = NULL;
    CHECK_STATUS(cf_bloom_deserialize(img, n, NULL, &c), CF_OK);
    REQUIRE(c != NULL);
    size_t n2;
    uint8_t *img2 = bloom_bytes(c, &n2);
    CHECK_EQ(n2, n);
    CHECK(memcmp(img, img2, n) == 0);
    cf_bloom_stats sb, sc;
    cf_bloom_get_stats(b, &sb);
    cf_bloom_get_stats(c, &sc);
    CHECK_EQ(sc.num_bits, sb.num_bits);
    CHECK_EQ(sc.num_hashes, sb.num_hashes);
    CHECK_EQ(sc.items, sb.items);
    CHECK_EQ(sc.memory_bytes, sb.memory_bytes);
    CHECK_EQ(cf_bloom_hash(c, "x", 1), cf_bloom_hash(b, "x", 1));
    uint64_t differ = 0, found = 0;
    for (uint64_t i = 0; i < keys + 3000; i++) {
        bool in_b = cf_bloom_contains(b, &i, sizeof i), in_c = cf_bloom_contains(c, &i, sizeof i);
        differ += in_b != in_c;
        found += i < keys && in_c;
    }
    CHECK_EQ(differ, 0);
    CHECK_EQ(found, keys); /* no false negatives */
    /* The copy goes on like the original. */
    cf_bloom_insert(b, "more", 4);
    cf_bloom_insert(c, "more", 4);
    free(img2);
    img2 = bloom_bytes(c, &n2);
    free(img);
    img = bloom_bytes(b, &n);
    CHECK(n == n2 && memcmp(img, img2, n) == 0);
    free(img);
    free(img2);
    cf_bloom_free(b);
    cf_bloom_free(c);
}

static void test_round_trip_same_bytes_same_answers(void) {
    round_trip(1, 1, 0, 0);
    round_trip(1, 3, 1, 5);
    round_trip(7, 2, 2, 3);
    round_trip(8, 64, UINT64_MAX, 4);
    round_trip(13, 4, 3, 10);
    round_trip(1000, 7, 4, 0);
    round_trip(9585, 7, 5, 1000);
    round_trip(100003, 1, 6, 20000);
}

static void test_capacity_made_filters_round_trip(void) {
    cf_bloom_config cfg;
    cf_bloom_config_init(&cfg);
    cfg.capacity = 5000;
    cfg.target_fpp = 0.001;
    cfg.seed = 42;
    cf_bloom *b;
    REQUIRE(cf_bloom_new(&cfg, &b) == CF_OK);
    for (int i = 0; i < 5000; i++) cf_bloom_insert(b, &i, sizeof i);
    size_t n;
    uint8_t *img = bloom_bytes(b, &n);
    cf_bloom *c;
    CHECK_STATUS(cf_bloom_deserialize(img, n, NULL, &c), CF_OK);
    for (int i = 0; i < 5000; i++) CHECK(cf_bloom_contains(c, &i, sizeof i));
    cf_bloom_free(c);
    free(img);
    cf_bloom_free(b);
}

static void test_serialize_arguments(void) {
    cf_bloom *b = make(100, 3, 0, 5);
    size_t size = cf_bloom_serialized_size(b), written = 99;
    CHECK_EQ(size, 40 + 13 + 8);
    CHECK_EQ(cf_bloom_serialized_size(NULL), 0);
    uint8_t *buf = malloc(size);
    REQUIRE(buf != NULL);
    CHECK_STATUS(cf_bloom_serialize(b, buf, size - 1, &written), CF_E_TRUNCATED);
    CHECK_EQ(written, 0);
    CHECK_STATUS(cf_bloom_serialize(NULL, buf, size, &written), CF_E_PARAM);
    CHECK_STATUS(cf_bloom_serialize(b, NULL, size, &written), CF_E_PARAM);
    CHECK_STATUS(cf_bloom_serialize(b, buf, size + 10, NULL), CF_OK);
    cf_bloom *out = (cf_bloom *)1;
    CHECK_STATUS(cf_bloom_deserialize(NULL, size, NULL, &out), CF_E_PARAM);
    CHECK(out == NULL);
    CHECK_STATUS(cf_bloom_deserialize(buf, size, NULL, NULL), CF_E_PARAM);
    cf_allocator half = {test_counting_alloc, NULL, NULL, NULL, NULL};
    CHECK_STATUS(cf_bloom_deserialize(buf, size, &half, &out), CF_E_PARAM);
    free(buf);
    cf_bloom_free(b);
}

/* A damaged copy of img: f changes it, then the trailer is recomputed when
 * reseal is true, and cf_bloom_deserialize must return want. */
typedef void (*damage_fn)(uint8_t *img, size_t *len);

static void expect(const uint8_t *img, size_t n, damage_fn f, bool seal, cf_status want,
                   const char *what) {
    uint8_t *copy = malloc(n + 16);
    REQUIRE(copy != NULL);
    memcpy(copy, img, n);
    memset(copy + n, 0, 16);
    size_t len = n;
    f(copy, &len);
    if (seal) reseal(copy, len);
    cf_status s = read_status(copy, len), from_file = load_status(copy, len);
    if (from_file != s) {
        fprintf(stderr, "  damage: %s: cf_bloom_load %s, cf_bloom_deserialize %s\n", what,
                cf_status_name(from_file), cf_status_name(s));
        test_failures_++;
    }
    if (s != want) {
        fprintf(stderr, "  damage: %s: %s, want %s\n", what, cf_status_name(s),
                cf_status_name(want));
        test_failures_++;
    }
    free(copy);
}

static void bad_magic(uint8_t *p, size_t *n) {
    (void)n, p[0] = 0x88;
}
static void magic_crlf_to_lf(uint8_t *p, size_t *n) {
    memmove(p + 4, p + 5, *n - 5);
    (*n)--;
}
static void cuckoo_magic(uint8_t *p, size_t *n) {
    (void)n, p[3] = 'F';
}
static void version_0(uint8_t *p, size_t *n) {
    (void)n, put_le(p + 8, 0, 2);
}
static void version_2(uint8_t *p, size_t *n) {
    (void)n, put_le(p + 8, 2, 2);
}
static void version_max(uint8_t *p, size_t *n) {
    (void)n, put_le(p + 8, 65535, 2);
}
static void k_0(uint8_t *p, size_t *n) {
    (void)n, p[10] = 0;
}
static void k_65(uint8_t *p, size_t *n) {
    (void)n, p[10] = 65;
}
static void k_255(uint8_t *p, size_t *n) {
    (void)n, p[10] = 255;
}
static void reserved_11(uint8_t *p, size_t *n) {
    (void)n, p[11] = 1;
}
static void reserved_15(uint8_t *p, size_t *n) {
    (void)n, p[15] = 0x80;
}
static void bits_0(uint8_t *p, size_t *n) {
    (void)n, put_le(p + 16, 0, 8);
}
static void bits_huge(uint8_t *p, size_t *n) {
    (void)n, put_le(p + 16, UINT64_MAX, 8);
}
static void bits_2_40(uint8_t *p, size_t *n) {
    (void)n, put_le(p + 16, (uint64_t)1 << 40, 8);
}
static void bits_one_more_byte(uint8_t *p, size_t *n) {
    (void)n, put_le(p + 16, 1001 + 8, 8);
}
static void bits_one_less_byte(uint8_t *p, size_t *n) {
    (void)n, put_le(p + 16, 1001 - 8, 8);
}
static void trailing_byte(uint8_t *p, size_t *n) {
    (void)p, (*n)++;
}
static void flip_bit_array(uint8_t *p, size_t *n) {
    (void)n, p[40 + 17] ^= 0x10;
}
static void flip_trailer(uint8_t *p, size_t *n) {
    p[*n - 1] ^= 1;
}
static void flip_seed(uint8_t *p, size_t *n) {
    (void)n, p[24] ^= 1;
}
static void flip_items(uint8_t *p, size_t *n) {
    (void)n, p[32] ^= 2;
}
static void padding_bit(uint8_t *p, size_t *n) {
    (void)n, p[40 + 125] |= 0x80;
}
static void items_0(uint8_t *p, size_t *n) {
    (void)n, put_le(p + 32, 0, 8);
}
static void items_1(uint8_t *p, size_t *n) {
    (void)n, put_le(p + 32, 1, 8);
}
static void items_max(uint8_t *p, size_t *n) {
    (void)n, put_le(p + 32, UINT64_MAX, 8);
}
static void nothing(uint8_t *p, size_t *n) {
    (void)p, (void)n;
}

static void test_every_damage_has_its_status(void) {
    cf_bloom *b = make(1001, 5, 9, 40);
    size_t n;
    uint8_t *img = bloom_bytes(b, &n);
    expect(img, n, nothing, false, CF_OK, "none");
    expect(img, n, bad_magic, false, CF_E_MAGIC, "first byte of the magic");
    expect(img, n, magic_crlf_to_lf, false, CF_E_MAGIC, "CR LF translated to LF");
    expect(img, n, cuckoo_magic, true, CF_E_MAGIC, "the cuckoo filter's magic");
    expect(img, n, version_0, true, CF_E_VERSION, "version 0");
    expect(img, n, version_2, true, CF_E_VERSION, "version 2");
    expect(img, n, version_max, true, CF_E_VERSION, "version 65535");
    expect(img, n, k_0, true, CF_E_CORRUPT, "k = 0");
    expect(img, n, k_65, true, CF_E_CORRUPT, "k = 65");
    expect(img, n, k_255, true, CF_E_CORRUPT, "k = 255");
    expect(img, n, reserved_11, true, CF_E_CORRUPT, "reserved byte 11");
    expect(img, n, reserved_15, true, CF_E_CORRUPT, "reserved byte 15");
    expect(img, n, bits_0, true, CF_E_CORRUPT, "num_bits = 0");
    /* 2^61 bytes of bits: past PTRDIFF_MAX / 2 on a 32-bit host, only more
     * than the input holds on a 64-bit one. */
    cf_status huge =
        (uint64_t)PTRDIFF_MAX / 2 < ((uint64_t)1 << 61) ? CF_E_TOO_LARGE : CF_E_TRUNCATED;
    expect(img, n, bits_huge, true, huge, "num_bits = 2^64 - 1");
    expect(img, n, bits_2_40, true, CF_E_TRUNCATED, "num_bits = 2^40 in a small input");
    expect(img, n, bits_one_more_byte, true, CF_E_TRUNCATED, "num_bits 8 more");
    expect(img, n, bits_one_less_byte, true, CF_E_CORRUPT, "num_bits 8 fewer (trailing byte)");
    expect(img, n, trailing_byte, false, CF_E_CORRUPT, "a trailing byte");
    expect(img, n, flip_bit_array, false, CF_E_CHECKSUM, "a bit of the array");
    expect(img, n, flip_trailer, false, CF_E_CHECKSUM, "a bit of the trailer");
    expect(img, n, flip_seed, false, CF_E_CHECKSUM, "a bit of the seed");
    expect(img, n, flip_items, false, CF_E_CHECKSUM, "a bit of items");
    expect(img, n, padding_bit, true, CF_E_CORRUPT, "a padding bit");
    expect(img, n, items_0, true, CF_E_CORRUPT, "items 0 with bits set");
    expect(img, n, items_1, true, CF_E_CORRUPT, "items 1 with more than k bits set");
    expect(img, n, items_max, true, CF_OK, "items 2^64 - 1 (a statistic)");
    /* Every truncation, a prefix of the magic included. */
    for (size_t len = 0; len < n; len++) {
        cf_status s = read_status(img, len);
        if (len % 7 == 0 || len < 12) CHECK_STATUS(load_status(img, len), s);
        if (s != CF_E_TRUNCATED) {
            fprintf(stderr, "  truncated to %zu bytes: %s\n", len, cf_status_name(s));
            test_failures_++;
        }
    }
    free(img);
    cf_bloom_free(b);
}

static void test_kinds_refuse_each_other(void) {
    cf_bloom *b = make(1000, 3, 0, 10);
    size_t n;
    uint8_t *img = bloom_bytes(b, &n);
    cf_filter *f = (cf_filter *)1;
    CHECK_STATUS(cf_deserialize(img, n, NULL, &f), CF_E_MAGIC);
    CHECK(f == NULL);
    free(img);
    cf_bloom_free(b);

    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 100;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    img = test_serialize(f, &n);
    CHECK_STATUS(read_status(img, n), CF_E_MAGIC);
    free(img);
    cf_free(f);
}

/* Every allocation of a read fails in turn: CF_E_NOMEM, *out NULL, and
 * nothing left allocated. */
static void test_allocation_failure_leaks_nothing(void) {
    cf_bloom *b = make(5000, 4, 77, 300);
    size_t n;
    uint8_t *img = bloom_bytes(b, &n);
    test_counting probe = {0, 0, 0};
    cf_allocator pa = {test_counting_alloc, test_counting_free, &probe, NULL, NULL};
    cf_bloom *c = NULL;
    REQUIRE(cf_bloom_deserialize(img, n, &pa, &c) == CF_OK);
    long calls = probe.calls;
    CHECK_EQ(calls, 2); /* the handle and its bits */
    cf_bloom_free(c);
    CHECK_EQ(probe.live, 0);
    for (long at = 1; at <= calls; at++) {
        test_counting tc = {0, at, 0};
        cf_allocator a = {test_counting_alloc, test_counting_free, &tc, NULL, NULL};
        cf_bloom *out = (cf_bloom *)1;
        CHECK_STATUS(cf_bloom_deserialize(img, n, &a, &out), CF_E_NOMEM);
        CHECK(out == NULL);
        CHECK_EQ(tc.live, 0);
    }
    /* A damaged input allocates nothing at all. */
    img[45] ^= 1;
    test_counting none = {0, 0, 0};
    cf_allocator na = {test_counting_alloc, test_counting_free, &none, NULL, NULL};
    CHECK_STATUS(cf_bloom_deserialize(img, n, &na, &c), CF_E_CHECKSUM);
    CHECK_EQ(none.calls, 0);
    /* The read filter frees through the allocator it was given. */
    img[45] ^= 1;
    test_counting own = {0, 0, 0};
    cf_allocator oa = {test_counting_alloc, test_counting_free, &own, NULL, NULL};
    REQUIRE(cf_bloom_deserialize(img, n, &oa, &c) == CF_OK);
    CHECK_EQ(own.live, 2);
    cf_bloom_free(c);
    CHECK_EQ(own.live, 0);
    free(img);
    cf_bloom_free(b);
}

/* Files: a save and a load give the same bytes; a save replaces the old
 * file and leaves no temporary file; what is no regular file is refused. */
static void test_save_and_load(void) {
    cf_bloom *b = make(9585, 7, 5, 1000);
    char path[128];
    snprintf(path, sizeof path, "%s/f.bloom", scratch());
    CHECK_STATUS(cf_bloom_save(b, path), CF_OK);
    cf_bloom_insert(b, "later", 5);
    CHECK_STATUS(cf_bloom_save(b, path), CF_OK); /* replaces the first */
    cf_bloom *c = NULL;
    CHECK_STATUS(cf_bloom_load(path, NULL, &c), CF_OK);
    REQUIRE(c != NULL);
    size_t n, n2;
    uint8_t *img = bloom_bytes(b, &n), *img2 = bloom_bytes(c, &n2);
    CHECK(n == n2 && memcmp(img, img2, n) == 0);
    CHECK(cf_bloom_contains(c, "later", 5));
    /* The file holds exactly cf_bloom_serialize's bytes. */
    FILE *fp = fopen(path, "rb");
    REQUIRE(fp != NULL);
    uint8_t *file = malloc(n + 1);
    REQUIRE(file != NULL);
    CHECK_EQ(fread(file, 1, n + 1, fp), n);
    fclose(fp);
    CHECK(memcmp(file, img, n) == 0);
    free(file);
    cf_bloom_free(c);
    /* Every allocation of a load fails in turn. */
    for (long at = 1; at <= 2; at++) {
        test_counting tc = {0, at, 0};
        cf_allocator a = {test_counting_alloc, test_counting_free, &tc, NULL, NULL};
        cf_bloom *out = (cf_bloom *)1;
        CHECK_STATUS(cf_bloom_load(path, &a, &out), CF_E_NOMEM);
        CHECK(out == NULL);
        CHECK_EQ(tc.live, 0);
    }
    DIR *d = opendir(scratch());
    REQUIRE(d != NULL);
    int entries = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) entries += e->d_name[0] != '.';
    closedir(d);
    CHECK_EQ(entries, 1); /* no temporary file left */
    cf_bloom *out = (cf_bloom *)1;
    CHECK_STATUS(cf_bloom_load(scratch(), NULL, &out), CF_E_NOT_REGULAR);
    CHECK(out == NULL);
    CHECK_STATUS(cf_bloom_save(b, scratch()), CF_E_NOT_REGULAR);
    snprintf(path, sizeof path, "%s/absent.bloom", scratch());
    CHECK_STATUS(cf_bloom_load(path, NULL, &out), CF_E_IO);
    CHECK_STATUS(cf_bloom_load(NULL, NULL, &out), CF_E_PARAM);
    CHECK_STATUS(cf_bloom_load(path, NULL, NULL), CF_E_PARAM);
    CHECK_STATUS(cf_bloom_save(NULL, path), CF_E_PARAM);
    CHECK_STATUS(cf_bloom_save(b, ""), CF_E_PARAM);
    /* A Bloom file is no cuckoo filter file, and the reverse. */
    snprintf(path, sizeof path, "%s/f.bloom", scratch());
    cf_filter *f = (cf_filter *)1;
    CHECK_STATUS(cf_load(path, NULL, &f), CF_E_MAGIC);
    unlink(path);
    CHECK_EQ(rmdir(scratch()), 0);
    free(img);
    free(img2);
    cf_bloom_free(b);
}

/* A mapped file answers as the filter saved, refuses adds, serializes and
 * saves to the same bytes, keeps its answers when the file is replaced, and
 * is unmapped by cf_bloom_free; its one allocation (the handle) goes
 * through the allocator given. */
static void test_map(void) {
    cf_bloom *b = make(100003, 6, 31, 7000);
    char path[128], copy[128];
    snprintf(path, sizeof path, "%s/m.bloom", scratch());
    snprintf(copy, sizeof copy, "%s/copy.bloom", scratch());
    REQUIRE(cf_bloom_save(b, path) == CF_OK);
    test_counting tc = {0, 0, 0};
    cf_allocator a = {test_counting_alloc, test_counting_free, &tc, NULL, NULL};
    cf_bloom *m = NULL;
    REQUIRE(cf_bloom_map(path, &a, &m) == CF_OK);
    CHECK_EQ(tc.live, 1); /* the handle: the bits are the file's */
    CHECK_EQ(mappings_of(path) != 0, true);
    cf_bloom_stats want, got;
    cf_bloom_get_stats(b, &want);
    cf_bloom_get_stats(m, &got);
    CHECK_EQ(got.num_bits, want.num_bits);
    CHECK_EQ(got.num_hashes, want.num_hashes);
    CHECK_EQ(got.items, want.items);
    for (uint64_t i = 0; i < 20000; i++) /* keys 0..6999 and as many absent ones */
        CHECK_EQ(cf_bloom_contains(m, &i, sizeof i), cf_bloom_contains(b, &i, sizeof i));
    size_t n, n2;
    uint8_t *img = bloom_bytes(b, &n), *img2 = bloom_bytes(m, &n2);
    CHECK(n == n2 && memcmp(img, img2, n) == 0);
    /* Adds are refused and change nothing. */
    uint64_t absent = 1u << 30;
    while (cf_bloom_contains(b, &absent, sizeof absent)) absent++;
    bool before = cf_bloom_contains(m, &absent, sizeof absent);
    CHECK_EQ(before, false);
    CHECK_STATUS(cf_bloom_insert(m, &absent, sizeof absent), CF_E_READONLY);
    CHECK_STATUS(cf_bloom_insert_hash(m, cf_bloom_hash(m, "x", 1)), CF_E_READONLY);
    CHECK_EQ(cf_bloom_contains(m, &absent, sizeof absent), before);
    cf_bloom_get_stats(m, &got);
    CHECK_EQ(got.items, want.items);
    /* A mapped filter saves like any other. */
    CHECK_STATUS(cf_bloom_save(m, copy), CF_OK);
    cf_bloom *c = NULL;
    REQUIRE(cf_bloom_load(copy, NULL, &c) == CF_OK);
    uint8_t *img3 = bloom_bytes(c, &n2);
    CHECK(n == n2 && memcmp(img, img3, n) == 0);
    cf_bloom_free(c);
    free(img3);
    /* A save replaces the file: the mapping keeps the old one's bits. */
    CHECK_STATUS(cf_bloom_insert(b, &absent, sizeof absent), CF_OK);
    CHECK_STATUS(cf_bloom_save(b, path), CF_OK);
    CHECK_EQ(cf_bloom_contains(m, &absent, sizeof absent), before);
    cf_bloom_free(m);
    CHECK_EQ(tc.live, 0);
    CHECK_EQ(mappings_of(path) > 0, false);
    /* The new file maps with the new key. */
    REQUIRE(cf_bloom_map(path, NULL, &m) == CF_OK);
    CHECK(cf_bloom_contains(m, &absent, sizeof absent));
    cf_bloom_free(m);
    /* The handle's allocation fails: NOMEM, nothing left mapped. */
    test_counting fail = {0, 1, 0};
    cf_allocator fa = {test_counting_alloc, test_counting_free, &fail, NULL, NULL};
    m = (cf_bloom *)1;
    CHECK_STATUS(cf_bloom_map(path, &fa, &m), CF_E_NOMEM);
    CHECK(m == NULL);
    CHECK_EQ(fail.live, 0);
    CHECK_EQ(mappings_of(path) > 0, false);
    /* What is not a regular Bloom file, and bad arguments. */
    m = (cf_bloom *)1;
    CHECK_STATUS(cf_bloom_map(scratch(), NULL, &m), CF_E_NOT_REGULAR);
    CHECK(m == NULL);
    char absent_path[128];
    snprintf(absent_path, sizeof absent_path, "%s/absent.bloom", scratch());
    CHECK_STATUS(cf_bloom_map(absent_path, NULL, &m), CF_E_IO);
    CHECK_STATUS(cf_bloom_map(NULL, NULL, &m), CF_E_PARAM);
    CHECK_STATUS(cf_bloom_map(path, NULL, NULL), CF_E_PARAM);
    CHECK_STATUS(cf_bloom_insert(NULL, "x", 1), CF_E_PARAM);
    CHECK_STATUS(cf_bloom_insert(b, NULL, 1), CF_E_PARAM);
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 100;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    REQUIRE(cf_save(f, copy) == CF_OK);
    cf_free(f);
    CHECK_STATUS(cf_bloom_map(copy, NULL, &m), CF_E_MAGIC);
    unlink(copy);
    unlink(path);
    free(img);
    free(img2);
    cf_bloom_free(b);
}

TEST_MAIN(TEST(test_layout_is_the_documented_one), TEST(test_round_trip_same_bytes_same_answers),
          TEST(test_capacity_made_filters_round_trip), TEST(test_serialize_arguments),
          TEST(test_every_damage_has_its_status), TEST(test_kinds_refuse_each_other),
          TEST(test_allocation_failure_leaks_nothing), TEST(test_map), TEST(test_save_and_load))
