/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_prefix.c -- cf_deserialize_prefix and cf_bloom_deserialize_prefix:
 * filters written one after another into one buffer read back in turn, each
 * exactly, by a reader that knows no format (it asks the library how much
 * to read), and the whole-input readers unchanged.
 */
#include "test.h"

/* One filter of each kind the format has: a plain table, a semi-sorted one,
 * a chain (CF_GROW grown past its first table), a table grown in place, an
 * expiring table. */
enum { KINDS = 5 };

static cf_filter *make_kind(int kind, uint64_t seed) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.seed = seed;
    cfg.capacity = 300;
    cfg.target_fpp = 0.01;
    uint64_t keys = 200;
    if (kind == 1) cfg.flags = CF_SEMI_SORT;
    if (kind == 4) cfg.expire_after = 1000;
    if (kind == 2 || kind == 3) {
        cfg.flags = CF_GROW;
        cfg.capacity = 100;
        cfg.growth_mode = kind == 2 ? CF_GROWTH_CHAIN : CF_GROWTH_INPLACE;
        keys = 1000; /* several tables, or several doublings */
    }
    cf_filter *f = NULL;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    for (uint64_t k = 0; k < keys; k++) REQUIRE(cf_insert_u64(f, k * 7 + seed) == CF_OK);
    return f;
}

/* Appends f's bytes to buf (grown with realloc); returns their count. */
static size_t append(uint8_t **buf, size_t *n, const uint8_t *bytes, size_t size) {
    *buf = realloc(*buf, *n + size);
    REQUIRE(*buf != NULL);
    memcpy(*buf + *n, bytes, size);
    *n += size;
    return size;
}

/* Reads one filter the way a reader of a pipe does: starting from nothing,
 * it makes the input as long as the last call asked, never longer; returns
 * the status and the bytes it took (*had: the input it had at the end). */
static cf_status read_stream(const uint8_t *in, size_t avail, cf_filter **out, size_t *used,
                             size_t *had) {
    size_t have = 0;
    for (int calls = 0; calls < 200; calls++) {
        cf_status s = cf_deserialize_prefix(in, have, NULL, out, used);
        *had = have;
        if (s != CF_E_TRUNCATED) return s;
        CHECK(*used > have); /* it asks for more each time */
        if (*used <= have || *used > avail) return s;
        have = *used;
    }
    REQUIRE(!"the reader did not converge");
    return CF_E_PARAM;
}

static void filters_in_turn(void) {
    uint8_t *buf = NULL;
    size_t n = 0, size[2 * KINDS];
    cf_filter *want[2 * KINDS];
    for (int i = 0; i < 2 * KINDS; i++) {
        want[i] = make_kind(i % KINDS, (uint64_t)i + 1);
        size_t len;
        uint8_t *bytes = test_serialize(want[i], &len);
        size[i] = append(&buf, &n, bytes, len);
        free(bytes);
    }
    append(&buf, &n, (const uint8_t *)"tail", 4);
    size_t at = 0;
    for (int i = 0; i < 2 * KINDS; i++) {
        cf_filter *got = NULL;
        size_t used = 0, had = 0;
        /* All of what follows is there: the filter, and nothing after it, is read. */
        CHECK_STATUS(cf_deserialize_prefix(buf + at, n - at, NULL, &got, &used), CF_OK);
        CHECK_EQ(used, size[i]);
        size_t a, b;
        uint8_t *x = test_serialize(want[i], &a), *y = test_serialize(got, &b);
        CHECK(a == b && memcmp(x, y, a) == 0);
        free(x);
        free(y);
        cf_free(got);
        /* A stream reader, given what it asks for, never reads past the filter. */
        CHECK_STATUS(read_stream(buf + at, n - at, &got, &used, &had), CF_OK);
        CHECK_EQ(used, size[i]);
        CHECK_EQ(had, size[i]);
        cf_free(got);
        /* The filter alone is what cf_deserialize reads; with more after it,
         * cf_deserialize refuses as it always did (every kind, and every
         * count of them). */
        CHECK_STATUS(cf_deserialize(buf + at, size[i], NULL, &got), CF_OK);
        cf_free(got);
        CHECK_STATUS(cf_deserialize(buf + at, size[i] + 1, NULL, &got), CF_E_CORRUPT);
        CHECK(got == NULL);
        CHECK_STATUS(cf_deserialize(buf + at, n - at, NULL, &got), CF_E_CORRUPT);
        CHECK(got == NULL);
        at += size[i];
    }
    /* What is left is no filter. */
    cf_filter *got = (cf_filter *)buf;
    size_t used = 99;
    CHECK_STATUS(cf_deserialize_prefix(buf + at, n - at, NULL, &got, &used), CF_E_MAGIC);
    CHECK(got == NULL);
    CHECK_EQ(used, 0);
    for (int i = 0; i < 2 * KINDS; i++) cf_free(want[i]);
    free(buf);
}

/* Every cut of each kind's bytes is CF_E_TRUNCATED with a request that
 * lies beyond the cut and within the filter; a damaged filter keeps its
 * status; bad arguments are CF_E_PARAM. */
