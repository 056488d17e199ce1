/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * expiring_format.h -- the bytes of an expiring filter, format version 7
 * (expiring_format.c; docs/FORMAT.md, "Expiring filters"): what io/ needs
 * to load, map and save such files.
 */
#ifndef CF_EXPIRING_FORMAT_H
#define CF_EXPIRING_FORMAT_H

#include "format/cf_format.h"
#include "kind/expiring.h"

/* A 128-byte header, the table as in memory, an XXH3-64 trailer. */
#define CF__EXPIRING_HEADER_SIZE 128u

/* A decoded, validated version-7 header. */
typedef struct cf__expiring_hdr {
    unsigned fp_bits, stamp_bits, bucket_size, max_kicks;
    uint64_t num_buckets, seed, items, total_kicks, failed, expire_after, now;
    size_t table_bytes, total_size;
} cf__expiring_hdr;

/* The 128-byte header of f, its check included. */
void cf__expiring_header_encode(const cf_filter *f, uint8_t out[CF__EXPIRING_HEADER_SIZE]);

/* Decodes and validates the header of an input of len bytes whose first
 * min(len, 128) are in buf (every check of FORMAT.md but the table's);
 * allocates nothing.  The _prefix form allows len past the filter. */
cf_status cf__expiring_header_decode(const uint8_t *buf, uint64_t len, cf__expiring_hdr *h);
cf_status cf__expiring_header_decode_prefix(const uint8_t *buf, uint64_t len, cf__expiring_hdr *h);

/* XXH3-64 of the header followed by the table: the trailer. */
uint64_t cf__expiring_checksum(const uint8_t *header, const uint8_t *table, size_t bytes);

/* A handle and state (no table) with every field of h. */
cf_status cf__expiring_from_header(const cf__expiring_hdr *h, const cf_allocator *a,
                                   cf_filter **out);

size_t cf__expiring_serialized_size(const cf_filter *f);
/* Writes cf__expiring_serialized_size(f) bytes to dst. */
void cf__expiring_serialize(const cf_filter *f, uint8_t *dst);
/* Bytes [offset, offset + len) of that form, which the range must lie in. */
void cf__expiring_range(const cf_filter *f, uint64_t offset, uint8_t *dst, size_t len);
cf_status cf__expiring_deserialize(const uint8_t *in, size_t len, const cf_allocator *a,
                                   cf_filter **out);

#endif /* CF_EXPIRING_FORMAT_H */
