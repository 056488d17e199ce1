/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_golden.c -- the committed golden files under tests/data/.
 *
 *   good/NAME.cf     must load (from memory, from the file, mapped) and
 *                    serialize back to exactly the same bytes;
 *   legacy/NAME.cf   the same recipes written with partner map 1 (hash_id 1,
 *                    before 0.2): they load, answer and take inserts with
 *                    their own map, and stay hash_id 1;
 *   bad/NAME         each must fail with the status bad/MANIFEST gives it,
 *                    the same through cf_deserialize, cf_load and cf_map.
 *
 * The files are also regenerated here from their recipes (fixed parameters,
 * keys and mutations) and compared byte for byte with the committed ones:
 * a change to hashing, eviction or the format that alters a single byte
 * fails this test, and then needs a format version decision, not a silent
 * update.  `test_golden --write tests/data` rewrites the files (run from the
 * source tree) after such a decision.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "format/cf_format.h"
#include "cuckoofilter.h"
#include "test.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "test_golden_files.h"

#define DATA_DIR "data"

/* What a good file is also the source of, besides itself. */
typedef enum recipe_role {
    MAKES_NOTHING_ELSE,
    MAKES_BADS,       /* most bad files: a plain table */
    MAKES_ODD_BADS,   /* the padding-bit bad file: a table with padding */
    MAKES_SEMI_BADS,  /* the semi-sorted bad files */
    MAKES_GROWN_BADS, /* the grown (version 2) bad files */
    MAKES_OWED_BADS,  /* the bad files of a grown filter owing deletes (version 8) */
} recipe_role;

typedef struct recipe {
    const char *name;
    unsigned fbits, b, max_kicks;
    uint64_t nb, seed;
    unsigned keys;       /* inserted: "key-0", "key-1", ... */
    bool until_full;     /* keep inserting past the first CF_E_FULL */
    unsigned dup_copies; /* then one key inserted this many times */
    unsigned flags;
    unsigned growth;   /* nonzero: CF_GROW with this growth, table 0 as above */
    double target_fpp; /* CF_GROW: the FPP bound of all tables */
    recipe_role role;
    bool legacy;   /* legacy/ holds it written with partner map 1 */
    unsigned owed; /* then "key-0".."key-<owed-1>" inserted again and deleted once */
} recipe;

static const recipe goods[] = {
    {"empty.cf", 13, 4, 500, 16, 0, 0, false, 0, 0, 0, 0.0, MAKES_NOTHING_ELSE, true, 0},
    {"article_f12_b4_nb100.cf", 12, 4, 500, 100, 2014, 380, false, 0, 0, 0, 0.0, MAKES_BADS, true,
     0},
    {"tiny_f1_b1_nb1.cf", 1, 1, 500, 1, 1, 1, false, 0, 0, 0, 0.0, MAKES_NOTHING_ELSE, true, 0},
    {"odd_f7_b2_nb13.cf", 7, 2, 500, 13, 7, 18, false, 0, 0, 0, 0.0, MAKES_ODD_BADS, true, 0},
    {"wide_f32_b8_nb5.cf", 32, 8, 500, 5, 99, 36, false, 0, 0, 0, 0.0, MAKES_NOTHING_ELSE, true, 0},
    {"f5_b8_nb33.cf", 5, 8, 500, 33, 5, 200, false, 0, 0, 0, 0.0, MAKES_NOTHING_ELSE, true, 0},
    {"seedmax_f16_b4_nb64.cf", 16, 4, 500, 64, UINT64_MAX, 150, false, 0, 0, 0, 0.0,
     MAKES_NOTHING_ELSE, true, 0},
    {"full_f8_b2_nb17_kicks20.cf", 8, 2, 20, 17, 3, 40, true, 0, 0, 0, 0.0, MAKES_NOTHING_ELSE,
     true, 0},
    {"dups_f9_b4_nb5.cf", 9, 4, 500, 5, 11, 2, false, 4, 0, 0, 0.0, MAKES_NOTHING_ELSE, true, 0},
    /* A larger table, neither a power of two nor prime, filled to 85%. */
    {"large_f8_b8_nb1030.cf", 8, 8, 500, 1030, 8, 7000, false, 0, 0, 0, 0.0, MAKES_NOTHING_ELSE,
     true, 0},
    /* Semi-sorted buckets (flag 1): 4f - 4 bits per bucket. */
    {"semisort_f9_b4_nb50.cf", 9, 4, 500, 50, 21, 180, false, 0, CF_SEMI_SORT, 0, 0.0,
     MAKES_SEMI_BADS, true, 0},
    {"semisort_f16_b4_nb1030.cf", 16, 4, 500, 1030, 22, 3700, false, 0, CF_SEMI_SORT, 0, 0.0,
     MAKES_NOTHING_ELSE, true, 0},
    /* Grown filters (format version 2): 4 tables of 8, 16, 32, 64 buckets;
     * semi-sorted tables of 4, 12, 36, ... buckets, with duplicates. */
    {"grown_f12_b4_nb8_g2.cf", 12, 4, 500, 8, 31, 300, false, 0, 0, 2, 0.01, MAKES_GROWN_BADS,
     false, 0},
    {"grown_semisort_f9_b4_nb4_g3.cf", 9, 4, 500, 4, 32, 500, false, 6, CF_SEMI_SORT, 3, 0.05,
     MAKES_NOTHING_ELSE, false, 0},
    /* A grown filter that owes deletes (format version 8): keys stored in
     * an older table and again in the newest, then deleted once. */
    {"grown_owed_f12_b4_nb8_g2.cf", 12, 4, 500, 8, 33, 300, false, 0, 0, 2, 0.01, MAKES_OWED_BADS,
     false, 20},
};
#define NGOOD (sizeof goods / sizeof goods[0])

/* The one recipe with this role. */
static const recipe *recipe_for(recipe_role role) {
    const recipe *found = NULL;
    for (size_t i = 0; i < NGOOD; i++) {
        if (goods[i].role != role) continue;
        REQUIRE(found == NULL);
        found = &goods[i];
    }
    REQUIRE(found != NULL);
    return found;
}

