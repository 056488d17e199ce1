/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_format.h -- the file format's constants and the pieces that
 * serialize.c (memory buffers) and io/ (files, mappings) share.
 * docs/FORMAT.md is the specification; this header only implements it.
 *
 *   offset 0            64                        64 + T       64 + T + 8
 *          ┌────────────┬─────────────────────────┬────────────┐
 *          │ header     │ bucket table (T bytes,  │ checksum   │
 *          │ (64 bytes) │ exactly as in memory)   │ XXH3-64    │
 *          └────────────┴─────────────────────────┴────────────┘
 *
 * The table starts 64 bytes into the file, so a mapping (page-aligned) holds
 * it cache-line aligned, and the 8-byte checksum trailer is the padding the
 * table accessors need after the last slot.
 */
#ifndef CF_FORMAT_H
#define CF_FORMAT_H

/* Header-only, as everywhere in the library (hash.h): no xxHash symbol is
 * exported, and every file sees the same inlined names. */
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "kind/chain.h"
#include "kind/handle.h"

#define CF__HEADER_SIZE 64u
#define CF__TRAILER_SIZE 8u
#define CF__FORMAT_VERSION 1u
#define CF__FORMAT_VERSION_CHAIN 2u /* CF_GROW filters: chain_format.c */
/* CF_GROW filters with CF_GROWTH_INPLACE: inplace_format.c (version 3
 * was never written: docs/FORMAT.md). */
#define CF__FORMAT_VERSION_INPLACE 4u
/* Expiring filters (cfg.expire_after): expiring_format.c.  7, not 5: no
 * single flipped bit turns 1, 2 or 4 into 7 (nor 7 into one of them), so a
 * damaged version field still reads as an unknown version. */
#define CF__FORMAT_VERSION_EXPIRING 7u
/* A CF_GROW chain that owes deletes (kind/pending.h): version 2's layout
 * with the ledger after the tables (chain_format.h).  Chains that owe none
 * keep writing version 2, byte for byte.  8 differs from 1, 2, 4 and 7 in
 * at least two bits, as 7 does from the others. */
#define CF__FORMAT_VERSION_CHAIN_OWED 8u

/* The version a filter of kind k is saved in (cf_stats.format_version): a
 * concurrent filter is saved as the plain table it is. */
static inline unsigned cf__format_version_of(cf__kind k) {
    switch (k) {
    case CF__PLAIN:
    case CF__CONCURRENT: return CF__FORMAT_VERSION;
    case CF__CHAIN: return CF__FORMAT_VERSION_CHAIN;
    case CF__INPLACE: return CF__FORMAT_VERSION_INPLACE;
    case CF__EXPIRING: return CF__FORMAT_VERSION_EXPIRING;
    }
    __builtin_unreachable();
}

/* The version f is saved in: its kind's, but a chain that owes deletes
 * writes version 8 (cf_stats.format_version). */
static inline unsigned cf__format_version(const cf_filter *f) {
    if (f->kind == CF__CHAIN && cf__chain_of(f)->pending.count != 0)
        return CF__FORMAT_VERSION_CHAIN_OWED;
    return cf__format_version_of(f->kind);
}

/* Offsets of the header fields (docs/FORMAT.md, "Header"). */
enum {
    CF__OFF_MAGIC = 0,
    CF__OFF_VERSION = 8,
    CF__OFF_FP_BITS = 10,
    CF__OFF_BUCKET_SIZE = 11,
    CF__OFF_HASH_ID = 12,
    CF__OFF_RESERVED = 13,
    CF__OFF_FLAGS = 14,
    CF__OFF_NUM_BUCKETS = 16,
    CF__OFF_SEED = 24,
    CF__OFF_ITEMS = 32,
    CF__OFF_TOTAL_KICKS = 40,
    CF__OFF_FAILED_INSERTS = 48,
    CF__OFF_MAX_KICKS = 56,
    CF__OFF_HEADER_CHECK = 60,
};

extern const uint8_t cf__magic[8];

/* A decoded, validated header and the sizes it implies. */
typedef struct cf__header {
    unsigned version;
    unsigned fp_bits;
    unsigned bucket_size;
    unsigned hash_id; /* the partner map: CF__MAP_MIXED or CF__MAP_GOLDEN */
    unsigned flags;
    unsigned max_kicks;
    uint64_t num_buckets;
    uint64_t seed;
    uint64_t items;
    uint64_t total_kicks;
    uint64_t failed_inserts;
    size_t table_bytes; /* T = ceil(nb * B / 8), B = b * f or 4f - 4 semi-sorted */
    size_t total_size;  /* 64 + T + 8: the exact length of a valid input */
} cf__header;

/* The low 32 bits of XXH3-64 of a header's first 60 bytes: the check at
 * offset 60 of both header kinds (version 1 and the version-2 file header). */
uint32_t cf__header_check(const uint8_t *header);

/* Encodes f's header (64 bytes, header check included). */
void cf__header_encode(const cf_filter *f, uint8_t out[CF__HEADER_SIZE]);

/* Decodes and validates the header of an input of input_len bytes, of which
 * buf holds the first min(input_len, 64).  Checks, in this order: magic,
 * version, header check, every field, the sizes they imply, and input_len
 * against the exact size.  Reads nothing else; allocates nothing. */
cf_status cf__header_decode(const uint8_t *buf, uint64_t input_len, cf__header *h);

