/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * serialize.c -- a filter to bytes and back (format: docs/FORMAT.md).
 *
 *   ┌──────── header, 64 bytes ────────┐┌── table ──┐┌ trailer ┐
 *   magic version f b hash - flags nb seed items kicks fails max_kicks hcheck
 *     8     2     1 1  1   1   2    8   8    8     8     8      4       4
 *
 * A reader trusts nothing: cf__header_decode checks the magic, the version,
 * a 32-bit check of the header alone (so a mapped file's parameters are
 * trustworthy without reading the table), every field and the sizes they
 * imply, all before a byte is allocated; the table's size must be exactly
 * what the input holds.  Then the XXH3-64 trailer over header and table,
 * then the table's own invariants (padding bits zero, item count right).
 *
 * Writing is deterministic: the same filter always gives the same bytes, so
 * "serialize, deserialize, serialize" is byte-identical (the fuzzers check).
 */
#include "format/cf_format.h"
#include "table/table.h"

/* PNG's trick: a non-ASCII first byte (catches 7-bit channels and text
 * sniffing), CR LF (catches newline translation), ^Z (stops DOS `type`) and
 * a final LF (catches LF -> CRLF); "CKF" makes it readable in a hex dump. */
const uint8_t cf__magic[8] = {0x89, 'C', 'K', 'F', '\r', '\n', 0x1a, '\n'};

uint32_t cf__header_check(const uint8_t *header) {
    return (uint32_t)XXH3_64bits(header, CF__OFF_HEADER_CHECK);
}

void cf__header_encode(const cf_filter *f, uint8_t out[CF__HEADER_SIZE]) {
    memset(out, 0, CF__HEADER_SIZE);
    memcpy(out + CF__OFF_MAGIC, cf__magic, sizeof cf__magic);
    cf__put_le(out + CF__OFF_VERSION, CF__FORMAT_VERSION, 2);
    out[CF__OFF_FP_BITS] = (uint8_t)f->t.fp_bits;
    out[CF__OFF_BUCKET_SIZE] = (uint8_t)f->t.bucket_size;
    out[CF__OFF_HASH_ID] = (uint8_t)f->t.partner_map;
    cf__put_le(out + CF__OFF_FLAGS, f->t.flags, 2);
    cf__put_le(out + CF__OFF_NUM_BUCKETS, f->t.num_buckets, 8);
    cf__put_le(out + CF__OFF_SEED, f->t.seed, 8);
    cf__put_le(out + CF__OFF_ITEMS, f->t.items, 8);
    cf__put_le(out + CF__OFF_TOTAL_KICKS, f->t.total_kicks, 8);
    cf__put_le(out + CF__OFF_FAILED_INSERTS, f->t.failed_inserts, 8);
    cf__put_le(out + CF__OFF_MAX_KICKS, f->t.max_kicks, 4);
    cf__put_le(out + CF__OFF_HEADER_CHECK, cf__header_check(out), 4);
}

