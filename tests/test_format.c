/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_format.c -- serialization: round trips, determinism, and a status
 * (never a crash) for every truncation, every flipped bit and every field
 * made inconsistent.  Files: save / load / map, read-only mapped filters.
 */
#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/cf_format.h"
#include "cuckoofilter.h"
#include "test.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

typedef struct shape {
    unsigned fbits, b;
    uint64_t nb;
    uint64_t keys; /* inserted keys */
    unsigned flags;
} shape;

static const shape shapes[] = {
    {12, 4, 1000, 3000, 0},
    {1, 1, 1, 1, 0},
    {7, 2, 13, 15, 0},
    {32, 8, 5, 30, 0},
    {13, 4, 97, 300, 0},
    {5, 8, 33, 200, 0},
    {16, 4, 64, 0, 0},
    {31, 1, 11, 4, 0},
    /* Semi-sorted buckets: the narrowest and widest widths, and several blocks. */
    {5, 4, 7, 20, CF_SEMI_SORT},
    {9, 4, 50, 150, CF_SEMI_SORT},
    {16, 4, 1030, 3500, CF_SEMI_SORT},
};

static cf_filter *make(const shape *s, uint64_t seed) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.fingerprint_bits = s->fbits;
    cfg.bucket_size = s->b;
    cfg.num_buckets = s->nb;
    cfg.seed = seed;
    cfg.flags = s->flags;
    cf_filter *f = NULL;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    for (uint64_t k = 0; k < s->keys; k++) (void)cf_insert(f, &k, sizeof k);
    return f;
}

/* Same answers for the inserted keys and for as many absent ones. */
static void check_same_answers(const cf_filter *a, const cf_filter *b, uint64_t keys) {
    for (uint64_t k = 0; k < 2 * keys + 100; k++) {
        CHECK_EQ(cf_contains(a, &k, sizeof k), cf_contains(b, &k, sizeof k));
        CHECK_EQ(cf_count(a, &k, sizeof k), cf_count(b, &k, sizeof k));
    }
}

static void check_same_stats(const cf_filter *a, const cf_filter *b) {
    cf_stats x, y;
    cf_get_stats(a, &x);
    cf_get_stats(b, &y);
    CHECK_EQ(x.items, y.items);
    CHECK_EQ(x.num_buckets, y.num_buckets);
    CHECK_EQ(x.bucket_size, y.bucket_size);
    CHECK_EQ(x.fingerprint_bits, y.fingerprint_bits);
    CHECK_EQ(x.max_kicks, y.max_kicks);
    CHECK_EQ(x.seed, y.seed);
    CHECK_EQ(x.total_kicks, y.total_kicks);
    CHECK_EQ(x.failed_inserts, y.failed_inserts);
    CHECK_EQ(x.table_bytes, y.table_bytes);
}

static void test_round_trip(void) {
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        cf_filter *f = make(&shapes[i], 42 + i);
        size_t len;
        uint8_t *buf = test_serialize(f, &len);
        cf_filter *g = NULL;
        CHECK_STATUS(cf_deserialize(buf, len, NULL, &g), CF_OK);
        REQUIRE(g != NULL);
        check_same_stats(f, g);
        check_same_answers(f, g, shapes[i].keys);
        size_t len2;
        uint8_t *buf2 = test_serialize(g, &len2);
        CHECK_EQ(len, len2);
        CHECK(memcmp(buf, buf2, len) == 0);
        /* A loaded filter is fully writable and keeps working. */
        uint64_t extra = 1u << 30;
        cf_status s = cf_insert(g, &extra, sizeof extra);
        CHECK(s == CF_OK || s == CF_E_FULL);
        if (s == CF_OK) CHECK(cf_contains(g, &extra, sizeof extra));
        free(buf2);
        free(buf);
        cf_free(g);
        cf_free(f);
    }
}

static void test_deterministic(void) {
    cf_filter *a = make(&shapes[0], 7), *b = make(&shapes[0], 7);
    size_t la, lb;
    uint8_t *x = test_serialize(a, &la), *y = test_serialize(b, &lb);
    CHECK_EQ(la, lb);
    CHECK(memcmp(x, y, la) == 0);
    /* Twice from the same filter, too. */
    uint8_t *z = test_serialize(a, &lb);
    CHECK(memcmp(x, z, la) == 0);
    free(x), free(y), free(z);
    cf_free(a), cf_free(b);
}

