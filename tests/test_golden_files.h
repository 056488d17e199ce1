/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_golden_files.h -- what the golden-file tests of a format version
 * share (test_inplace.c, test_expiring.c; test_golden.c reads its files
 * with it): reading and writing whole files,
 * the good files remade from their recipes and compared byte for byte, and
 * the bad files, each made from one good file by a mutation and refused
 * with its status by cf_deserialize, cf_load and cf_map alike.  The
 * including file includes <xxhash.h> (the checks a mutation recomputes).
 */
#ifndef CF_TEST_GOLDEN_FILES_H
#define CF_TEST_GOLDEN_FILES_H

#include <stdbool.h>

#include "test.h"

/* The whole file, or NULL when it cannot be opened. */
static inline uint8_t *golden_read(const char *path, size_t *n) {
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) return NULL;
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *p = malloc(len > 0 ? (size_t)len : 1);
    REQUIRE(p != NULL);
    *n = fread(p, 1, (size_t)len, fp);
    fclose(fp);
    return p;
}

static inline void golden_write(const char *path, const uint8_t *p, size_t n) {
    FILE *fp = fopen(path, "wb");
    REQUIRE(fp != NULL);
    REQUIRE(fwrite(p, 1, n, fp) == n);
    fclose(fp);
}

/* The good file at `dir`/`name` against `made` (n bytes, its recipe's
 * filter serialized; written there first with `write`): equal byte for
 * byte, and opened by the three readers (*d, *l, *m, for the caller's
 * lookups).  Returns the committed bytes (*dn of them). */
static inline uint8_t *golden_check_good(const char *dir, const char *name, const uint8_t *made,
                                         size_t n, bool write, size_t *dn, cf_filter **d,
                                         cf_filter **l, cf_filter **m) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (write) golden_write(path, made, n);
    *dn = 0;
    uint8_t *disk = golden_read(path, dn);
    REQUIRE(disk != NULL);
    if (*dn != n || memcmp(disk, made, n) != 0) fprintf(stderr, "%s differs\n", name);
    CHECK(*dn == n && memcmp(disk, made, n) == 0);
    *d = *l = *m = NULL;
    CHECK_STATUS(cf_deserialize(disk, *dn, NULL, d), CF_OK);
    CHECK_STATUS(cf_load(path, NULL, l), CF_OK);
    CHECK_STATUS(cf_map(path, NULL, true, m), CF_OK);
    REQUIRE(*d && *l && *m);
    return disk;
}

typedef struct golden_bad {
    const char *name;
    cf_status want;
    const char *why;
    size_t len; /* bytes of the good file kept (0: all) */
    size_t at;  /* a byte set to value, unless at == 0 */
    uint8_t value;
    bool fix;   /* recompute the header check and the trailer */
    bool extra; /* one byte appended */
} golden_bad;

/* The bad files of one format version: made from one good file, written
 * to their folder with CF_WRITE_GOLDEN, and listed in its MANIFEST.
 * `poke`, when not NULL, makes the mutation of a file whose change is more
 * than one byte (it returns false to leave it to `at`). */
typedef struct golden_bads {
    const char *dir, *source; /* the folder; the good file they are made from */
    const golden_bad *bads;
    size_t count;
    int name_width; /* the MANIFEST's first column */
    bool (*poke)(const golden_bad *b, uint8_t *p);
} golden_bads;
#define GOLDEN_BADS(dir, source, list, width, poke) \
    ((golden_bads){(dir), (source), (list), sizeof(list) / sizeof((list)[0]), (width), (poke)})

/* The bytes of bad file b: the good file cut, lengthened or changed, and
 * its header check (the 32 bits at 124) and trailer recomputed with `fix`. */
static inline uint8_t *golden_bad_bytes(const golden_bads *g, const golden_bad *b,
                                        const uint8_t *good, size_t n, size_t *len) {
    size_t m = b->len ? b->len : n + (b->extra ? 1 : 0);
    uint8_t *p = calloc(m, 1);
    REQUIRE(p != NULL);
    memcpy(p, good, m < n ? m : n);
    if (!(g->poke != NULL && g->poke(b, p)) && b->at) p[b->at] = b->value;
    if (b->fix) {
        uint32_t check = (uint32_t)XXH3_64bits(p, 124);
        for (int j = 0; j < 4; j++) p[124 + j] = (uint8_t)(check >> (8 * j));
        uint64_t sum = XXH3_64bits(p, m - 8);
        for (int j = 0; j < 8; j++) p[m - 8 + j] = (uint8_t)(sum >> (8 * j));
    }
    *len = m;
    return p;
}

/* Each bad file is what its mutation makes of `good` (rewritten first with
 * `write`), and all three readers refuse it with its status. */
static inline void golden_check_bads(const golden_bads *g, const uint8_t *good, size_t n,
                                     bool write) {
    char path[256];
    snprintf(path, sizeof path, "%s/MANIFEST", g->dir);
    FILE *manifest = write ? fopen(path, "w") : NULL;
    if (manifest)
        fprintf(manifest, "# file  expected status  # what is wrong (made from %s)\n", g->source);
    for (size_t i = 0; i < g->count; i++) {
        const golden_bad *b = &g->bads[i];
        size_t len;
        uint8_t *p = golden_bad_bytes(g, b, good, n, &len);
        snprintf(path, sizeof path, "%s/%s", g->dir, b->name);
        if (write) golden_write(path, p, len);
        if (manifest)
            fprintf(manifest, "%-*s %-16s # %s\n", g->name_width, b->name, cf_status_name(b->want),
                    b->why);
        size_t dn = 0;
        uint8_t *disk = golden_read(path, &dn);
        REQUIRE(disk != NULL);
        CHECK(dn == len && memcmp(disk, p, len) == 0);
        cf_filter *f = NULL;
        cf_status s1 = cf_deserialize(disk, dn, NULL, &f);
        cf_status s2 = cf_load(path, NULL, &f);
        cf_status s3 = cf_map(path, NULL, true, &f);
        if (s1 != b->want || s2 != b->want || s3 != b->want)
            fprintf(stderr, "%s: want %s, got %s / %s / %s\n", b->name, cf_status_name(b->want),
                    cf_status_name(s1), cf_status_name(s2), cf_status_name(s3));
        CHECK(s1 == b->want && s2 == b->want && s3 == b->want);
        CHECK(f == NULL);
        free(disk), free(p);
    }
    if (manifest) fclose(manifest);
}

#endif
