/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * bloom_format.c -- a comparison Bloom filter to bytes and back
 * (docs/FORMAT.md, "Bloom filters").
 *
 *   ┌──────────────── header, 40 bytes ────────────────┐┌── bits ──┐┌ trailer ┐
 *   magic version k reserved num_bits seed items          ceil(m/8)   XXH3-64
 *     8     2     1    5        8      8    8
 *
 * The header has no check of its own (the cuckoo header has one so that a
 * mapping can trust it without reading the table): every reader, the
 * mapping one too (io/bloom_io.c), validates every field and the sizes they
 * imply before anything else, then the trailer over header and bits, and
 * only then allocates.  The bits are the filter's memory exactly, so writing is
 * deterministic: the same adds in any order give the same bytes, except for
 * `items`, which counts them.
 */
#include "format/bloom_format.h"
#include "format/cf_format.h"

/* The cuckoo image's magic (serialize.c: PNG's trick against 7-bit
 * channels and newline translation) with 'B' for 'F' in the fourth byte:
 * the same protection, readable as "CKB" in a hex dump, and each kind's
 * reader refuses the other's bytes at once with CF_E_MAGIC rather than
 * taking a Bloom filter for a damaged cuckoo filter or the reverse. */
const uint8_t cf__bloom_magic[8] = {0x89, 'C', 'K', 'B', '\r', '\n', 0x1a, '\n'};

size_t cf__bloom_image_size(const cf_bloom *b) {
    return CF__BLOOM_HEADER_SIZE + b->bytes + CF__TRAILER_SIZE;
}

void cf__bloom_header_encode(const cf_bloom *b, uint8_t out[CF__BLOOM_HEADER_SIZE]) {
    memset(out, 0, CF__BLOOM_HEADER_SIZE);
    memcpy(out + CF__BOFF_MAGIC, cf__bloom_magic, sizeof cf__bloom_magic);
    cf__put_le(out + CF__BOFF_VERSION, CF__BLOOM_FORMAT_VERSION, 2);
    out[CF__BOFF_K] = (uint8_t)b->k;
    cf__put_le(out + CF__BOFF_NUM_BITS, b->num_bits, 8);
    cf__put_le(out + CF__BOFF_SEED, b->seed, 8);
    cf__put_le(out + CF__BOFF_ITEMS, b->items, 8);
}

uint64_t cf__bloom_checksum(const uint8_t header[CF__BLOOM_HEADER_SIZE], const uint8_t *bits,
                            size_t bytes) {
    XXH3_state_t state; /* on the stack: the library allocates only via the filter */
    XXH3_INITSTATE(&state);
    XXH3_64bits_reset(&state);
    XXH3_64bits_update(&state, header, CF__BLOOM_HEADER_SIZE);
    XXH3_64bits_update(&state, bits, bytes);
    return XXH3_64bits_digest(&state);
}

void cf__bloom_image_encode(const cf_bloom *b, uint8_t *dst) {
    cf__bloom_header_encode(b, dst);
    memcpy(dst + CF__BLOOM_HEADER_SIZE, b->bits, b->bytes);
    cf__put_le(dst + CF__BLOOM_HEADER_SIZE + b->bytes, cf__bloom_checksum(dst, b->bits, b->bytes),
               CF__TRAILER_SIZE);
}

cf_status cf__bloom_header_decode_prefix(const uint8_t *in, uint64_t len, size_t *bytes,
                                         uint64_t *total) {
    size_t magic_have = len < sizeof cf__bloom_magic ? (size_t)len : sizeof cf__bloom_magic;
    /* A prefix of the magic is a truncated image; anything else is not one. */
    CF__RETURN_IF(memcmp(in, cf__bloom_magic, magic_have) != 0, CF_E_MAGIC);
    CF__RETURN_IF(len < CF__BOFF_VERSION + 2, CF_E_TRUNCATED);
    CF__RETURN_IF(cf__get_le(in + CF__BOFF_VERSION, 2) != CF__BLOOM_FORMAT_VERSION, CF_E_VERSION);
    CF__RETURN_IF(len < CF__BLOOM_HEADER_SIZE, CF_E_TRUNCATED);
    unsigned k = in[CF__BOFF_K];
    uint64_t num_bits = cf__get_le(in + CF__BOFF_NUM_BITS, 8);
    CF__RETURN_IF(k < 1 || k > 64 || num_bits == 0, CF_E_CORRUPT);
    for (unsigned i = CF__BOFF_RESERVED; i < CF__BOFF_NUM_BITS; i++)
        CF__RETURN_IF(in[i] != 0, CF_E_CORRUPT);
    CF__FORWARD_IF_ERROR(cf__bloom_bytes(num_bits, bytes));
    CF__RETURN_IF(*bytes > SIZE_MAX - CF__BLOOM_HEADER_SIZE - CF__TRAILER_SIZE, CF_E_TOO_LARGE);
    *total = CF__BLOOM_HEADER_SIZE + (uint64_t)*bytes + CF__TRAILER_SIZE;
    CF__RETURN_IF(len < *total, CF_E_TRUNCATED);
    return CF_OK;
}