static void test_layout(void) {
    cf_filter *f = make(&shapes[2], 3);
    size_t len;
    uint8_t *buf = test_serialize(f, &len);
    cf_stats st;
    cf_get_stats(f, &st);
    /* The payload is the table exactly as it sits in memory, at offset 64. */
    CHECK_EQ(len, CF__HEADER_SIZE + st.table_bytes + CF__TRAILER_SIZE);
    CHECK_EQ(st.table_bytes, (st.slots * st.fingerprint_bits + 7) / 8);
    CHECK(memcmp(buf, cf__magic, 8) == 0);
    CHECK_EQ(cf__get_le(buf + CF__OFF_VERSION, 2), CF__FORMAT_VERSION);
    CHECK_EQ(buf[CF__OFF_FP_BITS], st.fingerprint_bits);
    CHECK_EQ(buf[CF__OFF_BUCKET_SIZE], st.bucket_size);
    CHECK_EQ(cf__get_le(buf + CF__OFF_NUM_BUCKETS, 8), st.num_buckets);
    CHECK_EQ(cf__get_le(buf + CF__OFF_SEED, 8), st.seed);
    CHECK_EQ(cf__get_le(buf + CF__OFF_ITEMS, 8), st.items);
    CHECK_EQ(cf__get_le(buf + CF__OFF_MAX_KICKS, 4), st.max_kicks);
    /* The trailer is XXH3-64 of everything before it, computed independently. */
    CHECK_EQ(cf__get_le(buf + len - 8, 8), XXH3_64bits(buf, len - 8));
    CHECK_EQ(cf__get_le(buf + CF__OFF_HEADER_CHECK, 4), (uint32_t)XXH3_64bits(buf, 60));
    free(buf);
    cf_free(f);
}

static void test_truncations(void) {
    cf_filter *f = make(&shapes[4], 5);
    size_t len;
    uint8_t *buf = test_serialize(f, &len);
    for (size_t n = 0; n < len; n++) {
        /* A copy of exactly n bytes, so ASan catches any read past it. */
        uint8_t *p = malloc(n ? n : 1);
        memcpy(p, buf, n);
        cf_filter *g = (cf_filter *)1;
        CHECK_STATUS(cf_deserialize(p, n, NULL, &g), CF_E_TRUNCATED);
        CHECK(g == NULL);
        free(p);
    }
    /* One byte too many is not a valid filter either. */
    uint8_t *longer = calloc(len + 1, 1);
    memcpy(longer, buf, len);
    cf_filter *g;
    CHECK_STATUS(cf_deserialize(longer, len + 1, NULL, &g), CF_E_CORRUPT);
    free(longer);
    free(buf);
    cf_free(f);
}