cf_status cf__header_decode_prefix(const uint8_t *buf, uint64_t input_len, cf__header *h) {
    memset(h, 0, sizeof *h);
    size_t have = input_len < CF__HEADER_SIZE ? (size_t)input_len : CF__HEADER_SIZE;
    size_t magic_have = have < sizeof cf__magic ? have : sizeof cf__magic;
    /* A prefix of the magic is a truncated file; anything else is not ours. */
    CF__RETURN_IF(memcmp(buf, cf__magic, magic_have) != 0, CF_E_MAGIC);
    CF__RETURN_IF(have < CF__OFF_VERSION + 2, CF_E_TRUNCATED);
    /* The version is read before anything else so that a later version may
     * change everything after it. */
    h->version = (unsigned)cf__get_le(buf + CF__OFF_VERSION, 2);
    CF__RETURN_IF(h->version != CF__FORMAT_VERSION, CF_E_VERSION);
    CF__RETURN_IF(have < CF__HEADER_SIZE, CF_E_TRUNCATED);
    CF__RETURN_IF(cf__get_le(buf + CF__OFF_HEADER_CHECK, 4) != cf__header_check(buf),
                  CF_E_CHECKSUM);

    h->fp_bits = buf[CF__OFF_FP_BITS];
    h->bucket_size = buf[CF__OFF_BUCKET_SIZE];
    h->hash_id = buf[CF__OFF_HASH_ID];
    h->flags = (unsigned)cf__get_le(buf + CF__OFF_FLAGS, 2);
    h->num_buckets = cf__get_le(buf + CF__OFF_NUM_BUCKETS, 8);
    h->seed = cf__get_le(buf + CF__OFF_SEED, 8);
    h->items = cf__get_le(buf + CF__OFF_ITEMS, 8);
    h->total_kicks = cf__get_le(buf + CF__OFF_TOTAL_KICKS, 8);
    h->failed_inserts = cf__get_le(buf + CF__OFF_FAILED_INSERTS, 8);
    h->max_kicks = (unsigned)cf__get_le(buf + CF__OFF_MAX_KICKS, 4);

    CF__RETURN_IF(h->hash_id != CF__MAP_MIXED && h->hash_id != CF__MAP_GOLDEN, CF_E_CORRUPT);
    CF__RETURN_IF(buf[CF__OFF_RESERVED] != 0, CF_E_CORRUPT);
    CF__RETURN_IF(cf__check_shape(h->fp_bits, h->bucket_size, h->num_buckets, h->max_kicks,
                                  h->flags) != CF_OK,
                  CF_E_CORRUPT);
    /* Slots are counted in 64 bits before any byte count is formed. */
    CF__FORWARD_IF_ERROR(
        cf__table_bytes(h->num_buckets, h->bucket_size, h->fp_bits, h->flags, &h->table_bytes));
    CF__RETURN_IF(h->table_bytes > SIZE_MAX - CF__HEADER_SIZE - CF__TRAILER_SIZE, CF_E_TOO_LARGE);
    h->total_size = CF__HEADER_SIZE + h->table_bytes + CF__TRAILER_SIZE;
    CF__RETURN_IF(h->items > h->num_buckets * h->bucket_size, CF_E_CORRUPT);

    CF__RETURN_IF(input_len < h->total_size, CF_E_TRUNCATED);
    return CF_OK;
}

cf__image_kind cf__image_probe(const uint8_t *buf, uint64_t input_len) {
    if (input_len < CF__OFF_VERSION + 2 || memcmp(buf, cf__magic, sizeof cf__magic) != 0)
        return CF__IMAGE_TABLE;
    switch (cf__get_le(buf + CF__OFF_VERSION, 2)) {
    case CF__FORMAT_VERSION_CHAIN:
    case CF__FORMAT_VERSION_CHAIN_OWED: return CF__IMAGE_CHAIN;
    case CF__FORMAT_VERSION_INPLACE: return CF__IMAGE_INPLACE;
    case CF__FORMAT_VERSION_EXPIRING: return CF__IMAGE_EXPIRING;
    default: return CF__IMAGE_TABLE;
    }
}

cf_status cf__header_decode(const uint8_t *buf, uint64_t input_len, cf__header *h) {
    CF__FORWARD_IF_ERROR(cf__header_decode_prefix(buf, input_len, h));
    CF__RETURN_IF(input_len > h->total_size, CF_E_CORRUPT); /* trailing bytes */
    return CF_OK;
}

void cf__checksum_reset(XXH3_state_t *state) {
    XXH3_INITSTATE(state);
    XXH3_64bits_reset(state);
}

void cf__checksum_update(XXH3_state_t *state, const void *p, size_t n) {
    XXH3_64bits_update(state, p, n);
}

uint64_t cf__checksum_digest(const XXH3_state_t *state) {
    return XXH3_64bits_digest(state);
}

void cf__checksum_begin(XXH3_state_t *state, const uint8_t header[CF__HEADER_SIZE]) {
    cf__checksum_reset(state);
    cf__checksum_update(state, header, CF__HEADER_SIZE);
}