cf_status cf__bloom_header_decode(const uint8_t *in, uint64_t len, size_t *bytes) {
    uint64_t total;
    CF__FORWARD_IF_ERROR(cf__bloom_header_decode_prefix(in, len, bytes, &total));
    CF__RETURN_IF(len > total, CF_E_CORRUPT); /* trailing bytes */
    return CF_OK;
}

/* Set bits among the n bytes at p. */
static uint64_t cf__popcount_bytes(const uint8_t *p, size_t n) {
    uint64_t c = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) c += (uint64_t)__builtin_popcountll(cf__get_le(p + i, 8));
    for (; i < n; i++) c += (uint64_t)__builtin_popcount(p[i]);
    return c;
}

cf_status cf__bloom_check_bits(const uint8_t header[CF__BLOOM_HEADER_SIZE], const uint8_t *bits,
                               size_t bytes) {
    uint64_t num_bits = cf__get_le(header + CF__BOFF_NUM_BITS, 8);
    unsigned k = header[CF__BOFF_K];
    uint64_t items = cf__get_le(header + CF__BOFF_ITEMS, 8);
    unsigned used = (unsigned)(num_bits % 8); /* bits of the last byte in use */
    CF__RETURN_IF(used != 0 && (bits[bytes - 1] >> used) != 0, CF_E_CORRUPT);
    /* Each add sets at most k bits (items * k may not fit in 64 bits). */
    uint64_t set = cf__popcount_bytes(bits, bytes);
    CF__RETURN_IF(items < (set + k - 1) / k, CF_E_CORRUPT);
    return CF_OK;
}

cf_status cf__bloom_from_header(const uint8_t header[CF__BLOOM_HEADER_SIZE], const cf_allocator *a,
                                cf_bloom **out) {
    CF__FORWARD_IF_ERROR(cf__bloom_make(a, cf__get_le(header + CF__BOFF_NUM_BITS, 8),
                                        header[CF__BOFF_K], cf__get_le(header + CF__BOFF_SEED, 8),
                                        out));
    (*out)->items = cf__get_le(header + CF__BOFF_ITEMS, 8);
    return CF_OK;
}

cf_status cf__bloom_view_from_header(const uint8_t header[CF__BLOOM_HEADER_SIZE],
                                     const cf_allocator *a, uint8_t *bits, cf_bloom **out) {
    CF__FORWARD_IF_ERROR(cf__bloom_make_view(a, cf__get_le(header + CF__BOFF_NUM_BITS, 8),
                                             header[CF__BOFF_K],
                                             cf__get_le(header + CF__BOFF_SEED, 8), bits, out));
    (*out)->items = cf__get_le(header + CF__BOFF_ITEMS, 8);
    return CF_OK;
}

cf_status cf__bloom_image_decode(const uint8_t *in, size_t len, const cf_allocator *a,
                                 cf_bloom **out) {
    *out = NULL;
    size_t bytes;
    CF__FORWARD_IF_ERROR(cf__bloom_header_decode(in, len, &bytes));
    const uint8_t *bits = in + CF__BLOOM_HEADER_SIZE;
    CF__RETURN_IF(cf__get_le(bits + bytes, CF__TRAILER_SIZE) != cf__bloom_checksum(in, bits, bytes),
                  CF_E_CHECKSUM);
    CF__FORWARD_IF_ERROR(cf__bloom_check_bits(in, bits, bytes));
    CF__FORWARD_IF_ERROR(cf__bloom_from_header(in, a, out));
    memcpy((*out)->bits, bits, bytes);
    return CF_OK;
}