static void test_bit_flips(void) {
    cf_filter *f = make(&shapes[2], 9);
    size_t len;
    uint8_t *buf = test_serialize(f, &len);
    for (size_t bit = 0; bit < len * 8; bit++) {
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        cf_filter *g = NULL;
        cf_status s = cf_deserialize(buf, len, NULL, &g);
        /* The magic, the version and the checks catch every single flip. */
        if (bit < 64)
            CHECK_STATUS(s, CF_E_MAGIC);
        else if (bit < 80)
            CHECK_STATUS(s, CF_E_VERSION);
        else
            CHECK_STATUS(s, CF_E_CHECKSUM);
        CHECK(g == NULL);
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    free(buf);
    cf_free(f);
}

/* Rewrites a header field and both checks, so only the field is wrong. */
static void patch(uint8_t *buf, size_t len, unsigned off, uint64_t v, unsigned n) {
    cf__put_le(buf + off, v, n);
    cf__put_le(buf + CF__OFF_HEADER_CHECK, (uint32_t)XXH3_64bits(buf, 60), 4);
    if (len >= 72) cf__put_le(buf + len - 8, XXH3_64bits(buf, len - 8), 8);
}

static void test_inconsistent_fields(void) {
    cf_filter *f = make(&shapes[2], 11);
    size_t len;
    uint8_t *good = test_serialize(f, &len);
    uint8_t *buf = malloc(len);
    cf_stats st;
    cf_get_stats(f, &st);
    struct {
        unsigned off, n;
        uint64_t v;
        cf_status want;
    } cases[] = {
        {CF__OFF_FP_BITS, 1, 0, CF_E_CORRUPT},
        {CF__OFF_FP_BITS, 1, 33, CF_E_CORRUPT},
        {CF__OFF_FP_BITS, 1, st.fingerprint_bits - 1, CF_E_CORRUPT}, /* trailing bytes */
        {CF__OFF_BUCKET_SIZE, 1, 3, CF_E_CORRUPT},
        {CF__OFF_BUCKET_SIZE, 1, 0, CF_E_CORRUPT},
        {CF__OFF_HASH_ID, 1, 3, CF_E_CORRUPT},
        {CF__OFF_HASH_ID, 1, 0, CF_E_CORRUPT},
        {CF__OFF_RESERVED, 1, 1, CF_E_CORRUPT},
        {CF__OFF_FLAGS, 2, 1, CF_E_CORRUPT},
        {CF__OFF_NUM_BUCKETS, 8, 0, CF_E_CORRUPT},
        {CF__OFF_NUM_BUCKETS, 8, st.num_buckets - 1, CF_E_CORRUPT},
        {CF__OFF_NUM_BUCKETS, 8, st.num_buckets + 1, CF_E_TRUNCATED},
        {CF__OFF_NUM_BUCKETS, 8, (uint64_t)1 << 40, CF_E_TRUNCATED},
        {CF__OFF_NUM_BUCKETS, 8, UINT64_MAX / 2, CF_E_TOO_LARGE},
        {CF__OFF_NUM_BUCKETS, 8, UINT64_MAX, CF_E_TOO_LARGE},
        {CF__OFF_ITEMS, 8, st.items + 1, CF_E_CORRUPT},
        {CF__OFF_ITEMS, 8, st.slots + 1, CF_E_CORRUPT},
        {CF__OFF_MAX_KICKS, 4, 0, CF_E_CORRUPT},
        {CF__OFF_MAX_KICKS, 4, UINT32_MAX, CF_E_CORRUPT},
        {CF__OFF_VERSION, 2, 3, CF_E_VERSION}, /* 2 is a grown filter's */
        {CF__OFF_VERSION, 2, 0, CF_E_VERSION},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(buf, good, len);
        patch(buf, len, cases[i].off, cases[i].v, cases[i].n);
        cf_filter *g = NULL;
        cf_status s = cf_deserialize(buf, len, NULL, &g);
        if (s != cases[i].want) fprintf(stderr, "case %zu (offset %u)\n", i, cases[i].off);
        CHECK_STATUS(s, cases[i].want);
        CHECK(g == NULL);
    }
    /* Stats fields accept any value. */
    memcpy(buf, good, len);
    patch(buf, len, CF__OFF_TOTAL_KICKS, UINT64_MAX, 8);
    cf_filter *g = NULL;
    CHECK_STATUS(cf_deserialize(buf, len, NULL, &g), CF_OK);
    cf_free(g);
    free(buf);
    free(good);
    cf_free(f);
}

static void test_table_invariants(void) {
    /* 13 buckets x 2 slots x 7 bits = 182 bits: 2 padding bits in the last byte. */
    cf_filter *f = make(&shapes[2], 13);
    size_t len;
    uint8_t *buf = test_serialize(f, &len);
    size_t last = len - CF__TRAILER_SIZE - 1;
    CHECK_EQ(buf[last] >> 6, 0);
    buf[last] |= 0x80;
    patch(buf, len, CF__OFF_SEED, cf__get_le(buf + CF__OFF_SEED, 8), 8);
    cf_filter *g = NULL;
    CHECK_STATUS(cf_deserialize(buf, len, NULL, &g), CF_E_CORRUPT);
    buf[last] &= 0x7f;
    /* A slot emptied behind the item count's back. */
    size_t first_used = CF__HEADER_SIZE;
    while (buf[first_used] == 0) first_used++;
    buf[first_used] = 0;
    patch(buf, len, CF__OFF_SEED, cf__get_le(buf + CF__OFF_SEED, 8), 8);
    CHECK_STATUS(cf_deserialize(buf, len, NULL, &g), CF_E_CORRUPT);
    CHECK(g == NULL);
    free(buf);
    cf_free(f);
}

static void test_fast_count(void) {
    /* cf__check_table counts slots several at a time; it must agree with the
     * slot-by-slot count for every width. */
    for (unsigned fb = 1; fb <= 32; fb++) {
        for (unsigned b = 1; b <= 8; b *= 2) {
            shape s = {fb, b, 7 + fb, (7 + fb) * b, 0};
            cf_filter *f = make(&s, fb * 10 + b);
            CHECK_EQ(cf__count_occupied(&f->t), f->t.items);
            CHECK_STATUS(cf__check_table(f), CF_OK);
            f->t.items++;
            CHECK_STATUS(cf__check_table(f), CF_E_CORRUPT);
            f->t.items--;
            cf_free(f);
        }
    }
}

static void test_params(void) {
    cf_filter *f = make(&shapes[1], 1);
    uint8_t small[8];
    size_t w = 99;
    CHECK_STATUS(cf_serialize(f, small, sizeof small, &w), CF_E_TRUNCATED);
    CHECK_EQ(w, 0);
    CHECK_STATUS(cf_serialize(NULL, small, sizeof small, &w), CF_E_PARAM);
    CHECK_STATUS(cf_serialize(f, NULL, 100, NULL), CF_E_PARAM);
    CHECK_EQ(cf_serialized_size(NULL), 0);
    cf_filter *g;
    CHECK_STATUS(cf_deserialize(NULL, 10, NULL, &g), CF_E_PARAM);
    CHECK_STATUS(cf_deserialize(small, 8, NULL, NULL), CF_E_PARAM);
    CHECK_STATUS(cf_deserialize("hello, world", 12, NULL, &g), CF_E_MAGIC);
    CHECK_STATUS(cf_save(NULL, "x"), CF_E_PARAM);
    CHECK_STATUS(cf_save(f, NULL), CF_E_PARAM);
    CHECK_STATUS(cf_load(NULL, NULL, &g), CF_E_PARAM);
    CHECK_STATUS(cf_map(NULL, NULL, true, &g), CF_E_PARAM);
    CHECK_STATUS(cf_load("/nonexistent/dir/f.cf", NULL, &g), CF_E_IO);
    CHECK_STATUS(cf_map("/nonexistent/dir/f.cf", NULL, false, &g), CF_E_IO);
    CHECK_STATUS(cf_save(f, "/nonexistent/dir/f.cf"), CF_E_IO);
    cf_free(f);
}

static void test_alloc_failures(void) {
    cf_filter *f = make(&shapes[0], 2);
    size_t len;
    uint8_t *buf = test_serialize(f, &len);
    bool succeeded = false;
    for (int n = 1; !succeeded && n < 20; n++) {
        test_counting c = {0, n, 0};
        cf_allocator a = {test_counting_alloc, test_counting_free, &c, NULL, NULL};
        cf_filter *g = NULL;
        cf_status s = cf_deserialize(buf, len, &a, &g);
        CHECK(s == CF_OK || s == CF_E_NOMEM);
        if (s == CF_OK) {
            succeeded = true;
            check_same_answers(f, g, 100);
            cf_free(g);
        } else {
            CHECK(g == NULL);
        }
        CHECK_EQ(c.live, 0);
    }
    CHECK(succeeded);
    free(buf);
    cf_free(f);
}

static const char *tmpdir(void) {
    static char dir[256];
    snprintf(dir, sizeof dir, "/tmp/cf_test_format.%ld", (long)getpid());
    mkdir(dir, 0700);
    return dir;
}

static void test_files(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/f.cf", tmpdir());
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        cf_filter *f = make(&shapes[i], 100 + i);
        CHECK_STATUS(cf_save(f, path), CF_OK);
        size_t len;
        uint8_t *buf = test_serialize(f, &len);
        /* The file holds exactly the serialized bytes. */
        FILE *fp = fopen(path, "rb");
        REQUIRE(fp != NULL);
        uint8_t *disk = malloc(len + 1);
        CHECK_EQ(fread(disk, 1, len + 1, fp), len);
        CHECK(memcmp(disk, buf, len) == 0);
        fclose(fp);

        cf_filter *l = NULL, *m = NULL, *mv = NULL;
        CHECK_STATUS(cf_load(path, NULL, &l), CF_OK);
        CHECK_STATUS(cf_map(path, NULL, false, &m), CF_OK);
        CHECK_STATUS(cf_map(path, NULL, true, &mv), CF_OK);
        REQUIRE(l && m && mv);
        check_same_stats(f, l);
        check_same_stats(f, m);
        check_same_answers(f, l, shapes[i].keys);
        check_same_answers(f, m, shapes[i].keys);
        check_same_answers(f, mv, shapes[i].keys);

        /* Mapped filters answer but refuse writes, and serialize the same. */
        cf_stats st;
        cf_get_stats(m, &st);
        CHECK(st.read_only);
        uint64_t k = 0;
        CHECK_STATUS(cf_insert(m, &k, sizeof k), CF_E_READONLY);
        CHECK_STATUS(cf_delete(m, &k, sizeof k), CF_E_READONLY);
        CHECK_STATUS(cf_clear(m), CF_E_READONLY);
        size_t mlen;
        uint8_t *mbuf = test_serialize(m, &mlen);
        CHECK(mlen == len && memcmp(mbuf, buf, len) == 0);
        free(mbuf);
        free(disk);
        free(buf);
        cf_free(mv);
        cf_free(m);
        cf_free(l);
        cf_free(f);
    }
    /* A corrupt table: map without verify trusts the (checked) header only. */
    FILE *fp = fopen(path, "r+b");
    fseek(fp, CF__HEADER_SIZE, SEEK_SET);
    fputc(0x5a, fp);
    fclose(fp);
    cf_filter *g = NULL;
    CHECK_STATUS(cf_load(path, NULL, &g), CF_E_CHECKSUM);
    CHECK_STATUS(cf_map(path, NULL, true, &g), CF_E_CHECKSUM);
    CHECK_STATUS(cf_map(path, NULL, false, &g), CF_OK);
    cf_free(g);
    /* Short files through the file paths give the same statuses. */
    fp = fopen(path, "wb");
    fwrite(cf__magic, 1, 5, fp);
    fclose(fp);
    CHECK_STATUS(cf_load(path, NULL, &g), CF_E_TRUNCATED);
    CHECK_STATUS(cf_map(path, NULL, false, &g), CF_E_TRUNCATED);
    fp = fopen(path, "wb");
    fclose(fp);
    CHECK_STATUS(cf_load(path, NULL, &g), CF_E_TRUNCATED);
    CHECK_STATUS(cf_map(path, NULL, true, &g), CF_E_TRUNCATED);
    CHECK_STATUS(cf_load(tmpdir(), NULL, &g), CF_E_NOT_REGULAR); /* a directory */
    unlink(path);
    rmdir(tmpdir());
}

