/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * expiring_format.c -- an expiring filter to bytes and back: format
 * version 7 (docs/FORMAT.md, "Expiring filters").
 *
 *   offset 0             128                           128 + T     128 + T + 8
 *          ┌─────────────┬─────────────────────────────┬───────────┐
 *          │ header      │ table: nb buckets of b      │ XXH3-64 of│
 *          │ (128 bytes) │ slots of f + s bits, packed,│ header and│
 *          │             │ as in memory                │ table     │
 *          └─────────────┴─────────────────────────────┴───────────┘
 *
 * The first ten bytes are every version's (magic, version), so older
 * readers refuse it with CF_E_VERSION; cf__image_probe routes it here.
 * The header holds the shape, the stamp width and window (k stamps of
 * span time units), and the clock (now; its tick is now / span, counted
 * from time 0).  A reader checks the magic, the version, a 32-bit check of
 * the header, every field (the derived ones against the rules that derive
 * them) and the exact size before allocating, then the trailer, then every
 * slot (kind/expiring.c: cf__expiring_check_table) and the padding.
 */
#include "format/expiring_format.h"
#include "table/table.h"

enum {
    CF__XPF_OFF_VERSION = 8,
    CF__XPF_OFF_FP_BITS = 10,
    CF__XPF_OFF_BUCKET_SIZE = 11,
    CF__XPF_OFF_STAMP_BITS = 12,
    CF__XPF_OFF_HASH_ID = 13,
    CF__XPF_OFF_FLAGS = 14,
    CF__XPF_OFF_NUM_BUCKETS = 16,
    CF__XPF_OFF_SEED = 24,
    CF__XPF_OFF_ITEMS = 32,
    CF__XPF_OFF_TOTAL_KICKS = 40,
    CF__XPF_OFF_FAILED = 48,
    CF__XPF_OFF_MAX_KICKS = 56,
    CF__XPF_OFF_STAMPS = 60,
    CF__XPF_OFF_EXPIRE_AFTER = 64,
    CF__XPF_OFF_SPAN = 72,
    CF__XPF_OFF_NOW = 80,
    CF__XPF_OFF_ZEROS = 88, /* 36 reserved bytes, zero */
    CF__XPF_OFF_CHECK = 124,
};

void cf__expiring_header_encode(const cf_filter *f, uint8_t out[CF__EXPIRING_HEADER_SIZE]) {
    const cf__expiring *e = cf__expiring_of(f);
    memset(out, 0, CF__EXPIRING_HEADER_SIZE);
    memcpy(out, cf__magic, sizeof cf__magic);
    cf__put_le(out + CF__XPF_OFF_VERSION, CF__FORMAT_VERSION_EXPIRING, 2);
    out[CF__XPF_OFF_FP_BITS] = (uint8_t)e->fp_bits;
    out[CF__XPF_OFF_BUCKET_SIZE] = (uint8_t)f->t.bucket_size;
    out[CF__XPF_OFF_STAMP_BITS] = (uint8_t)e->stamp_bits;
    out[CF__XPF_OFF_HASH_ID] = (uint8_t)f->t.partner_map;
    cf__put_le(out + CF__XPF_OFF_NUM_BUCKETS, f->t.num_buckets, 8);
    cf__put_le(out + CF__XPF_OFF_SEED, f->t.seed, 8);
    cf__put_le(out + CF__XPF_OFF_ITEMS, f->t.items, 8);
    cf__put_le(out + CF__XPF_OFF_TOTAL_KICKS, f->t.total_kicks, 8);
    cf__put_le(out + CF__XPF_OFF_FAILED, f->t.failed_inserts, 8);
    cf__put_le(out + CF__XPF_OFF_MAX_KICKS, f->t.max_kicks, 4);
    cf__put_le(out + CF__XPF_OFF_STAMPS, e->stamps, 4);
    cf__put_le(out + CF__XPF_OFF_EXPIRE_AFTER, e->expire_after, 8);
    cf__put_le(out + CF__XPF_OFF_SPAN, e->span, 8);
    cf__put_le(out + CF__XPF_OFF_NOW, e->now, 8);
    cf__put_le(out + CF__XPF_OFF_CHECK, (uint32_t)XXH3_64bits(out, CF__XPF_OFF_CHECK), 4);
}