/* Which reader an input is for: a version-1 image of one table
 * (cf__header_decode and serialize.c, also for every input that is no
 * filter at all: they say what is wrong), a version-2 chain of them
 * (chain_format.c), a version-4 in-place grown table
 * (inplace_format.c) or a version-7 expiring table (expiring_format.c).  The one place that routes inputs by version. */
typedef enum cf__image_kind {
    CF__IMAGE_TABLE,
    CF__IMAGE_CHAIN,
    CF__IMAGE_INPLACE,
    CF__IMAGE_EXPIRING /* version 7: expiring_format.c */
} cf__image_kind;

/* The reader of an input of input_len bytes of which buf holds the first
 * min(input_len, 64): reads the magic and the version only. */
cf__image_kind cf__image_probe(const uint8_t *buf, uint64_t input_len);

/* The same, for a table record followed by more input: everything but the
 * last check (input_len may exceed the record's size). */
cf_status cf__header_decode_prefix(const uint8_t *buf, uint64_t input_len, cf__header *h);

/* A filter (handle and table) from a validated header and the T bytes of
 * its table, whose checksum has been verified; checks the table's
 * invariants (cf__check_table). */
cf_status cf__table_from_bytes(const cf__header *h, const uint8_t *table, const cf_allocator *a,
                               cf_filter **out);

/* An image is a header, its table and a trailer holding XXH3-64 (seed 0) of
 * the header followed by the table.  These are the one owner of that rule:
 * every writer and reader of images (buffers, files, mappings, grown
 * files' records, ranges) goes through them.  The in-place and expiring
 * forms (versions 4 and 7) are framed the same way around headers of their
 * own size: cf__form_checksum and cf__form_range serve all three. */

/* XXH3-64 of a header of header_size bytes followed by the table. */
uint64_t cf__form_checksum(const uint8_t *header, size_t header_size, const uint8_t *table,
                           size_t table_bytes);

/* The bytes [offset, offset + len) of the form made of header (encoded by
 * the caller), table and their trailer; the caller keeps the range within
 * the form.  Only a range that reaches the trailer hashes the table. */
void cf__form_range(const uint8_t *header, size_t header_size, const uint8_t *table,
                    size_t table_bytes, uint64_t offset, uint8_t *dst, size_t len);

/* XXH3-64 (seed 0) fed piece by piece, out of line so that its code exists
 * once (xxhash.h is inlined into each file that calls it): for bytes made
 * as they are hashed, such as version 8's ledger (chain_format.c). */
void cf__checksum_reset(XXH3_state_t *state);
void cf__checksum_update(XXH3_state_t *state, const void *p, size_t n);
uint64_t cf__checksum_digest(const XXH3_state_t *state);

/* Starts the trailer's checksum with the header (cf_load then feeds the
 * table chunk by chunk as it reads it), and tells whether the state so fed
 * gives trailer. */
void cf__checksum_begin(XXH3_state_t *state, const uint8_t header[CF__HEADER_SIZE]);
bool cf__checksum_ok(const XXH3_state_t *state, const uint8_t trailer[CF__TRAILER_SIZE]);

/* The trailer of the image made of header and table. */
void cf__image_trailer(const uint8_t header[CF__HEADER_SIZE], const uint8_t *table,
                       size_t table_bytes, uint8_t trailer[CF__TRAILER_SIZE]);

/* True when trailer is the one of header and table. */
bool cf__image_trailer_ok(const uint8_t header[CF__HEADER_SIZE], const uint8_t *table,
                          size_t table_bytes, const uint8_t trailer[CF__TRAILER_SIZE]);

/* True when the contiguous image at img (header, table_bytes of table,
 * trailer) carries the right trailer. */
static inline bool cf__image_ok(const uint8_t *img, size_t table_bytes) {
    return cf__image_trailer_ok(img, img + CF__HEADER_SIZE, table_bytes,
                                img + CF__HEADER_SIZE + table_bytes);
}

/* Bytes of the image of the single table t: header, table, trailer. */
size_t cf__image_size(const cf_filter *t);

/* Writes the image of t to dst (cf__image_size(t) bytes). */
void cf__image_encode(const cf_filter *t, uint8_t *dst);

/* The single table (a plain filter) of the version-1 image of len bytes at
 * in: header, checksum and table invariants checked. */
cf_status cf__image_decode(const uint8_t *in, size_t len, const cf_allocator *a, cf_filter **out);

/* Bytes [offset, offset + len) of t's image, within it (serialize_range.c). */
void cf__image_range(const cf_filter *t, uint64_t offset, uint8_t *dst, size_t len);

/* Builds a handle (no table) with every parameter and statistic of h. */
cf_status cf__filter_from_header(const cf__header *h, const cf_allocator *a, cf_filter **out);

/* Nonzero slots among slots [first, end) of an f-bit table.  Reads up to 7
 * bytes past the byte holding slot end - 1 (masked out). */
uint64_t cf__count_slots(const uint8_t *table, uint64_t first, uint64_t end, unsigned f);

/* CF_E_CORRUPT unless the bits after the last slot, in the table's last
 * byte, are all zero. */
cf_status cf__check_padding(const cf_filter *f);

/* Checks the invariants of a table in place: the padding bits after the last
 * slot are zero and the nonzero slots number exactly f->items.  O(table). */
cf_status cf__check_table(const cf_filter *f);

static inline uint64_t cf__get_le(const uint8_t *p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static inline void cf__put_le(uint8_t *p, uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* A double's IEEE-754 bits, as files store FPP bounds, and back. */
static inline uint64_t cf__double_bits(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static inline double cf__bits_double(uint64_t u) {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

#endif /* CF_FORMAT_H */