/* cf_load reads, hashes and counts in chunks of f * 2^17 bytes: a table of
 * several chunks with a partial last one, and a wrong count in the last. */
static void test_load_multi_chunk(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/big.cf", tmpdir());
    static const shape big[] = {{3, 2, 1500001, 200000, 0}, {8, 4, 300001, 800000, CF_SEMI_SORT}};
    for (size_t t = 0; t < sizeof big / sizeof big[0]; t++) {
        cf_filter *f = make(&big[t], 77);
        CHECK_STATUS(cf_save(f, path), CF_OK);
        cf_filter *l = NULL;
        CHECK_STATUS(cf_load(path, NULL, &l), CF_OK);
        REQUIRE(l != NULL);
        check_same_stats(f, l);
        size_t len;
        uint8_t *a = test_serialize(f, &len), *b = test_serialize(l, &len);
        CHECK(memcmp(a, b, len) == 0);
        /* Empty the last occupied byte of the table (in the last chunk) and
         * fix the checks.  In a semi-sorted table that byte may hold only
         * suffix bits, whose loss leaves a valid table: miscount instead. */
        size_t i = len - CF__TRAILER_SIZE - 1;
        while (a[i] == 0) i--;
        if (big[t].flags == 0) a[i] = 0;
        uint64_t items = cf__get_le(a + CF__OFF_ITEMS, 8) + (big[t].flags != 0);
        patch(a, len, CF__OFF_ITEMS, items, 8);
        FILE *fp = fopen(path, "wb");
        fwrite(a, 1, len, fp);
        fclose(fp);
        cf_filter *g = NULL;
        CHECK_STATUS(cf_load(path, NULL, &g), CF_E_CORRUPT);
        CHECK_STATUS(cf_map(path, NULL, true, &g), CF_E_CORRUPT);
        CHECK_STATUS(cf_deserialize(a, len, NULL, &g), CF_E_CORRUPT);
        free(a), free(b);
        cf_free(l), cf_free(f);
    }
    unlink(path);
}