static void cuts_and_damage(void) {
    for (int kind = 0; kind < KINDS; kind++) {
        cf_filter *f = make_kind(kind, 9);
        size_t n;
        uint8_t *bytes = test_serialize(f, &n);
        for (size_t cut = 0; cut < n; cut += (cut < 300 ? 1 : 97)) {
            cf_filter *got = NULL;
            size_t used = 0;
            CHECK_STATUS(cf_deserialize_prefix(bytes, cut, NULL, &got, &used), CF_E_TRUNCATED);
            CHECK(got == NULL);
            CHECK_LT(cut, used);
            CHECK_LE(used, n);
        }
        cf_filter *got = NULL;
        size_t used = 0;
        /* The bytes just before the end: a trailer, or a chain's last padding. */
        bytes[n - 1] ^= 1;
        cf_status whole = cf_deserialize(bytes, n, NULL, &got);
        CHECK(whole == CF_E_CHECKSUM || (kind == 2 && whole == CF_E_CORRUPT));
        CHECK_STATUS(cf_deserialize_prefix(bytes, n, NULL, &got, &used), whole);
        CHECK_EQ(used, 0);
        bytes[n - 1] ^= 1;
        CHECK_STATUS(cf_deserialize_prefix(NULL, n, NULL, &got, &used), CF_E_PARAM);
        CHECK_STATUS(cf_deserialize_prefix(bytes, n, NULL, NULL, &used), CF_E_PARAM);
        CHECK_STATUS(cf_deserialize_prefix(bytes, n, NULL, &got, NULL), CF_E_PARAM);
        CHECK(got == NULL);
        free(bytes);
        cf_free(f);
    }
}

static void bloom_in_turn(void) {
    uint8_t *buf = NULL;
    size_t n = 0, size[3];
    cf_bloom *want[3];
    for (int i = 0; i < 3; i++) {
        cf_bloom_config cfg;
        cf_bloom_config_init(&cfg);
        cfg.capacity = 100u << i;
        cfg.seed = (uint64_t)i;
        REQUIRE(cf_bloom_new(&cfg, &want[i]) == CF_OK);
        for (uint64_t k = 0; k < 50; k++)
            REQUIRE(cf_bloom_insert_u64(want[i], k + 100 * (uint64_t)i) == CF_OK);
        size[i] = cf_bloom_serialized_size(want[i]);
        uint8_t *bytes = malloc(size[i]);
        REQUIRE(bytes != NULL && cf_bloom_serialize(want[i], bytes, size[i], NULL) == CF_OK);
        append(&buf, &n, bytes, size[i]);
        free(bytes);
    }
    append(&buf, &n, (const uint8_t *)"x", 1);
    size_t at = 0;
    for (int i = 0; i < 3; i++) {
        cf_bloom *got = NULL;
        size_t used = 0;
        CHECK_STATUS(cf_bloom_deserialize_prefix(buf + at, n - at, NULL, &got, &used), CF_OK);
        CHECK_EQ(used, size[i]);
        for (uint64_t k = 0; k < 50; k++) CHECK(cf_bloom_contains_u64(got, k + 100 * (uint64_t)i));
        cf_bloom_free(got);
        /* A reader starting from nothing reads exactly the image. */
        size_t have = 0;
        cf_status s;
        while ((s = cf_bloom_deserialize_prefix(buf + at, have, NULL, &got, &used)) ==
               CF_E_TRUNCATED) {
            REQUIRE(used > have && used <= size[i]);
            have = used;
        }
        CHECK_STATUS(s, CF_OK);
        CHECK_EQ(have, size[i]);
        cf_bloom_free(got);
        CHECK_STATUS(cf_bloom_deserialize(buf + at, size[i] + 1, NULL, &got), CF_E_CORRUPT);
        for (size_t cut = 0; cut < size[i]; cut++) {
            CHECK_STATUS(cf_bloom_deserialize_prefix(buf + at, cut, NULL, &got, &used),
                         CF_E_TRUNCATED);
            CHECK(cut < used && used <= size[i]);
        }
        at += size[i];
    }
    cf_bloom *got = NULL;
    size_t used = 7;
    CHECK_STATUS(cf_bloom_deserialize_prefix(buf + at, n - at, NULL, &got, &used), CF_E_MAGIC);
    CHECK_EQ(used, 0);
    /* A cuckoo filter's bytes are not a Bloom image, and the other way round. */
    CHECK_STATUS(cf_deserialize_prefix(buf, n, NULL, &(cf_filter *){NULL}, &used), CF_E_MAGIC);
    for (int i = 0; i < 3; i++) cf_bloom_free(want[i]);
    free(buf);
}

static void trailing_status(void) {
    CHECK(strcmp(cf_status_name(CF_E_TRAILING), "CF_E_TRAILING") == 0);
    CHECK(strstr(cf_strerror(CF_E_TRAILING), "trailing bytes") != NULL);
}

TEST_MAIN(TEST(filters_in_turn), TEST(cuts_and_damage), TEST(bloom_in_turn), TEST(trailing_status))