bool cf__checksum_ok(const XXH3_state_t *state, const uint8_t trailer[CF__TRAILER_SIZE]) {
    return cf__get_le(trailer, CF__TRAILER_SIZE) == XXH3_64bits_digest(state);
}

/* The forms of one header, the table's bytes and their trailer: version 1's
 * images here, and the in-place and expiring forms (versions 4 and 7). */
uint64_t cf__form_checksum(const uint8_t *header, size_t header_size, const uint8_t *table,
                           size_t table_bytes) {
    XXH3_state_t state; /* on the stack: the library allocates only via the filter */
    XXH3_INITSTATE(&state);
    XXH3_64bits_reset(&state);
    XXH3_64bits_update(&state, header, header_size);
    XXH3_64bits_update(&state, table, table_bytes);
    return XXH3_64bits_digest(&state);
}

void cf__form_range(const uint8_t *header, size_t header_size, const uint8_t *table,
                    size_t table_bytes, uint64_t offset, uint8_t *dst, size_t len) {
    uint64_t table_end = header_size + (uint64_t)table_bytes;
    while (len > 0) {
        size_t n;
        if (offset < header_size) {
            n = header_size - (size_t)offset < len ? header_size - (size_t)offset : len;
            memcpy(dst, header + offset, n);
        } else if (offset < table_end) {
            uint64_t left = table_end - offset;
            n = left < len ? (size_t)left : len;
            memcpy(dst, table + (offset - header_size), n);
        } else {
            /* The trailer: the only part that needs the whole table. */
            uint8_t trailer[CF__TRAILER_SIZE];
            cf__put_le(trailer, cf__form_checksum(header, header_size, table, table_bytes),
                       CF__TRAILER_SIZE);
            n = len; /* the caller keeps the range within the form */
            memcpy(dst, trailer + (offset - table_end), n);
        }
        dst += n;
        offset += n;
        len -= n;
    }
}

static uint64_t cf__image_checksum(const uint8_t header[CF__HEADER_SIZE], const uint8_t *table,
                                   size_t table_bytes) {
    return cf__form_checksum(header, CF__HEADER_SIZE, table, table_bytes);
}

void cf__image_trailer(const uint8_t header[CF__HEADER_SIZE], const uint8_t *table,
                       size_t table_bytes, uint8_t trailer[CF__TRAILER_SIZE]) {
    cf__put_le(trailer, cf__image_checksum(header, table, table_bytes), CF__TRAILER_SIZE);
}

bool cf__image_trailer_ok(const uint8_t header[CF__HEADER_SIZE], const uint8_t *table,
                          size_t table_bytes, const uint8_t trailer[CF__TRAILER_SIZE]) {
    return cf__get_le(trailer, CF__TRAILER_SIZE) == cf__image_checksum(header, table, table_bytes);
}

cf_status cf__filter_from_header(const cf__header *h, const cf_allocator *a, cf_filter **out) {
    cf_filter *f;
    CF__FORWARD_IF_ERROR(cf__filter_alloc(a, h->num_buckets, h->bucket_size, h->fp_bits, h->flags,
                                          h->max_kicks, &f));
    f->t.table_bytes = h->table_bytes;
    f->t.items = h->items;
    cf__set_seed(&f->t, h->seed);
    f->t.total_kicks = h->total_kicks;
    f->t.failed_inserts = h->failed_inserts;
    f->t.partner_map = h->hash_id;
    cf__derive_layout(&f->t);
    *out = f;
    return CF_OK;
}

/* Nonzero f-bit slots in [first, end), several per 64-bit load.  Within a
 * load, lanes of f bits: adding the low f-1 bits of each lane to all-ones
 * carries into the lane's top bit exactly when those bits are nonzero, and
 * never past it, so popcount(((w & L) + L | w) & H) is the number of nonzero
 * lanes.  (cf__count_occupied does the same slot by slot, several times
 * slower on a gigabyte table; tests check that both agree.)  Loads may read
 * up to 7 bytes past the last slot's byte, masked out. */