/* Semi-sorted tables must be canonical: valid codes, sorted buckets. */
static void test_semisort_invariants(void) {
    cf_filter *f = make(&shapes[9], 5);
    size_t len;
    uint8_t *buf = test_serialize(f, &len);
    /* Bucket 0's 12-bit code is the low 12 bits of the table. */
    uint8_t *p = malloc(len);
    memcpy(p, buf, len);
    p[CF__HEADER_SIZE] = 0xff;
    p[CF__HEADER_SIZE + 1] |= 0x0f; /* code 4095: no multiset has it */
    patch(p, len, CF__OFF_SEED, cf__get_le(p + CF__OFF_SEED, 8), 8);
    cf_filter *g = NULL;
    CHECK_STATUS(cf_deserialize(p, len, NULL, &g), CF_E_CORRUPT);
    /* Semi-sorting needs b = 4 and f in 5..16. */
    memcpy(p, buf, len);
    patch(p, len, CF__OFF_BUCKET_SIZE, 8, 1);
    CHECK_STATUS(cf_deserialize(p, len, NULL, &g), CF_E_CORRUPT);
    memcpy(p, buf, len);
    patch(p, len, CF__OFF_FLAGS, 2, 2);
    CHECK_STATUS(cf_deserialize(p, len, NULL, &g), CF_E_CORRUPT);
    CHECK(g == NULL);
    free(p), free(buf);
    cf_free(f);
}

