/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * inplace_format.c -- a CF_GROWTH_INPLACE filter to bytes and back:
 * format version 4 (docs/FORMAT.md, "In-place grown filters").
 *
 *   offset 0             128                          128 + T     128 + T + 8
 *          ┌─────────────┬────────────────────────────┬───────────┐
 *          │ header      │ table: 2^k buckets of 4    │ XXH3-64 of│
 *          │ (128 bytes) │ slots of W bits, packed,   │ header and│
 *          │             │ as in memory (2^k * W / 2) │ table     │
 *          └─────────────┴────────────────────────────┴───────────┘
 *
 * The first ten bytes are those of every version (magic, version), so a
 * reader of versions 1 and 2 (and 3, which no file has: see FORMAT.md)
 * refuses it with CF_E_VERSION; cf__image_probe routes it here.  The file
 * paths (load, map, save) are io/inplace_io.c's.  The table
 * starts 128 bytes in, so a mapping holds it aligned and uses it in place.
 * A reader checks the magic, the version, a 32-bit check of the header,
 * every field and the exact size before allocating, then the trailer, then
 * every slot (empty, or a marker that leaves at least the tag) and the
 * entry count and weight the header states.
 */
#include "format/inplace_format.h"

enum {
    CF__INPLACE_OFF_VERSION = 8,
    CF__INPLACE_OFF_SLOT_BITS = 10,
    CF__INPLACE_OFF_TAG_BITS = 11,
    CF__INPLACE_OFF_LEVEL = 12,
    CF__INPLACE_OFF_RESERVED = 13,
    CF__INPLACE_OFF_FLAGS = 14,
    CF__INPLACE_OFF_SEED = 16,
    CF__INPLACE_OFF_ITEMS = 24,
    CF__INPLACE_OFF_ENTRIES = 32,
    CF__INPLACE_OFF_WEIGHT = 40,
    CF__INPLACE_OFF_TARGET = 48,
    CF__INPLACE_OFF_MAX_BYTES = 56,
    CF__INPLACE_OFF_FULL = 64,
    CF__INPLACE_OFF_DOUBLINGS = 72,
    CF__INPLACE_OFF_TOTAL_KICKS = 80,
    CF__INPLACE_OFF_FAILED = 88,
    CF__INPLACE_OFF_MAX_KICKS = 96,
    CF__INPLACE_OFF_ZEROS = 100, /* 24 reserved bytes, zero */
    CF__INPLACE_OFF_CHECK = 124,
};

void cf__inplace_header_encode(const cf_filter *f, uint8_t out[CF__INPLACE_HEADER_SIZE]) {
    const cf__inplace *ip = cf__inplace_of(f);
    memset(out, 0, CF__INPLACE_HEADER_SIZE);
    memcpy(out, cf__magic, sizeof cf__magic);
    cf__put_le(out + CF__INPLACE_OFF_VERSION, CF__FORMAT_VERSION_INPLACE, 2);
    out[CF__INPLACE_OFF_SLOT_BITS] = (uint8_t)ip->w;
    out[CF__INPLACE_OFF_TAG_BITS] = (uint8_t)ip->tag_bits;
    out[CF__INPLACE_OFF_LEVEL] = (uint8_t)ip->level;
    cf__put_le(out + CF__INPLACE_OFF_SEED, f->t.seed, 8);
    cf__put_le(out + CF__INPLACE_OFF_ITEMS, f->t.items, 8);
    cf__put_le(out + CF__INPLACE_OFF_ENTRIES, ip->entries, 8);
    cf__put_le(out + CF__INPLACE_OFF_WEIGHT, ip->weight, 8);
    cf__put_le(out + CF__INPLACE_OFF_TARGET, cf__double_bits(ip->target_fpp), 8);
    cf__put_le(out + CF__INPLACE_OFF_MAX_BYTES, ip->max_bytes, 8);
    cf__put_le(out + CF__INPLACE_OFF_FULL, ip->full, 8);
    cf__put_le(out + CF__INPLACE_OFF_DOUBLINGS, ip->doublings, 8);
    cf__put_le(out + CF__INPLACE_OFF_TOTAL_KICKS, f->t.total_kicks, 8);
    cf__put_le(out + CF__INPLACE_OFF_FAILED, f->t.failed_inserts, 8);
    cf__put_le(out + CF__INPLACE_OFF_MAX_KICKS, f->t.max_kicks, 4);
    cf__put_le(out + CF__INPLACE_OFF_CHECK, (uint32_t)XXH3_64bits(out, CF__INPLACE_OFF_CHECK), 4);
}