static cf_filter *build(const recipe *r) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.fingerprint_bits = r->fbits;
    cfg.bucket_size = r->b;
    cfg.num_buckets = r->nb;
    cfg.seed = r->seed;
    cfg.max_kicks = r->max_kicks;
    cfg.flags = r->flags;
    if (r->growth != 0) {
        cfg.flags |= CF_GROW;
        cfg.growth = r->growth;
        cfg.target_fpp = r->target_fpp;
    }
    cf_filter *f = NULL;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    char key[32];
    for (unsigned i = 0; i < r->keys; i++) {
        int n = snprintf(key, sizeof key, "key-%u", i);
        cf_status s = cf_insert(f, key, (size_t)n);
        REQUIRE(s == CF_OK || (r->until_full && s == CF_E_FULL));
    }
    for (unsigned i = 0; i < r->dup_copies; i++) REQUIRE(cf_insert(f, "dup", 3) == CF_OK);
    for (int round = 0; round < 2; round++)
        for (unsigned i = 0; i < r->owed; i++) {
            int n = snprintf(key, sizeof key, "key-%u", i);
            REQUIRE((round ? cf_delete(f, key, (size_t)n) : cf_insert(f, key, (size_t)n)) == CF_OK);
        }
    return f;
}

typedef struct bytes {
    uint8_t *p;
    size_t n;
} bytes;

static bytes serialize(const cf_filter *f) {
    bytes b;
    b.p = test_serialize(f, &b.n);
    return b;
}

static bytes read_file(const char *path) {
    bytes b = {NULL, 0};
    b.p = golden_read(path, &b.n);
    return b;
}

/* ---- semi-sorted buckets, from docs/FORMAT.md ---- */

/* code -> p0 | p1 << 4 | p2 << 8 | p3 << 12, or 0xffffffff for unused codes:
 * built by enumerating the sorted prefix quadruples and ranking each. */
static uint32_t spec_decode[4096];

static unsigned spec_binom(unsigned n, unsigned k) {
    unsigned r = 1;
    for (unsigned i = 0; i < k; i++) r = r * (n - i) / (i + 1);
    return k > n ? 0 : r;
}

static void spec_build_decode(void) {
    for (unsigned c = 0; c < 4096; c++) spec_decode[c] = 0xffffffffu;
    for (unsigned p3 = 0; p3 < 16; p3++)
        for (unsigned p2 = 0; p2 <= p3; p2++)
            for (unsigned p1 = 0; p1 <= p2; p1++)
                for (unsigned p0 = 0; p0 <= p1; p0++) {
                    unsigned code = spec_binom(p0, 1) + spec_binom(p1 + 1, 2) +
                                    spec_binom(p2 + 2, 3) + spec_binom(p3 + 3, 4);
                    REQUIRE(code < 3876 && spec_decode[code] == 0xffffffffu);
                    spec_decode[code] = p0 | p1 << 4 | p2 << 8 | p3 << 12;
                }
}

static uint64_t spec_bits(const uint8_t *table, uint64_t bit, unsigned n) {
    uint64_t v = 0;
    for (unsigned j = 0; j < n; j++, bit++) v |= (uint64_t)((table[bit / 8] >> (bit % 8)) & 1) << j;
    return v;
}

static void spec_put_bits(uint8_t *table, uint64_t bit, unsigned n, uint64_t v) {
    for (unsigned j = 0; j < n; j++, bit++) {
        table[bit / 8] = (uint8_t)(table[bit / 8] & ~(1u << (bit % 8)));
        table[bit / 8] = (uint8_t)(table[bit / 8] | ((v >> j) & 1) << (bit % 8));
    }
}

/* The four fingerprints of semi-sorted bucket i (f-bit fingerprints);
 * false for an unused code. */
static bool spec_semisort_bucket(const uint8_t *table, unsigned f, uint64_t i, uint64_t fp[4]) {
    uint64_t base = i * (4 * f - 4);
    uint32_t prefixes = spec_decode[spec_bits(table, base, 12)];
    if (prefixes == 0xffffffffu) return false;
    for (unsigned k = 0; k < 4; k++)
        fp[k] = (uint64_t)((prefixes >> (4 * k)) & 15) << (f - 4) |
                spec_bits(table, base + 12 + k * (f - 4), f - 4);
    return true;
}

/* ---- the bad files: mutations of good files ---- */

typedef struct bad {
    char name[64];
    cf_status want;
    const char *why;
    bytes data;
} bad;

static bad bads[120];
static size_t nbad;

static bytes copy_of(bytes src, size_t n) {
    bytes b = {malloc(n + 1), n};
    memset(b.p, 0, n + 1);
    memcpy(b.p, src.p, n < src.n ? n : src.n);
    return b;
}

static void fix_checks(bytes b) {
    if (b.n >= 64) cf__put_le(b.p + CF__OFF_HEADER_CHECK, (uint32_t)XXH3_64bits(b.p, 60), 4);
    if (b.n >= 72) cf__put_le(b.p + b.n - 8, XXH3_64bits(b.p, b.n - 8), 8);
}

static void add_bad(const char *name, cf_status want, const char *why, bytes data) {
    REQUIRE(nbad < sizeof bads / sizeof bads[0]);
    bad *x = &bads[nbad++];
    snprintf(x->name, sizeof x->name, "%s", name);
    x->want = want;
    x->why = why;
    x->data = data;
}

/* A field set to v with both checks recomputed: only the field is wrong. */
static void add_field(const char *name, cf_status want, const char *why, bytes good, unsigned off,
                      unsigned width, uint64_t v) {
    bytes b = copy_of(good, good.n);
    cf__put_le(b.p + off, v, width);
    fix_checks(b);
    add_bad(name, want, why, b);
}

/* Grown files: the version-2 header's check, and record r's two checks. */
static void fix_grown_header(bytes b) {
    cf__put_le(b.p + 60, (uint32_t)XXH3_64bits(b.p, 60), 4);
}