/* A full disk, simulated with a file-size limit (writes fail with EFBIG):
 * cf_save fails with CF_E_IO, the old file is untouched and no temporary
 * file is left behind. */
static void test_save_disk_full(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/full.cf", tmpdir());
    cf_filter *small = make(&shapes[2], 1), *big = make(&shapes[0], 1);
    CHECK_STATUS(cf_save(small, path), CF_OK);
    size_t len;
    uint8_t *before = test_serialize(small, &len);
    struct rlimit old, lim;
    REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
    lim = old;
    lim.rlim_cur = 1000; /* bytes: less than the big filter's file */
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    REQUIRE(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    cf_status s = cf_save(big, path);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, prev);
    CHECK_STATUS(s, CF_E_IO);
    cf_filter *l = NULL;
    CHECK_STATUS(cf_load(path, NULL, &l), CF_OK);
    size_t llen;
    uint8_t *after = test_serialize(l, &llen);
    CHECK(llen == len && memcmp(before, after, len) == 0);
    unlink(path);
    CHECK_EQ(rmdir(tmpdir()), 0); /* empty: no temporary file left */
    free(before), free(after);
    cf_free(l), cf_free(small), cf_free(big);
}

static void test_save_keeps_mode_and_no_temp(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/m.cf", tmpdir());
    cf_filter *f = make(&shapes[1], 1);
    CHECK_STATUS(cf_save(f, path), CF_OK);
    chmod(path, 0640);
    CHECK_STATUS(cf_save(f, path), CF_OK);
    struct stat st;
    CHECK_EQ(stat(path, &st), 0);
    CHECK_EQ(st.st_mode & 0777, 0640);
    unlink(path);
    /* Nothing else is left in the directory: rmdir succeeds only if empty. */
    CHECK_EQ(rmdir(tmpdir()), 0);
    cf_free(f);
}

TEST_MAIN(TEST(test_round_trip), TEST(test_deterministic), TEST(test_layout),
          TEST(test_truncations), TEST(test_bit_flips), TEST(test_inconsistent_fields),
          TEST(test_table_invariants), TEST(test_fast_count), TEST(test_params),
          TEST(test_alloc_failures), TEST(test_files), TEST(test_load_multi_chunk),
          TEST(test_semisort_invariants), TEST(test_save_disk_full),
          TEST(test_save_keeps_mode_and_no_temp))