static inline __attribute__((always_inline)) uint64_t
cf__count_run(const uint8_t *table, uint64_t first, uint64_t end, unsigned f) {
    /* A load shifted by up to 7 bits still holds 57 whole bits. */
    unsigned per = 57 / f;
    uint64_t highs = 0;
    for (unsigned i = 0; i < per; i++) highs |= (uint64_t)1 << (i * f + f - 1);
    uint64_t all = ((uint64_t)1 << (per * f)) - 1; /* per * f <= 57 */
    uint64_t lows = all & ~highs;
    uint64_t n = 0, s = first;
    for (; s + per <= end; s += per) {
        uint64_t w = cf__bits_at(table, s * f) & all;
        n += (uint64_t)__builtin_popcountll((((w & lows) + lows) | w) & highs);
    }
    uint64_t mask = ((uint64_t)1 << f) - 1;
    for (; s < end; s++) {
        n += (cf__bits_at(table, s * f) & mask) != 0;
    }
    return n;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same with the popcnt instruction: twice as fast as the portable
 * bit-trick popcount on a gigabyte table.  Chosen at run time. */
__attribute__((target("popcnt"))) static uint64_t
cf__count_run_popcnt(const uint8_t *table, uint64_t first, uint64_t end, unsigned f) {
    return cf__count_run(table, first, end, f);
}
#endif

uint64_t cf__count_slots(const uint8_t *table, uint64_t first, uint64_t end, unsigned f) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("popcnt")) return cf__count_run_popcnt(table, first, end, f);
#endif
    return cf__count_run(table, first, end, f);
}

cf_status cf__check_padding(const cf_filter *f) {
    unsigned used =
        (unsigned)((f->t.num_buckets * f->t.bucket_bits) % 8); /* bits in the last byte */
    CF__RETURN_IF(used != 0 && (f->t.table[f->t.table_bytes - 1] >> used) != 0, CF_E_CORRUPT);
    return CF_OK;
}

cf_status cf__check_table(const cf_filter *f) {
    CF__FORWARD_IF_ERROR(cf__check_padding(f));
    if (f->t.semi_sort) return cf__check_semisorted(&f->t);
    uint64_t slots = f->t.num_buckets * f->t.bucket_size;
    CF__RETURN_IF(cf__count_slots(f->t.table, 0, slots, f->t.fp_bits) != f->t.items, CF_E_CORRUPT);
    return CF_OK;
}

size_t cf__image_size(const cf_filter *t) {
    return CF__HEADER_SIZE + t->t.table_bytes + CF__TRAILER_SIZE;
}

void cf__image_encode(const cf_filter *t, uint8_t *dst) {
    uint8_t header[CF__HEADER_SIZE];
    cf__header_encode(t, header);
    cf__form_range(header, CF__HEADER_SIZE, t->t.table, t->t.table_bytes, 0, dst,
                   cf__image_size(t));
}

cf_status cf__image_decode(const uint8_t *in, size_t len, const cf_allocator *a, cf_filter **out) {
    cf__header h;
    CF__FORWARD_IF_ERROR(cf__header_decode(in, len, &h));
    CF__RETURN_IF(!cf__image_ok(in, h.table_bytes), CF_E_CHECKSUM);
    return cf__table_from_bytes(&h, in + CF__HEADER_SIZE, a, out);
}

cf_status cf__table_from_bytes(const cf__header *h, const uint8_t *table, const cf_allocator *a,
                               cf_filter **out) {
    cf_filter *f;
    CF__FORWARD_IF_ERROR(cf__filter_from_header(h, a, &f));
    if (cf__table_alloc(&f->t, false) != CF_OK) {
        cf__handle_free_plain(f);
        return CF_E_NOMEM;
    }
    memcpy(f->t.table, table, h->table_bytes);
    cf_status s = cf__check_table(f);
    if (s != CF_OK) {
        cf__handle_free_plain(f);
        return s;
    }
    *out = f;
    return CF_OK;
}