static size_t record_at(bytes b, unsigned r) {
    size_t off = 64;
    for (unsigned k = 0; k < r; k++) {
        uint64_t nb = cf__get_le(b.p + off + CF__OFF_NUM_BUCKETS, 8);
        unsigned f = b.p[off + CF__OFF_FP_BITS], bs = b.p[off + CF__OFF_BUCKET_SIZE];
        bool semi = cf__get_le(b.p + off + CF__OFF_FLAGS, 2) & CF_SEMI_SORT;
        uint64_t t = (nb * (semi ? 4 * f - 4 : bs * f) + 7) / 8;
        off += (size_t)((64 + t + 8 + 63) / 64 * 64);
    }
    return off;
}

static void fix_record(bytes b, unsigned r) {
    size_t off = record_at(b, r);
    uint64_t nb = cf__get_le(b.p + off + CF__OFF_NUM_BUCKETS, 8);
    uint64_t t = (nb * b.p[off + CF__OFF_BUCKET_SIZE] * b.p[off + CF__OFF_FP_BITS] + 7) / 8;
    cf__put_le(b.p + off + CF__OFF_HEADER_CHECK, (uint32_t)XXH3_64bits(b.p + off, 60), 4);
    cf__put_le(b.p + off + 64 + t, XXH3_64bits(b.p + off, 64 + t), 8);
}

static void add_grown_field(const char *name, cf_status want, const char *why, bytes good,
                            unsigned off, unsigned width, uint64_t v) {
    bytes b = copy_of(good, good.n);
    cf__put_le(b.p + off, v, width);
    fix_grown_header(b);
    add_bad(name, want, why, b);
}

/* Version 8: the ledger's entries start after the last record; its
 * checksum, recomputed, makes only the changed field wrong. */
static size_t owed_at(bytes b) {
    return record_at(b, (unsigned)cf__get_le(b.p + 10, 2));
}

static void fix_owed(bytes b) {
    size_t at = owed_at(b), e = (size_t)cf__get_le(b.p + 44, 4);
    cf__put_le(b.p + at + 16 * e, XXH3_64bits(b.p + at, 16 * e), 8);
    fix_grown_header(b);
}

/* From grown_owed_f12_b4_nb8_g2.cf: a version-8 file whose ledger has at
 * least two entries. */
static void make_owed_bads(bytes ow) {
    REQUIRE(cf__get_le(ow.p + 8, 2) == 8 && cf__get_le(ow.p + 44, 4) >= 2);
    size_t at = owed_at(ow);
    add_bad("owed_truncated_last_byte.bin", CF_E_TRUNCATED, "owed: the ledger's checksum cut short",
            copy_of(ow, ow.n - 1));
    bytes b = copy_of(ow, ow.n + 1);
    b.p[ow.n] = 0;
    add_bad("owed_trailing_byte.bin", CF_E_CORRUPT, "owed: one byte after the ledger", b);
    b = copy_of(ow, ow.n);
    b.p[at + 3] ^= 0x20;
    add_bad("owed_entry_flip.bin", CF_E_CHECKSUM, "owed: a bit of an entry's hash flipped", b);
    add_grown_field("owed_count_0.bin", CF_E_CORRUPT, "owed: version 8 with no entry", ow, 44, 4,
                    0);
    add_grown_field("owed_reserved_set.bin", CF_E_CORRUPT, "owed: reserved byte not 0", ow, 57, 1,
                    1);
    b = copy_of(ow, ow.n);
    cf__put_le(b.p + at + 8, 0, 8);
    fix_owed(b);
    add_bad("owed_deletes_0.bin", CF_E_CORRUPT, "owed: an entry owing no delete", b);
    b = copy_of(ow, ow.n);
    uint8_t first[16];
    memcpy(first, b.p + at, 16);
    memcpy(b.p + at, b.p + at + 16, 16);
    memcpy(b.p + at + 16, first, 16);
    fix_owed(b);
    add_bad("owed_out_of_order.bin", CF_E_CORRUPT, "owed: entries not in ascending order", b);
    b = copy_of(ow, ow.n);
    cf__put_le(b.p + 8, 2, 2);
    fix_grown_header(b);
    add_bad("owed_as_version_2.bin", CF_E_CORRUPT, "owed: version 2 with a ledger's fields", b);
}