cf_status cf__inplace_header_decode_prefix(const uint8_t *buf, uint64_t len, cf__inplace_hdr *h) {
    memset(h, 0, sizeof *h);
    size_t have = len < CF__INPLACE_HEADER_SIZE ? (size_t)len : CF__INPLACE_HEADER_SIZE;
    size_t magic_have = have < sizeof cf__magic ? have : sizeof cf__magic;
    CF__RETURN_IF(memcmp(buf, cf__magic, magic_have) != 0, CF_E_MAGIC);
    CF__RETURN_IF(have < CF__INPLACE_OFF_VERSION + 2, CF_E_TRUNCATED);
    CF__RETURN_IF(cf__get_le(buf + CF__INPLACE_OFF_VERSION, 2) != CF__FORMAT_VERSION_INPLACE,
                  CF_E_VERSION);
    CF__RETURN_IF(have < CF__INPLACE_HEADER_SIZE, CF_E_TRUNCATED);
    CF__RETURN_IF(cf__get_le(buf + CF__INPLACE_OFF_CHECK, 4) !=
                      (uint32_t)XXH3_64bits(buf, CF__INPLACE_OFF_CHECK),
                  CF_E_CHECKSUM);
    cf__inplace *ip = &h->ip;
    ip->w = buf[CF__INPLACE_OFF_SLOT_BITS];
    ip->tag_bits = buf[CF__INPLACE_OFF_TAG_BITS];
    ip->level = buf[CF__INPLACE_OFF_LEVEL];
    CF__RETURN_IF(ip->w != 15 && ip->w != 16 && ip->w != 32, CF_E_CORRUPT);
    CF__RETURN_IF(ip->tag_bits != cf__inplace_tag_bits(ip->w), CF_E_CORRUPT);
    ip->max_level = 65 - ip->w;
    CF__RETURN_IF(ip->level < 1 || ip->level > ip->max_level, CF_E_CORRUPT);
    CF__RETURN_IF(buf[CF__INPLACE_OFF_RESERVED] != 0 ||
                      cf__get_le(buf + CF__INPLACE_OFF_FLAGS, 2) != 0,
                  CF_E_CORRUPT);
    for (unsigned i = CF__INPLACE_OFF_ZEROS; i < CF__INPLACE_OFF_CHECK; i++)
        CF__RETURN_IF(buf[i] != 0, CF_E_CORRUPT);
    h->seed = cf__get_le(buf + CF__INPLACE_OFF_SEED, 8);
    h->items = cf__get_le(buf + CF__INPLACE_OFF_ITEMS, 8);
    ip->entries = cf__get_le(buf + CF__INPLACE_OFF_ENTRIES, 8);
    ip->weight = cf__get_le(buf + CF__INPLACE_OFF_WEIGHT, 8);
    ip->target_fpp = cf__bits_double(cf__get_le(buf + CF__INPLACE_OFF_TARGET, 8));
    ip->max_bytes = cf__get_le(buf + CF__INPLACE_OFF_MAX_BYTES, 8);
    ip->full = cf__get_le(buf + CF__INPLACE_OFF_FULL, 8);
    ip->doublings = cf__get_le(buf + CF__INPLACE_OFF_DOUBLINGS, 8);
    h->total_kicks = cf__get_le(buf + CF__INPLACE_OFF_TOTAL_KICKS, 8);
    h->failed = cf__get_le(buf + CF__INPLACE_OFF_FAILED, 8);
    h->max_kicks = (unsigned)cf__get_le(buf + CF__INPLACE_OFF_MAX_KICKS, 4);
    CF__RETURN_IF(!(ip->target_fpp > 0.0 && ip->target_fpp < 1.0), CF_E_CORRUPT);
    CF__RETURN_IF(h->max_kicks < 1 || h->max_kicks > CF_MAX_KICKS_LIMIT, CF_E_CORRUPT);
    uint64_t nb = (uint64_t)1 << ip->level, slots = nb * CF__INPLACE_SLOTS;
    CF__RETURN_IF(nb / 2 > (SIZE_MAX - CF__INPLACE_HEADER_SIZE - CF__TRAILER_SIZE - CF__TABLE_PAD) /
                               ip->w,
                  CF_E_TOO_LARGE);
    h->table_bytes = (size_t)cf__inplace_table_bytes(ip->w, nb);
    h->total_size = CF__INPLACE_HEADER_SIZE + h->table_bytes + CF__TRAILER_SIZE;
    CF__RETURN_IF(ip->max_bytes != 0 && ip->max_bytes < h->table_bytes, CF_E_CORRUPT);
    CF__RETURN_IF(ip->full > slots || ip->entries > slots || h->items > ip->entries, CF_E_CORRUPT);
    CF__RETURN_IF(len < h->total_size, CF_E_TRUNCATED);
    return CF_OK;
}