cf_status cf__expiring_header_decode_prefix(const uint8_t *buf, uint64_t len, cf__expiring_hdr *h) {
    memset(h, 0, sizeof *h);
    size_t have = len < CF__EXPIRING_HEADER_SIZE ? (size_t)len : CF__EXPIRING_HEADER_SIZE;
    size_t magic_have = have < sizeof cf__magic ? have : sizeof cf__magic;
    CF__RETURN_IF(memcmp(buf, cf__magic, magic_have) != 0, CF_E_MAGIC);
    CF__RETURN_IF(have < CF__XPF_OFF_VERSION + 2, CF_E_TRUNCATED);
    CF__RETURN_IF(cf__get_le(buf + CF__XPF_OFF_VERSION, 2) != CF__FORMAT_VERSION_EXPIRING,
                  CF_E_VERSION);
    CF__RETURN_IF(have < CF__EXPIRING_HEADER_SIZE, CF_E_TRUNCATED);
    CF__RETURN_IF(cf__get_le(buf + CF__XPF_OFF_CHECK, 4) !=
                      (uint32_t)XXH3_64bits(buf, CF__XPF_OFF_CHECK),
                  CF_E_CHECKSUM);
    h->fp_bits = buf[CF__XPF_OFF_FP_BITS];
    h->bucket_size = buf[CF__XPF_OFF_BUCKET_SIZE];
    h->stamp_bits = buf[CF__XPF_OFF_STAMP_BITS];
    h->num_buckets = cf__get_le(buf + CF__XPF_OFF_NUM_BUCKETS, 8);
    h->seed = cf__get_le(buf + CF__XPF_OFF_SEED, 8);
    h->items = cf__get_le(buf + CF__XPF_OFF_ITEMS, 8);
    h->total_kicks = cf__get_le(buf + CF__XPF_OFF_TOTAL_KICKS, 8);
    h->failed = cf__get_le(buf + CF__XPF_OFF_FAILED, 8);
    h->max_kicks = (unsigned)cf__get_le(buf + CF__XPF_OFF_MAX_KICKS, 4);
    h->expire_after = cf__get_le(buf + CF__XPF_OFF_EXPIRE_AFTER, 8);
    h->now = cf__get_le(buf + CF__XPF_OFF_NOW, 8);
    uint64_t stamps = cf__get_le(buf + CF__XPF_OFF_STAMPS, 4);
    uint64_t span = cf__get_le(buf + CF__XPF_OFF_SPAN, 8);
    /* Every field a writer derives must be what it derives. */
    CF__RETURN_IF(h->fp_bits < 1 || cf__expiring_stamp_bits(h->fp_bits, h->bucket_size) == 0 ||
                      h->stamp_bits != cf__expiring_stamp_bits(h->fp_bits, h->bucket_size),
                  CF_E_CORRUPT);
    CF__RETURN_IF(cf__check_shape(h->fp_bits + h->stamp_bits, h->bucket_size, h->num_buckets,
                                  h->max_kicks, 0) != CF_OK,
                  CF_E_CORRUPT);
    CF__RETURN_IF(buf[CF__XPF_OFF_HASH_ID] != CF__MAP_MIXED ||
                      cf__get_le(buf + CF__XPF_OFF_FLAGS, 2) != 0,
                  CF_E_CORRUPT);
    for (unsigned i = CF__XPF_OFF_ZEROS; i < CF__XPF_OFF_CHECK; i++)
        CF__RETURN_IF(buf[i] != 0, CF_E_CORRUPT);
    CF__RETURN_IF(h->expire_after == 0 ||
                      stamps != cf__expiring_stamps(h->stamp_bits, h->expire_after),
                  CF_E_CORRUPT);
    CF__RETURN_IF(span != h->expire_after / stamps + (h->expire_after % stamps != 0), CF_E_CORRUPT);
    size_t bytes;
    CF__FORWARD_IF_ERROR(
        cf__table_bytes(h->num_buckets, h->bucket_size, h->fp_bits + h->stamp_bits, 0, &bytes));
    /* (nb * b cannot overflow once cf__table_bytes accepted it.) */
    CF__RETURN_IF(h->items > h->num_buckets * h->bucket_size, CF_E_CORRUPT);
    CF__RETURN_IF(bytes > SIZE_MAX - CF__EXPIRING_HEADER_SIZE - CF__TRAILER_SIZE, CF_E_TOO_LARGE);
    h->table_bytes = bytes;
    h->total_size = CF__EXPIRING_HEADER_SIZE + bytes + CF__TRAILER_SIZE;
    CF__RETURN_IF(len < h->total_size, CF_E_TRUNCATED);
    return CF_OK;
}