static uint64_t double_bits(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* From grown_f12_b4_nb8_g2.cf: 4 records of tables with 8, 16, 32 and 64
 * buckets (12, 12, 13, 13-bit... as the budget gives), each padded to 64. */
static void make_grown_bads(bytes gr) {
    size_t r1 = record_at(gr, 1), r2 = record_at(gr, 2);
    add_bad("grown_truncated_at_64.bin", CF_E_TRUNCATED, "grown: the header alone",
            copy_of(gr, 64));
    add_bad("grown_truncated_in_record.bin", CF_E_TRUNCATED, "grown: cut inside record 1",
            copy_of(gr, r1 + 100));
    add_bad("grown_truncated_last_byte.bin", CF_E_TRUNCATED, "grown: last padding byte missing",
            copy_of(gr, gr.n - 1));
    bytes b = copy_of(gr, gr.n + 1);
    fix_grown_header(b);
    add_bad("grown_trailing_byte.bin", CF_E_CORRUPT, "grown: one byte after the last record", b);
    b = copy_of(gr, gr.n);
    b.p[61] ^= 4;
    add_bad("grown_header_check_flip.bin", CF_E_CHECKSUM, "grown: header check bit flipped", b);
    add_grown_field("grown_tables_0.bin", CF_E_CORRUPT, "grown: 0 tables", gr, 10, 2, 0);
    add_grown_field("grown_tables_65.bin", CF_E_CORRUPT, "grown: more than 64 tables", gr, 10, 2,
                    65);
    add_grown_field("grown_tables_more.bin", CF_E_TRUNCATED, "grown: one record more than held", gr,
                    10, 2, cf__get_le(gr.p + 10, 2) + 1);
    add_grown_field("grown_tables_fewer.bin", CF_E_CORRUPT, "grown: a record after the last one",
                    gr, 10, 2, cf__get_le(gr.p + 10, 2) - 1);
    add_grown_field("grown_growth_0.bin", CF_E_CORRUPT, "grown: growth 0", gr, 12, 4, 0);
    add_grown_field("grown_growth_3.bin", CF_E_CORRUPT, "grown: growth disagrees with the tables",
                    gr, 12, 4, 3);
    add_grown_field("grown_target_1.bin", CF_E_CORRUPT, "grown: target FPP 1", gr, 24, 8,
                    double_bits(1.0));
    add_grown_field("grown_target_nan.bin", CF_E_CORRUPT, "grown: target FPP NaN", gr, 24, 8,
                    0x7ff8000000000000ull);
    add_grown_field("grown_target_spent.bin", CF_E_CORRUPT, "grown: tables' FPPs exceed the target",
                    gr, 24, 8, double_bits(0.001));
    add_grown_field("grown_max_bytes_small.bin", CF_E_CORRUPT, "grown: tables exceed max_bytes", gr,
                    16, 8, 100);
    add_grown_field("grown_flags_0.bin", CF_E_CORRUPT, "grown: flags without CF_GROW", gr, 40, 2,
                    0);
    add_grown_field("grown_flags_semi.bin", CF_E_CORRUPT, "grown: semi-sorting the tables lack", gr,
                    40, 2, CF_GROW | CF_SEMI_SORT);
    add_grown_field("grown_reserved_set.bin", CF_E_CORRUPT, "grown: reserved byte not 0", gr, 50, 1,
                    1);
    b = copy_of(gr, gr.n);
    b.p[r1] = 0x88;
    add_bad("grown_record_magic.bin", CF_E_CORRUPT, "grown: record 1 is not a table image", b);
    b = copy_of(gr, gr.n);
    cf__put_le(b.p + r1 + CF__OFF_VERSION, 2, 2);
    fix_record(b, 1);
    add_bad("grown_record_version_2.bin", CF_E_CORRUPT, "grown: a record that is itself grown", b);
    b = copy_of(gr, gr.n);
    b.p[r1 + CF__OFF_SEED] ^= 1;
    fix_record(b, 1);
    add_bad("grown_record_seed.bin", CF_E_CORRUPT, "grown: record 1 has another seed", b);
    b = copy_of(gr, gr.n);
    b.p[r1 + CF__OFF_MAX_KICKS] ^= 1;
    fix_record(b, 1);
    add_bad("grown_record_kicks.bin", CF_E_CORRUPT, "grown: record 1 has another max_kicks", b);
    b = copy_of(gr, gr.n);
    b.p[r1 + CF__OFF_SEED] ^= 1;
    add_bad("grown_record_check.bin", CF_E_CHECKSUM, "grown: record 1's header check fails", b);
    b = copy_of(gr, gr.n);
    b.p[r1 + 64 + 3] ^= 0x20;
    add_bad("grown_record_table_flip.bin", CF_E_CHECKSUM, "grown: a bit of table 1 flipped", b);
    b = copy_of(gr, gr.n);
    b.p[r2 - 1] = 1;
    add_bad("grown_pad_set.bin", CF_E_CORRUPT, "grown: a padding byte after record 1 not 0", b);
    b = copy_of(gr, gr.n);
    cf__put_le(b.p + r1 + CF__OFF_ITEMS, cf__get_le(b.p + r1 + CF__OFF_ITEMS, 8) + 1, 8);
    fix_record(b, 1);
    add_bad("grown_record_items.bin", CF_E_CORRUPT, "grown: record 1's item count is wrong", b);
}

static void make_bads(bytes g, bytes odd, bytes semi) {
    nbad = 0;
    char name[64];
    add_bad("empty.bin", CF_E_TRUNCATED, "zero bytes", copy_of(g, 0));
    add_bad("magic_prefix.bin", CF_E_TRUNCATED, "the first 5 bytes of the magic", copy_of(g, 5));
    size_t cuts[] = {9, 10, 63, 64, 65, g.n / 2, g.n - 9, g.n - 8, g.n - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        snprintf(name, sizeof name, "truncated_at_%zu.bin", cuts[i]);
        add_bad(name, CF_E_TRUNCATED, "a good file cut short", copy_of(g, cuts[i]));
    }
    bytes b = copy_of(g, g.n);
    b.p[0] = 0x88;
    add_bad("magic_first_byte.bin", CF_E_MAGIC, "magic's first byte changed", b);
    b = copy_of(g, g.n);
    memmove(b.p + 4, b.p + 5, b.n - 5); /* "\r\n" -> "\n", as a text-mode copy would */
    b.n--;
    add_bad("magic_crlf_translated.bin", CF_E_MAGIC, "CR LF turned into LF", b);
    b = copy_of(g, 16);
    memcpy(b.p, "hello, world\n\n\n\n", 16);
    add_bad("text.bin", CF_E_MAGIC, "a text file", b);
    add_field("version_0.bin", CF_E_VERSION, "format version 0", g, CF__OFF_VERSION, 2, 0);
    add_field("version_3.bin", CF_E_VERSION, "a future version", g, CF__OFF_VERSION, 2, 3);
    add_field("version_ffff.bin", CF_E_VERSION, "version 65535", g, CF__OFF_VERSION, 2, 0xffff);
    b = copy_of(g, 12);
    cf__put_le(b.p + CF__OFF_VERSION, 3, 2);
    add_bad("version_3_short.bin", CF_E_VERSION, "a future version, 12 bytes", b);

    b = copy_of(g, g.n);
    b.p[CF__OFF_SEED] ^= 1;
    add_bad("header_bit_flip.bin", CF_E_CHECKSUM, "seed bit flipped, checks kept", b);
    b = copy_of(g, g.n);
    b.p[CF__OFF_HEADER_CHECK + 3] ^= 0x80;
    add_bad("header_check_flip.bin", CF_E_CHECKSUM, "header check bit flipped", b);
    b = copy_of(g, g.n);
    b.p[CF__HEADER_SIZE + 7] ^= 0x10;
    add_bad("table_bit_flip.bin", CF_E_CHECKSUM, "table bit flipped", b);
    b = copy_of(g, g.n);
    b.p[g.n - 1] ^= 1;
    add_bad("trailer_bit_flip.bin", CF_E_CHECKSUM, "trailer bit flipped", b);

    add_field("fp_bits_0.bin", CF_E_CORRUPT, "fingerprint bits 0", g, CF__OFF_FP_BITS, 1, 0);
    add_field("fp_bits_33.bin", CF_E_CORRUPT, "fingerprint bits 33", g, CF__OFF_FP_BITS, 1, 33);
    add_field("fp_bits_smaller.bin", CF_E_CORRUPT, "fewer bits: trailing bytes", g, CF__OFF_FP_BITS,
              1, g.p[CF__OFF_FP_BITS] - 1u);
    add_field("fp_bits_larger.bin", CF_E_TRUNCATED, "more bits: the table is short", g,
              CF__OFF_FP_BITS, 1, g.p[CF__OFF_FP_BITS] + 1u);
    add_field("bucket_size_3.bin", CF_E_CORRUPT, "bucket size 3", g, CF__OFF_BUCKET_SIZE, 1, 3);
    add_field("bucket_size_16.bin", CF_E_CORRUPT, "bucket size 16", g, CF__OFF_BUCKET_SIZE, 1, 16);
    add_field("hash_id_3.bin", CF_E_CORRUPT, "unknown partner map", g, CF__OFF_HASH_ID, 1, 3);
    add_field("hash_id_0.bin", CF_E_CORRUPT, "unknown partner map", g, CF__OFF_HASH_ID, 1, 0);
    add_field("reserved_set.bin", CF_E_CORRUPT, "reserved byte not 0", g, CF__OFF_RESERVED, 1, 1);
    add_field("flags_set.bin", CF_E_CORRUPT, "unknown flag", g, CF__OFF_FLAGS, 2, 0x8000);
    add_field("buckets_0.bin", CF_E_CORRUPT, "zero buckets", g, CF__OFF_NUM_BUCKETS, 8, 0);
    add_field("buckets_fewer.bin", CF_E_CORRUPT, "fewer buckets: trailing bytes", g,
              CF__OFF_NUM_BUCKETS, 8, cf__get_le(g.p + CF__OFF_NUM_BUCKETS, 8) - 1);
    add_field("buckets_more.bin", CF_E_TRUNCATED, "one bucket more than the file holds", g,
              CF__OFF_NUM_BUCKETS, 8, cf__get_le(g.p + CF__OFF_NUM_BUCKETS, 8) + 1);
    add_field("giant_2tb_in_small_file.bin", CF_E_TRUNCATED, "claims 2^40 buckets", g,
              CF__OFF_NUM_BUCKETS, 8, (uint64_t)1 << 40);
    add_field("giant_slots_overflow.bin", CF_E_TOO_LARGE, "nb * b overflows 64 bits", g,
              CF__OFF_NUM_BUCKETS, 8, (uint64_t)1 << 62);
    add_field("giant_bits_overflow.bin", CF_E_TOO_LARGE, "nb * b * f overflows 64 bits", g,
              CF__OFF_NUM_BUCKETS, 8, (uint64_t)1 << 59);
    add_field("giant_buckets_max.bin", CF_E_TOO_LARGE, "nb = 2^64 - 1", g, CF__OFF_NUM_BUCKETS, 8,
              UINT64_MAX);
    add_field("max_kicks_0.bin", CF_E_CORRUPT, "max kicks 0", g, CF__OFF_MAX_KICKS, 4, 0);
    add_field("max_kicks_huge.bin", CF_E_CORRUPT, "max kicks 2^32 - 1", g, CF__OFF_MAX_KICKS, 4,
              UINT32_MAX);
    add_field("items_over_slots.bin", CF_E_CORRUPT, "more items than slots", g, CF__OFF_ITEMS, 8,
              UINT64_MAX);
    add_field("items_off_by_one.bin", CF_E_CORRUPT, "item count disagrees with the table", g,
              CF__OFF_ITEMS, 8, cf__get_le(g.p + CF__OFF_ITEMS, 8) + 1);
    b = copy_of(g, g.n + 1);
    fix_checks(b);
    add_bad("trailing_byte.bin", CF_E_CORRUPT, "one byte after the trailer", b);
    /* odd: 13 buckets x 2 slots x 7 bits = 182 bits, 2 padding bits. */
    b = copy_of(odd, odd.n);
    b.p[odd.n - CF__TRAILER_SIZE - 1] |= 0x80;
    fix_checks(b);
    add_bad("padding_bit_set.bin", CF_E_CORRUPT, "a padding bit after the last slot set", b);

    /* Semi-sorted (from semisort_f9_b4_nb50.cf): f = 9, buckets of 32 bits. */
    add_field("semisort_on_plain_file.bin", CF_E_CORRUPT, "flag 1 on a plain table: sizes differ",
              g, CF__OFF_FLAGS, 2, CF_SEMI_SORT);
    add_field("semisort_b8.bin", CF_E_CORRUPT, "semi-sorted needs bucket size 4", semi,
              CF__OFF_BUCKET_SIZE, 1, 8);
    add_field("semisort_f4.bin", CF_E_CORRUPT, "semi-sorted needs 5..16-bit fingerprints", semi,
              CF__OFF_FP_BITS, 1, 4);
    add_field("semisort_f17.bin", CF_E_CORRUPT, "semi-sorted needs 5..16-bit fingerprints", semi,
              CF__OFF_FP_BITS, 1, 17);
    b = copy_of(semi, semi.n);
    spec_put_bits(b.p + CF__HEADER_SIZE, 0, 12, 4095);
    fix_checks(b);
    add_bad("semisort_code_4095.bin", CF_E_CORRUPT, "a bucket code no prefix multiset has", b);
    /* Bucket 0 rewritten as prefixes 0,0,0,0 with suffixes 2,1,3,4: fingerprints
     * 2,1,3,4, out of order; the item count is kept right. */
    b = copy_of(semi, semi.n);
    uint64_t fp[4], items = cf__get_le(b.p + CF__OFF_ITEMS, 8);
    REQUIRE(spec_semisort_bucket(b.p + CF__HEADER_SIZE, 9, 0, fp));
    for (unsigned k = 0; k < 4; k++) items -= fp[k] != 0;
    spec_put_bits(b.p + CF__HEADER_SIZE, 0, 12, 0);
    static const uint64_t suffixes[4] = {2, 1, 3, 4};
    for (unsigned k = 0; k < 4; k++)
        spec_put_bits(b.p + CF__HEADER_SIZE, 12 + 5 * k, 5, suffixes[k]);
    cf__put_le(b.p + CF__OFF_ITEMS, items + 4, 8);
    fix_checks(b);
    add_bad("semisort_unsorted.bin", CF_E_CORRUPT, "a bucket's fingerprints out of order", b);
}

/* ---- checks ---- */

static cf_status status_by_name(const char *name) {
#define CF_STATUS_BY_NAME_(n, v, m) \
    if (strcmp(name, #n) == 0) return n;
    CF_STATUS_TABLE(CF_STATUS_BY_NAME_)
#undef CF_STATUS_BY_NAME_
    return (cf_status)1; /* no such status */
}

static void test_good_files(void) {
    char path[256];
    for (size_t i = 0; i < NGOOD; i++) {
        snprintf(path, sizeof path, DATA_DIR "/good/%s", goods[i].name);
        bytes disk = read_file(path);
        if (disk.p == NULL) fprintf(stderr, "missing %s\n", path);
        REQUIRE(disk.p != NULL);
        cf_filter *f = NULL, *l = NULL, *m = NULL;
        CHECK_STATUS(cf_deserialize(disk.p, disk.n, NULL, &f), CF_OK);
        CHECK_STATUS(cf_load(path, NULL, &l), CF_OK);
        CHECK_STATUS(cf_map(path, NULL, true, &m), CF_OK);
        REQUIRE(f && l && m);
        bytes again = serialize(f), fromload = serialize(l), frommap = serialize(m);
        CHECK(again.n == disk.n && memcmp(again.p, disk.p, disk.n) == 0);
        CHECK(fromload.n == disk.n && memcmp(fromload.p, disk.p, disk.n) == 0);
        CHECK(frommap.n == disk.n && memcmp(frommap.p, disk.p, disk.n) == 0);
        /* The recipe rebuilds the same bytes: the format and the algorithm are stable. */
        cf_filter *r = build(&goods[i]);
        bytes rebuilt = serialize(r);
        if (rebuilt.n != disk.n || memcmp(rebuilt.p, disk.p, disk.n) != 0)
            fprintf(stderr, "%s: rebuilt bytes differ from the golden file\n", goods[i].name);
        CHECK(rebuilt.n == disk.n && memcmp(rebuilt.p, disk.p, disk.n) == 0);
        /* Every key of the recipe is found in the file (recipes that go on
         * past the first failure stored only some of them). */
        char key[32];
        for (unsigned k = 0; k < goods[i].keys && !goods[i].until_full; k++) {
            int n = snprintf(key, sizeof key, "key-%u", k);
            CHECK(cf_contains(m, key, (size_t)n));
        }
        free(rebuilt.p), free(again.p), free(fromload.p), free(frommap.p), free(disk.p);
        cf_free(r), cf_free(f), cf_free(l), cf_free(m);
    }
}

/* How many files dir holds, not counting hidden ones and except. */
static size_t files_in(const char *dir, const char *except) {
    DIR *d = opendir(dir);
    REQUIRE(d != NULL);
    struct dirent *e;
    size_t files = 0;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && strcmp(e->d_name, except) != 0) files++;
    closedir(d);
    return files;
}

/* Every bad file, made from its good recipe's bytes (bads[]: each a copy). */
static void make_all_bads(void) {
    cf_filter *f0 = build(recipe_for(MAKES_BADS)), *f1 = build(recipe_for(MAKES_ODD_BADS));
    cf_filter *f2 = build(recipe_for(MAKES_SEMI_BADS)), *f3 = build(recipe_for(MAKES_GROWN_BADS));
    bytes g = serialize(f0), odd = serialize(f1), semi = serialize(f2), gr = serialize(f3);
    make_bads(g, odd, semi);
    make_grown_bads(gr);
    cf_filter *f4 = build(recipe_for(MAKES_OWED_BADS));
    bytes ow = serialize(f4);
    make_owed_bads(ow);
    free(g.p), free(odd.p), free(semi.p), free(gr.p), free(ow.p);
    cf_free(f0), cf_free(f1), cf_free(f2), cf_free(f3), cf_free(f4);
}

static void test_bad_files(void) {
    FILE *mf = fopen(DATA_DIR "/bad/MANIFEST", "r");
    REQUIRE(mf != NULL);
    make_all_bads();
    char line[512], name[128], status[64];
    size_t listed = 0;
    while (fgets(line, sizeof line, mf) != NULL) {
        if (line[0] == '#' || line[0] == '\n') continue;
        REQUIRE(sscanf(line, "%127s %63s", name, status) == 2);
        cf_status want = status_by_name(status);
        CHECK(want != (cf_status)1);
        listed++;
        char path[256];
        snprintf(path, sizeof path, DATA_DIR "/bad/%s", name);
        bytes disk = read_file(path);
        CHECK(disk.p != NULL);
        if (disk.p == NULL) continue;
        cf_filter *f = (cf_filter *)1;
        cf_status s1 = cf_deserialize(disk.p, disk.n, NULL, &f);
        CHECK(f == NULL);
        cf_status s2 = cf_load(path, NULL, &f);
        cf_status s3 = cf_map(path, NULL, true, &f);
        if (s1 != want || s2 != want || s3 != want)
            fprintf(stderr, "%s: want %s, got %s / %s / %s\n", name, status, cf_status_name(s1),
                    cf_status_name(s2), cf_status_name(s3));
        CHECK(s1 == want && s2 == want && s3 == want);
        /* The committed file is what its recipe makes. */
        bool found = false;
        for (size_t i = 0; i < nbad; i++) {
            if (strcmp(bads[i].name, name) != 0) continue;
            found = true;
            CHECK(bads[i].want == want);
            CHECK(bads[i].data.n == disk.n && memcmp(bads[i].data.p, disk.p, disk.n) == 0);
        }
        CHECK(found);
        free(disk.p);
    }
    fclose(mf);
    CHECK_EQ(listed, nbad);
    /* Every file in bad/ is listed. */
    CHECK_EQ(files_in(DATA_DIR "/bad", "MANIFEST"), listed);
    for (size_t i = 0; i < nbad; i++) free(bads[i].data.p);
}

/* ---- an independent reader written from docs/FORMAT.md alone ---- */

typedef struct spec_filter {
    const uint8_t *table;
    bool semi;
    unsigned f, b, hash_id;
    uint64_t nb, seed;
} spec_filter;

static uint64_t spec_range(uint64_t x, uint64_t n) {
    return (uint64_t)(((unsigned __int128)x * n) >> 64);
}

static uint64_t spec_reflect(uint64_t c, uint64_t i, uint64_t n) {
    return c >= i ? c - i : c + n - i;
}

static uint64_t spec_alt(const spec_filter *sf, uint64_t i, uint64_t fp) {
    const uint64_t g = 0x9e3779b97f4a7c15ull;
    uint64_t m = fp * g; /* wraps mod 2^64 */
    if (sf->hash_id == 2) {
        m ^= m >> 29;
        m *= g;
    }
    return spec_reflect(spec_range(m, sf->nb), i, sf->nb);
}

static uint64_t spec_slot(const spec_filter *sf, uint64_t k) {
    uint64_t v = 0;
    for (unsigned j = 0; j < sf->f; j++) {
        uint64_t bit = k * sf->f + j;
        v |= (uint64_t)((sf->table[bit / 8] >> (bit % 8)) & 1) << j;
    }
    return v;
}

static bool spec_contains(const spec_filter *sf, const char *key, size_t len) {
    uint64_t h = XXH3_64bits_withSeed(key, len, sf->seed);
    uint64_t fp = (((h & 0xffffffffu) * (((uint64_t)1 << sf->f) - 1)) >> 32) + 1;
    uint64_t i1 = spec_range(h, sf->nb), i2 = spec_alt(sf, i1, fp);
    CHECK_EQ(spec_alt(sf, i2, fp), i1); /* an involution */
    if (sf->semi) {
        uint64_t a[4], c[4];
        REQUIRE(spec_semisort_bucket(sf->table, sf->f, i1, a));
        REQUIRE(spec_semisort_bucket(sf->table, sf->f, i2, c));
        for (unsigned s = 0; s < 4; s++)
            if (a[s] == fp || c[s] == fp) return true;
        return false;
    }
    for (unsigned s = 0; s < sf->b; s++)
        if (spec_slot(sf, i1 * sf->b + s) == fp || spec_slot(sf, i2 * sf->b + s) == fp) return true;
    return false;
}

/* One table image (a version-1 file, or a record of a version-2 file) at p:
 * parsed and checked against its checksum and item count; returns its size. */
static size_t spec_table(const uint8_t *p, spec_filter *sf) {
    sf->table = p + 64;
    sf->f = p[10];
    sf->hash_id = p[12];
    sf->b = p[11];
    sf->nb = cf__get_le(p + 16, 8);
    sf->seed = cf__get_le(p + 24, 8);
    sf->semi = cf__get_le(p + 14, 2) == 1;
    uint64_t bucket_bits = sf->semi ? 4 * sf->f - 4 : sf->b * sf->f;
    size_t size = (size_t)(64 + (sf->nb * bucket_bits + 7) / 8 + 8);
    CHECK_EQ(cf__get_le(p + size - 8, 8), XXH3_64bits(p, size - 8));
    uint64_t nonzero = 0;
    for (uint64_t k = 0; k < sf->nb * sf->b; k++) {
        uint64_t q[4];
        if (!sf->semi)
            nonzero += spec_slot(sf, k) != 0;
        else if (k % 4 == 0 && spec_semisort_bucket(sf->table, sf->f, k / 4, q))
            nonzero += (q[0] != 0) + (q[1] != 0) + (q[2] != 0) + (q[3] != 0);
    }
    CHECK_EQ(nonzero, cf__get_le(p + 32, 8));
    return size;
}

static spec_filter spec_open(bytes disk) {
    spec_filter sf;
    spec_table(disk.p, &sf);
    return sf;
}

/* Reads dir's file of every recipe (of the legacy ones only, for legacy/). */
static void spec_read_dir(const char *dir, unsigned want_hash_id, bool legacy_only) {
    char path[256], key[32];
    for (size_t i = 0; i < NGOOD; i++) {
        if (legacy_only && !goods[i].legacy) continue;
        snprintf(path, sizeof path, DATA_DIR "/%s/%s", dir, goods[i].name);
        bytes disk = read_file(path);
        REQUIRE(disk.p != NULL && disk.n >= 72);
        /* Version 1: one table image.  Version 2: a 64-byte header whose
         * u16 at offset 10 counts the images that follow, each padded with
         * zeros to a multiple of 64 bytes. */
        spec_filter sf[64];
        unsigned n_tables = 1;
        size_t at = 0;
        unsigned version = (unsigned)cf__get_le(disk.p + 8, 2);
        bool grown = version == 2 || version == 8;
        if (grown) {
            n_tables = (unsigned)cf__get_le(disk.p + 10, 2);
            REQUIRE(n_tables >= 1 && n_tables <= 64);
            at = 64;
        }
        for (unsigned t = 0; t < n_tables; t++) {
            REQUIRE(at + 72 <= disk.n);
            size_t size = spec_table(disk.p + at, &sf[t]);
            CHECK_EQ(sf[t].hash_id, want_hash_id);
            at += grown ? (size + 63) / 64 * 64 : size;
        }
        if (version == 8) { /* the ledger: E entries of 16 bytes and their XXH3-64 */
            size_t e = (size_t)cf__get_le(disk.p + 44, 4);
            CHECK(e >= 1 && at + 16 * e + 8 <= disk.n);
            for (size_t j = 1; j < e; j++)
                CHECK(cf__get_le(disk.p + at + 16 * j, 8) >
                      cf__get_le(disk.p + at + 16 * j - 16, 8));
            CHECK_EQ(cf__get_le(disk.p + at + 16 * e, 8), XXH3_64bits(disk.p + at, 16 * e));
            at += 16 * e + 8;
        }
        CHECK_EQ(at, disk.n);
        cf_filter *m = NULL;
        REQUIRE(cf_map(path, NULL, true, &m) == CF_OK);
        /* The spec's lookup and the library's agree on members and non-members. */
        for (unsigned k = 0; k < goods[i].keys + 2000; k++) {
            int n = k < goods[i].keys ? snprintf(key, sizeof key, "key-%u", k)
                                      : snprintf(key, sizeof key, "absent-%u", k);
            bool hit = false;
            for (unsigned t = 0; t < n_tables; t++) hit |= spec_contains(&sf[t], key, (size_t)n);
            CHECK_EQ(hit, cf_contains(m, key, (size_t)n));
        }
        if (goods[i].dup_copies) {
            bool hit = false;
            for (unsigned t = 0; t < n_tables; t++) hit |= spec_contains(&sf[t], "dup", 3);
            CHECK(hit);
        }
        cf_free(m);
        free(disk.p);
    }
}

static void test_spec_reader(void) {
    spec_read_dir("good", 2, false);
    spec_read_dir("legacy", 1, true);
}

/* Files of partner map 1 keep working: loaded three ways they hold the
 * recipe's keys and serialize back unchanged; inserts and deletes use
 * map 1 (the spec reader, which knows only the file, agrees with the
 * library afterwards), and the file written back says hash_id 1. */
static void test_legacy_files(void) {
    char path[256], key[32];
    size_t legacy = 0;
    for (size_t i = 0; i < NGOOD; i++) {
        if (!goods[i].legacy) continue;
        legacy++;
        snprintf(path, sizeof path, DATA_DIR "/legacy/%s", goods[i].name);
        bytes disk = read_file(path);
        REQUIRE(disk.p != NULL);
        cf_filter *f = NULL, *l = NULL, *m = NULL;
        CHECK_STATUS(cf_deserialize(disk.p, disk.n, NULL, &f), CF_OK);
        CHECK_STATUS(cf_load(path, NULL, &l), CF_OK);
        CHECK_STATUS(cf_map(path, NULL, true, &m), CF_OK);
        REQUIRE(f && l && m);
        bytes again = serialize(l), frommap = serialize(m);
        CHECK(again.n == disk.n && memcmp(again.p, disk.p, disk.n) == 0);
        CHECK(frommap.n == disk.n && memcmp(frommap.p, disk.p, disk.n) == 0);
        cf_stats st;
        cf_get_stats(f, &st);
        unsigned found = 0;
        for (unsigned k = 0; k < goods[i].keys; k++) {
            int n = snprintf(key, sizeof key, "key-%u", k);
            found += cf_contains(f, key, (size_t)n);
        }
        /* Recipes that stop at the first failure stored every key. */
        if (!goods[i].until_full) CHECK_EQ(found, goods[i].keys);
        /* Insert new keys (those that fit), delete some old ones, then
         * compare the library with the map-1 spec reader on everything. */
        unsigned added = 0;
        for (unsigned k = 0; k < 50; k++) {
            int n = snprintf(key, sizeof key, "new-%u", k);
            if (cf_insert(f, key, (size_t)n) == CF_OK)
                added++;
            else
                break;
        }
        for (unsigned k = 0; k < added; k++) {
            int n = snprintf(key, sizeof key, "new-%u", k);
            CHECK(cf_contains(f, key, (size_t)n));
        }
        for (unsigned k = 0; k < 10 && k < goods[i].keys && !goods[i].until_full; k++) {
            int n = snprintf(key, sizeof key, "key-%u", k);
            CHECK_STATUS(cf_delete(f, key, (size_t)n), CF_OK);
        }
        bytes after = serialize(f);
        REQUIRE(after.n >= 72);
        CHECK_EQ(after.p[CF__OFF_HASH_ID], 1);
        spec_filter sf = spec_open(after);
        for (unsigned k = 0; k < goods[i].keys + added + 500; k++) {
            int n = k < goods[i].keys ? snprintf(key, sizeof key, "key-%u", k)
                    : k < goods[i].keys + added
                        ? snprintf(key, sizeof key, "new-%u", k - goods[i].keys)
                        : snprintf(key, sizeof key, "absent-%u", k);
            CHECK_EQ(spec_contains(&sf, key, (size_t)n), cf_contains(f, key, (size_t)n));
        }
        free(after.p), free(again.p), free(frommap.p), free(disk.p);
        cf_free(f), cf_free(l), cf_free(m);
    }
    /* Every file in legacy/ has its recipe. */
    CHECK_EQ(files_in(DATA_DIR "/legacy", ""), legacy);
}

static int write_all(const char *dir) {
    char path[512];
    for (size_t i = 0; i < NGOOD; i++) {
        cf_filter *f = build(&goods[i]);
        if (snprintf(path, sizeof path, "%s/good/%s", dir, goods[i].name) >= (int)sizeof path)
            return 1;
        if (cf_save(f, path) != CF_OK) return fprintf(stderr, "cannot write %s\n", path), 1;
        cf_free(f);
    }
    make_all_bads();
    if (snprintf(path, sizeof path, "%s/bad/MANIFEST", dir) >= (int)sizeof path) return 1;
    FILE *mf = fopen(path, "w");
    if (mf == NULL) return fprintf(stderr, "cannot write %s\n", path), 1;
    fprintf(mf,
            "# file  expected status  # what is wrong (made from good/%s by "
            "tests/test_golden.c)\n",
            recipe_for(MAKES_BADS)->name);
    for (size_t i = 0; i < nbad; i++) {
        fprintf(mf, "%-32s %-16s # %s\n", bads[i].name, cf_status_name(bads[i].want), bads[i].why);
        if (snprintf(path, sizeof path, "%s/bad/%s", dir, bads[i].name) >= (int)sizeof path)
            return 1;
        FILE *fp = fopen(path, "wb");
        if (fp == NULL || fwrite(bads[i].data.p, 1, bads[i].data.n, fp) != bads[i].data.n)
            return fprintf(stderr, "cannot write %s\n", path), 1;
        fclose(fp);
        free(bads[i].data.p);
    }
    fclose(mf);
    return 0;
}

int main(int argc, char **argv) {
    spec_build_decode();
    if (argc == 3 && strcmp(argv[1], "--write") == 0) return write_all(argv[2]);
    static const test_case tests[] = {TEST(test_good_files), TEST(test_bad_files),
                                      TEST(test_spec_reader), TEST(test_legacy_files)};
    return test_run_all(tests, sizeof tests / sizeof tests[0]);
}
