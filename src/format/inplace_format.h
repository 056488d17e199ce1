/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * inplace_format.h -- the bytes of an in-place grown filter, format
 * version 4 (inplace_format.c; docs/FORMAT.md): what io/ needs to
 * load, map and save such files.
 */
#ifndef CF_INPLACE_FORMAT_H
#define CF_INPLACE_FORMAT_H

#include "format/cf_format.h"
#include "kind/inplace.h"

/* A 128-byte header, the table as in memory, an XXH3-64 trailer. */
#define CF__INPLACE_HEADER_SIZE 128u

/* A decoded, validated version-4 header. */
typedef struct cf__inplace_hdr {
    cf__inplace ip;
    uint64_t seed, items, total_kicks, failed;
    unsigned max_kicks;
    size_t table_bytes, total_size;
} cf__inplace_hdr;

/* The 128-byte header of f, its check included. */
void cf__inplace_header_encode(const cf_filter *f, uint8_t out[CF__INPLACE_HEADER_SIZE]);

/* Decodes and validates the header of an input of len bytes whose first
 * min(len, 128) are in buf (checks V1-V6 of FORMAT.md).  Allocates nothing. */
cf_status cf__inplace_header_decode(const uint8_t *buf, uint64_t len, cf__inplace_hdr *h);

/* The same for an input that may go on after the filter: every check but
 * the last (len may exceed h->total_size). */
cf_status cf__inplace_header_decode_prefix(const uint8_t *buf, uint64_t len, cf__inplace_hdr *h);

/* XXH3-64 of the header followed by the table: the trailer. */
uint64_t cf__inplace_checksum(const uint8_t *header, const uint8_t *table, size_t bytes);

/* Check V8: every slot, the entry count and the weight. */
cf_status cf__inplace_check_table(const cf_filter *f);

/* A handle and state (no table) with every field of h. */
cf_status cf__inplace_from_header(const cf__inplace_hdr *h, const cf_allocator *a, cf_filter **out);

size_t cf__inplace_serialized_size(const cf_filter *f);
/* Writes cf__inplace_serialized_size(f) bytes to dst. */
void cf__inplace_serialize(const cf_filter *f, uint8_t *dst);
/* Bytes [offset, offset + len) of that form, which the range must lie in. */
void cf__inplace_range(const cf_filter *f, uint64_t offset, uint8_t *dst, size_t len);
cf_status cf__inplace_deserialize(const uint8_t *in, size_t len, const cf_allocator *a,
                                  cf_filter **out);

#endif /* CF_INPLACE_FORMAT_H */
