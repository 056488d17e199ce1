/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * bloom_format.h -- the image of a comparison Bloom filter (bloom_format.c;
 * docs/FORMAT.md, "Bloom filters").  api/bloom_bytes.c checks the
 * arguments; these own the bytes.
 */
#ifndef CF_BLOOM_FORMAT_H
#define CF_BLOOM_FORMAT_H

#include "bloom/bloom.h"

#define CF__BLOOM_HEADER_SIZE 40u
#define CF__BLOOM_FORMAT_VERSION 1u

/* Offsets of the header fields. */
enum {
    CF__BOFF_MAGIC = 0,
    CF__BOFF_VERSION = 8,
    CF__BOFF_K = 10,
    CF__BOFF_RESERVED = 11, /* 5 bytes, 0 */
    CF__BOFF_NUM_BITS = 16,
    CF__BOFF_SEED = 24,
    CF__BOFF_ITEMS = 32,
};

extern const uint8_t cf__bloom_magic[8];

/* Encodes b's header (40 bytes). */
void cf__bloom_header_encode(const cf_bloom *b, uint8_t out[CF__BLOOM_HEADER_SIZE]);

/* The trailer's value: XXH3-64 (seed 0) of header followed by the bits. */
uint64_t cf__bloom_checksum(const uint8_t header[CF__BLOOM_HEADER_SIZE], const uint8_t *bits,
                            size_t bytes);

/* Checks B1 to B7 (docs/FORMAT.md) of an input of input_len bytes of which
 * header holds the first min(input_len, 40): on CF_OK, *bytes is the size
 * of its bit array.  Reads nothing else; allocates nothing. */
cf_status cf__bloom_header_decode(const uint8_t *header, uint64_t input_len, size_t *bytes);

/* The same for an input that may go on after the image: every check but the
 * last (input_len may exceed it); *total is the image's length. */
cf_status cf__bloom_header_decode_prefix(const uint8_t *header, uint64_t input_len, size_t *bytes,
                                         uint64_t *total);

/* Checks B9 on the bits of the image whose header is header: padding bits
 * 0, at most items * k bits set. */
cf_status cf__bloom_check_bits(const uint8_t header[CF__BLOOM_HEADER_SIZE], const uint8_t *bits,
                               size_t bytes);

/* A filter with the header's k, num_bits, seed and items (validated), its
 * bits zero, allocated through a. */
cf_status cf__bloom_from_header(const uint8_t header[CF__BLOOM_HEADER_SIZE], const cf_allocator *a,
                                cf_bloom **out);

/* A handle with the header's fields (validated) whose bits are those at
 * bits (a mapping's, not owned), allocated through a. */
cf_status cf__bloom_view_from_header(const uint8_t header[CF__BLOOM_HEADER_SIZE],
                                     const cf_allocator *a, uint8_t *bits, cf_bloom **out);

/* Bytes of b's image: header, bit array, trailer. */
size_t cf__bloom_image_size(const cf_bloom *b);

/* Writes b's image to dst (cf__bloom_image_size(b) bytes). */
void cf__bloom_image_encode(const cf_bloom *b, uint8_t *dst);

/* The filter of the image of len bytes at in, every field, the checksum
 * and the bit array's invariants checked before it is returned; allocated
 * through a (NULL: malloc/free).  Nothing is allocated before the header
 * and the checksum are validated. */
cf_status cf__bloom_image_decode(const uint8_t *in, size_t len, const cf_allocator *a,
                                 cf_bloom **out);

#endif /* CF_BLOOM_FORMAT_H */
