/*
 * bloom.h -- the comparison Bloom filter's handle, for the layers above
 * bloom/ that read and rebuild it (format/bloom_format.c: its image).
 * bloom.c has the design; users see only the opaque cf_bloom.
 */
#ifndef CF_BLOOM_H
#define CF_BLOOM_H

#include "alloc.h"

struct cf_bloom {
    cf_allocator alloc;
    uint8_t *bits;     /* num_bits bits, little-endian bit order; padding bits 0 */
    uint64_t num_bits; /* m >= 1 */
    size_t bytes;      /* ceil(m / 8) */
    unsigned k;        /* 1..64 */
    uint64_t seed;
    uint64_t items; /* adds performed (duplicates count again) */
};

/* Bytes of the bit array of m bits: ceil(m / 8), or CF_E_TOO_LARGE past
 * PTRDIFF_MAX / 2 (the bound cf_bloom_new has always applied). */
cf_status cf__bloom_bytes(uint64_t num_bits, size_t *bytes);

/* A filter of num_bits >= 1 zero bits and k in 1..64 hashes, allocated
 * (handle and bits) through a (NULL: malloc/free); items 0.  CF_E_PARAM
 * for an allocator with only one of alloc/free, CF_E_TOO_LARGE,
 * CF_E_NOMEM.  On failure nothing is allocated. */
cf_status cf__bloom_make(const cf_allocator *a, uint64_t num_bits, unsigned k, uint64_t seed,
                         cf_bloom **out);

/* Frees b (NULL: nothing) through its own allocator. */
void cf__bloom_destroy(cf_bloom *b);

#endif /* CF_BLOOM_H */
