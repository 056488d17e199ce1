/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_dump.h -- the header of a key's dump stream, and the iterators
 * that tag its chunks.  Plain C with no Redis dependency: the module
 * (SCANDUMP, LOADCHUNK, RDB, AOF, COPY) and the `cuckoo export` / `import`
 * commands (tools/redis_io/) share this one definition.
 *
 * A dump stream is this header followed by images in the library's file
 * format (docs/FORMAT.md):
 *
 *   offset  size  field
 *   0       8     magic "CFRDUMP\0"
 *   8       2     dump version: 2 (1: written by modules before keys were
 *                 built on the library's CF_GROW; still read)
 *   10      2     reserved, 0
 *   12      4     nsubs: images that follow; version 2: 1 (the key's whole
 *                 filter: format version 1 while a chain key is one table,
 *                 2 once it has grown, 4 for a key that grows in place);
 *                 version 1: 1..CFR_MAX_FILTERS_LIMIT single-table images,
 *                 one per sub-filter of the old chain
 *   16      4     expansion (0 or a power of two <= CFR_MAX_EXPANSION; a
 *                 key that grows in place writes 2, and its image is
 *                 refused under 0)
 *   20      4     key flags (bit 0: exhausted -- inserts are refused
 *                 without a search until a delete)
 *   24      8     requested capacity of the first table
 *   32      8     items deleted so far (CF.INFO)
 *   40      8     body length = sum of the image lengths
 *   48      16*n  per image: u64 serialized length, u64 flags (version 1:
 *                 bit 0, the old "full" mark, ignored when read; version
 *                 2: 0)
 *   48+16n  8     FNV-1a 64 of every byte before it
 * All integers little-endian.  Each image carries its own XXH3 checksums.
 *
 * Iterators (CF.SCANDUMP's replies, CF.LOADCHUNK's arguments):
 *
 *   bits 51..40  generation of the key when the chunk was read (12 bits)
 *   bits 39..0   1 + the stream offset just after the chunk's bytes, the
 *                header counting as one byte (so the header is 1, and the
 *                body bytes [a, b) are 1 + b)
 *
 * Every write to a key changes its generation, so a dump read across a
 * write carries two generations and LOADCHUNK refuses it.  Iterators stay
 * below 2^52: JavaScript numbers (node-redis) hold them exactly.
 */
#ifndef CF_REDIS_DUMP_H
#define CF_REDIS_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CFR_DUMP_VERSION 2
/* The largest EXPANSION (RedisBloom's range, [0, 32768]): CF.RESERVE's
 * check, the dump header's and `cuckoo export --expansion`'s.  A bare
 * literal, so that CFR_STR can put it in their messages. */
#define CFR_MAX_EXPANSION 32768
#define CFR_STR_(x) #x
#define CFR_STR(x) CFR_STR_(x)
#define CFR_MAX_FILTERS_LIMIT 1024 /* version 1 headers only */
#define CFR_DUMP_FIXED 48u
#define CFR_DUMP_PER_SUB 16u
#define CFR_SUB_FULL 1u        /* version 1, per sub-filter: the old "full" mark */
#define CFR_CHAIN_EXHAUSTED 1u /* per chain: full and unable to grow */

#define CFR_ITER_POS_BITS 40
#define CFR_ITER_POS_MASK (((uint64_t)1 << CFR_ITER_POS_BITS) - 1)
#define CFR_ITER_GEN_MASK 0xFFFu

/* The chunk tag for generation gen and position pos (see above). */
static inline long long cfr_iter_tag(uint32_t gen, uint64_t pos) {
    return (long long)(((uint64_t)(gen & CFR_ITER_GEN_MASK) << CFR_ITER_POS_BITS) | pos);
}
static inline uint64_t cfr_iter_pos(long long it) {
    return (uint64_t)it & CFR_ITER_POS_MASK;
}
static inline uint32_t cfr_iter_gen(long long it) {
    return (uint32_t)((uint64_t)it >> CFR_ITER_POS_BITS);
}

/* The fixed fields of a header. */
typedef struct cfr_dump_fields {
    uint32_t nsubs;
    uint32_t expansion;
    uint32_t flags;
    uint64_t capacity;
    uint64_t deleted;
    uint64_t body_len; /* set by cfr_dump_header_write and _read */
    uint16_t version;  /* written as given (CFR_DUMP_VERSION); set by _read */
} cfr_dump_fields;

size_t cfr_dump_header_len(uint32_t nsubs);

/* Writes the header for d and the sub-filters' lengths and flags into h
 * (cfr_dump_header_len(d->nsubs) bytes) and sets d->body_len. */
void cfr_dump_header_write(uint8_t *h, cfr_dump_fields *d, const uint64_t *lens,
                           const uint64_t *flags);

/* The most bytes an image's file format adds to its tables' bytes
 * (docs/FORMAT.md): a version-1 image is one table, its 64-byte header and
 * 8-byte trailer; a version-2 dump's one image at most a chain of 64
 * tables (CF_MAX_TABLES, checked in cf_redis_chain.c: a 64-byte header,
 * and per table the same 72 bytes padded to a multiple of 64, so at most
 * 135), more than an in-place image's 136. */
#define CFR_IMAGE_OVERHEAD_V1 72u
#define CFR_IMAGE_OVERHEAD_V2 (64u + 135u * 64u)

/* Validates a header of len bytes: magic, version (1 or 2), reserved
 * fields, nsubs (1 for version 2), exact length, checksum, expansion,
 * flags, each image at least a library file's 72 bytes, and the body within
 * max_tables bytes of tables: max_tables plus each image's format overhead
 * (CFR_IMAGE_OVERHEAD_*), so a key whose tables reach the limit loads
 * again.  Fills *d. */
bool cfr_dump_header_read(const uint8_t *h, size_t len, uint64_t max_tables, cfr_dump_fields *d);

/* Sub-filter i's length and flags in a header that passed _read. */
uint64_t cfr_dump_sub_len(const uint8_t *h, uint32_t i);
uint64_t cfr_dump_sub_flags(const uint8_t *h, uint32_t i);

#endif /* CF_REDIS_DUMP_H */