cf_status cf__inplace_header_decode(const uint8_t *buf, uint64_t len, cf__inplace_hdr *h) {
    CF__FORWARD_IF_ERROR(cf__inplace_header_decode_prefix(buf, len, h));
    CF__RETURN_IF(len > h->total_size, CF_E_CORRUPT); /* trailing bytes */
    return CF_OK;
}

/* XXH3-64 of the header followed by the table: the trailer. */
uint64_t cf__inplace_checksum(const uint8_t *header, const uint8_t *table, size_t bytes) {
    return cf__form_checksum(header, CF__INPLACE_HEADER_SIZE, table, bytes);
}

/* Every slot empty or holding at least its tag; the count and the weight
 * the header states. */
cf_status cf__inplace_check_table(const cf_filter *f) {
    const cf__inplace *ip = cf__inplace_of(f);
    uint64_t entries = 0, weight = 0;
    unsigned most = ip->w - 1 - ip->tag_bits; /* the highest marker position */
    uint64_t slots = f->t.num_buckets * CF__INPLACE_SLOTS;
    for (uint64_t at = 0; at < slots; at++) {
        uint64_t v = cf__inplace_get(f, at / CF__INPLACE_SLOTS, at % CF__INPLACE_SLOTS);
        if (v == 0) continue;
        unsigned p = (unsigned)__builtin_ctzll(v);
        CF__RETURN_IF(p > most, CF_E_CORRUPT);
        entries++;
        weight += (uint64_t)1 << p; /* 2^(w-1-len), len = w-1-p */
    }
    CF__RETURN_IF(entries != ip->entries || weight != ip->weight, CF_E_CORRUPT);
    return CF_OK;
}

/* A handle and state (no table) with every field of h. */
cf_status cf__inplace_from_header(const cf__inplace_hdr *h, const cf_allocator *a,
                                  cf_filter **out) {
    cf_filter *f;
    uint64_t nb = (uint64_t)1 << h->ip.level;
    CF__FORWARD_IF_ERROR(
        cf__filter_alloc(a, nb, CF__INPLACE_SLOTS, h->ip.w, CF_GROW, h->max_kicks, &f));
    cf__set_seed(&f->t, h->seed);
    f->kind = CF__INPLACE;
    f->t.items = h->items;
    f->t.total_kicks = h->total_kicks;
    f->t.failed_inserts = h->failed;
    f->t.table_bytes = h->table_bytes;
    f->state = cf__alloc(&f->t.alloc, sizeof(cf__inplace));
    if (cf__inplace_of(f) == NULL) {
        cf__inplace_free(f);
        return CF_E_NOMEM;
    }
    *cf__inplace_of(f) = h->ip;
    *out = f;
    return CF_OK;
}

size_t cf__inplace_serialized_size(const cf_filter *f) {
    return CF__INPLACE_HEADER_SIZE + f->t.table_bytes + CF__TRAILER_SIZE;
}

void cf__inplace_serialize(const cf_filter *f, uint8_t *dst) {
    cf__inplace_range(f, 0, dst, cf__inplace_serialized_size(f));
}

/* The bytes [offset, offset + len) of cf__inplace_serialize's form, built from
 * the filter as it is now (the caller checked the range): the header is
 * encoded, the table copied, and only a range that reaches the trailer
 * hashes the whole table.  Ranges read across a change do not fit
 * together: the header's entry count and weight, the slots (V8) and the
 * trailer are all checked by cf__inplace_deserialize. */
void cf__inplace_range(const cf_filter *f, uint64_t offset, uint8_t *dst, size_t len) {
    uint8_t header[CF__INPLACE_HEADER_SIZE];
    cf__inplace_header_encode(f, header);
    cf__form_range(header, CF__INPLACE_HEADER_SIZE, f->t.table, f->t.table_bytes, offset, dst, len);
}

cf_status cf__inplace_deserialize(const uint8_t *in, size_t len, const cf_allocator *a,
                                  cf_filter **out) {
    cf__inplace_hdr h;
    CF__FORWARD_IF_ERROR(cf__inplace_header_decode(in, len, &h));
    const uint8_t *table = in + CF__INPLACE_HEADER_SIZE;
    CF__RETURN_IF(cf__get_le(table + h.table_bytes, CF__TRAILER_SIZE) !=
                      cf__inplace_checksum(in, table, h.table_bytes),
                  CF_E_CHECKSUM);
    cf_filter *f;
    CF__FORWARD_IF_ERROR(cf__inplace_from_header(&h, a, &f));
    cf_status s = cf__table_alloc(&f->t, false);
    if (s == CF_OK) {
        memcpy(f->t.table, table, h.table_bytes);
        s = cf__inplace_check_table(f);
    }
    if (s != CF_OK) {
        cf__inplace_free(f);
        return s;
    }
    *out = f;
    return CF_OK;
}