cf_status cf__expiring_header_decode(const uint8_t *buf, uint64_t len, cf__expiring_hdr *h) {
    CF__FORWARD_IF_ERROR(cf__expiring_header_decode_prefix(buf, len, h));
    CF__RETURN_IF(len > h->total_size, CF_E_CORRUPT); /* trailing bytes */
    return CF_OK;
}

uint64_t cf__expiring_checksum(const uint8_t *header, const uint8_t *table, size_t bytes) {
    return cf__form_checksum(header, CF__EXPIRING_HEADER_SIZE, table, bytes);
}

cf_status cf__expiring_from_header(const cf__expiring_hdr *h, const cf_allocator *a,
                                   cf_filter **out) {
    cf_filter *f;
    CF__FORWARD_IF_ERROR(cf__expiring_make(a, h->num_buckets, h->bucket_size, h->fp_bits,
                                           h->max_kicks, h->expire_after, &f));
    cf__set_seed(&f->t, h->seed);
    f->t.items = h->items;
    f->t.total_kicks = h->total_kicks;
    f->t.failed_inserts = h->failed;
    f->t.table_bytes = h->table_bytes;
    cf__expiring *e = cf__expiring_of(f);
    e->now = h->now;
    cf__expiring_derive(e, &f->t);
    *out = f;
    return CF_OK;
}

size_t cf__expiring_serialized_size(const cf_filter *f) {
    return CF__EXPIRING_HEADER_SIZE + f->t.table_bytes + CF__TRAILER_SIZE;
}

void cf__expiring_serialize(const cf_filter *f, uint8_t *dst) {
    cf__expiring_range(f, 0, dst, cf__expiring_serialized_size(f));
}

/* As cf__inplace_range: the header encoded, the table copied, and only a
 * range that reaches the trailer hashes the whole table. */
void cf__expiring_range(const cf_filter *f, uint64_t offset, uint8_t *dst, size_t len) {
    uint8_t header[CF__EXPIRING_HEADER_SIZE];
    cf__expiring_header_encode(f, header);
    cf__form_range(header, CF__EXPIRING_HEADER_SIZE, f->t.table, f->t.table_bytes, offset, dst,
                   len);
}

cf_status cf__expiring_deserialize(const uint8_t *in, size_t len, const cf_allocator *a,
                                   cf_filter **out) {
    cf__expiring_hdr h;
    CF__FORWARD_IF_ERROR(cf__expiring_header_decode(in, len, &h));
    const uint8_t *table = in + CF__EXPIRING_HEADER_SIZE;
    CF__RETURN_IF(cf__get_le(table + h.table_bytes, CF__TRAILER_SIZE) !=
                      cf__expiring_checksum(in, table, h.table_bytes),
                  CF_E_CHECKSUM);
    cf_filter *f;
    CF__FORWARD_IF_ERROR(cf__expiring_from_header(&h, a, &f));
    cf_status s = cf__table_alloc(&f->t, false);
    if (s == CF_OK) {
        memcpy(f->t.table, table, h.table_bytes);
        s = cf__check_padding(f);
    }
    if (s == CF_OK) s = cf__expiring_check_table(f);
    if (s != CF_OK) {
        cf__expiring_free(f);
        return s;
    }
    *out = f;
    return CF_OK;
}
