/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * bloom.h -- the comparison Bloom filter's handle, for the layers above
 * bloom/ that read and rebuild it (format/bloom_format.c: its image).
 * bloom.c has the design; users see only the opaque cf_bloom.
 */
#ifndef CF_BLOOM_H
#define CF_BLOOM_H

#include "base/alloc.h"

struct cf_bloom {
    cf_allocator alloc;
    uint8_t *bits;     /* num_bits bits, little-endian bit order; padding bits 0 */
    uint64_t num_bits; /* m >= 1 */
    size_t bytes;      /* ceil(m / 8) */
    unsigned k;        /* 1..64 */
    uint64_t seed;
    uint64_t items; /* adds performed (duplicates count again) */
    /* A mapped filter's mapping (cf_bloom_map; NULL otherwise): bits point
     * into it, past the header, and are never written (adds return
     * CF_E_READONLY); cf_bloom_free unmaps it (io/bloom_io.c). */
    void *map_base;
    size_t map_len;
};

/* Bytes of the bit array of m bits: ceil(m / 8), or CF_E_TOO_LARGE past
 * PTRDIFF_MAX / 2 (the bound cf_bloom_new has always applied). */
cf_status cf__bloom_bytes(uint64_t num_bits, size_t *bytes);

/* The bits that hold capacity items at fpp (in (0, 1)) with the best k:
 * ceil(-n ln p / ln(2)^2).  CF_OK or CF_E_TOO_LARGE (2^64 bits or more). */
cf_status cf__bloom_bits_for(uint64_t capacity, double fpp, uint64_t *bits);

/* A filter of num_bits >= 1 zero bits and k in 1..64 hashes, allocated
 * (handle and bits) through a (NULL: malloc/free); items 0.  CF_E_PARAM
 * for an allocator with only one of alloc/free, CF_E_TOO_LARGE,
 * CF_E_NOMEM.  On failure nothing is allocated. */
cf_status cf__bloom_make(const cf_allocator *a, uint64_t num_bits, unsigned k, uint64_t seed,
                         cf_bloom **out);

/* A handle of num_bits >= 1 bits, k in 1..64 hashes and seed whose bits
 * are `bits` (not owned: a mapping), allocated through a; items 0.
 * CF_E_PARAM (an allocator with only one of alloc/free), CF_E_TOO_LARGE,
 * CF_E_NOMEM. */
cf_status cf__bloom_make_view(const cf_allocator *a, uint64_t num_bits, unsigned k, uint64_t seed,
                              uint8_t *bits, cf_bloom **out);

/* Frees b (NULL: nothing) through its own allocator: the handle, and the
 * bits unless they are a mapping's (released first by io/'s
 * cf__bloom_unmap). */
void cf__bloom_destroy(cf_bloom *b);

#endif /* CF_BLOOM_H */
