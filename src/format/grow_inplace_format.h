/*
 * grow_inplace_format.h -- format version 4, a CF_GROWTH_INPLACE filter's
 * bytes: the pieces that grow_inplace_format.c (memory buffers) and
 * grow_inplace_io.c (files, mappings) share.  docs/FORMAT.md, "In-place
 * grown filters", is the specification; the layout is drawn in
 * grow_inplace_format.c.
 */
#ifndef CF_GROW_INPLACE_FORMAT_H
#define CF_GROW_INPLACE_FORMAT_H

#include "cf_format.h"
#include "grow_inplace.h"

/* A 128-byte header, the table as in memory, an XXH3-64 trailer. */
#define CF__IP_HEADER_SIZE 128u

/* A decoded, validated version-4 header. */
typedef struct cf__ip_hdr {
    cf__ip ip;
    uint64_t seed, items, total_kicks, failed;
    unsigned max_kicks;
    size_t table_bytes, total_size;
} cf__ip_hdr;

/* The version-4 header of f (128 bytes, header check included). */
void cf__ip_header_encode(const cf_filter *f, uint8_t out[CF__IP_HEADER_SIZE]);

/* Decodes the header of an input of len bytes whose first min(len, 128)
 * are in buf: magic, version, header check, every field, and len against
 * the exact size.  Allocates nothing. */
cf_status cf__ip_header_decode(const uint8_t *buf, uint64_t len, cf__ip_hdr *h);

/* XXH3-64 of the header followed by the table: the trailer. */
uint64_t cf__ip_checksum(const uint8_t *header, const uint8_t *table, size_t bytes);

/* Every slot empty or holding at least its tag; the entry count and the
 * weight the header states.  CF_OK or CF_E_CORRUPT. */
cf_status cf__ip_check_table(const cf_filter *f);

/* A handle and state (no table) with every field of h. */
cf_status cf__ip_from_header(const cf__ip_hdr *h, const cf_allocator *a, cf_filter **out);

/* An in-place filter in memory: its size, its bytes
 * (cf__ip_serialized_size of them at dst), and the filter from len bytes at
 * in (header validated before anything is allocated, then the checksum,
 * then every slot). */
size_t cf__ip_serialized_size(const cf_filter *f);
void cf__ip_serialize(const cf_filter *f, uint8_t *dst);
cf_status cf__ip_deserialize(const uint8_t *in, size_t len, const cf_allocator *a, cf_filter **out);

#endif /* CF_GROW_INPLACE_FORMAT_H */
