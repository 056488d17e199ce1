/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * bloom.c -- a plain Bloom filter, the yardstick the cuckoo filter is
 * compared with at equal memory.
 *
 *   h = XXH3-64(key, seed)        h2 = mix(h) | 1
 *   bit_j = range(h + j * h2, m)  for j = 0 .. k-1        (double hashing)
 *
 *   bits: |0|1|0|0|1|...|1|0|   m bits, k of them set per item
 *
 * Double hashing from one 64-bit hash gives k indexes at the cost of one
 * hash (Kirsch and Mitzenmacher); the odd step keeps the k probes distinct
 * modulo 2^64 before reduction.  range() is a multiply-high, so m is any
 * number of bits, which lets the report match a cuckoo table bit for bit.
 */
#include <math.h>

#include "bloom/bloom.h"
#include "base/hash.h"

void cf_bloom_config_init(cf_bloom_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->target_fpp = 0.01;
}

unsigned cf_bloom_optimal_k(uint64_t num_bits, uint64_t items) {
    if (items == 0) return 1;
    double k = round((double)num_bits / (double)items * log(2.0));
    if (k < 1) return 1;
    return k > 64 ? 64 : (unsigned)k;
}

cf_status cf__bloom_bits_for(uint64_t capacity, double fpp, uint64_t *bits) {
    double m = ceil(-(double)capacity * log(fpp) / (log(2.0) * log(2.0)));
    CF__RETURN_IF(!(m < 1.8e19), CF_E_TOO_LARGE);
    *bits = (uint64_t)m;
    return CF_OK;
}

cf_status cf_bloom_new(const cf_bloom_config *cfg, cf_bloom **out) {
    CF__RETURN_IF(out == NULL, CF_E_PARAM);
    *out = NULL;
    CF__RETURN_IF(cfg == NULL, CF_E_PARAM);
    uint64_t m = cfg->num_bits;
    if (m == 0) {
        CF__RETURN_IF(cfg->capacity == 0, CF_E_PARAM);
        CF__RETURN_IF(!(cfg->target_fpp > 0.0 && cfg->target_fpp < 1.0), CF_E_PARAM);
        CF__FORWARD_IF_ERROR(cf__bloom_bits_for(cfg->capacity, cfg->target_fpp, &m));
    }
    CF__RETURN_IF(cfg->num_hashes > 64, CF_E_PARAM);
    unsigned k = cfg->num_hashes;
    if (k == 0) {
        CF__RETURN_IF(cfg->capacity == 0, CF_E_PARAM);
        k = cf_bloom_optimal_k(m, cfg->capacity);
    }
    return cf__bloom_make(cfg->allocator, m, k, cfg->seed, out);
}

cf_status cf__bloom_bytes(uint64_t num_bits, size_t *bytes) {
    uint64_t n = num_bits / 8 + (num_bits % 8 != 0);
    CF__RETURN_IF(n > (uint64_t)(PTRDIFF_MAX / 2), CF_E_TOO_LARGE);
    *bytes = (size_t)n;
    return CF_OK;
}

/* The handle alone (bits NULL), through a. */
static cf_status cf__bloom_handle(const cf_allocator *a, uint64_t num_bits, unsigned k,
                                  uint64_t seed, cf_bloom **out) {
    *out = NULL;
    size_t bytes;
    CF__FORWARD_IF_ERROR(cf__bloom_bytes(num_bits, &bytes));
    cf_allocator alloc;
    CF__FORWARD_IF_ERROR(cf__allocator_resolve(a, &alloc));
    cf_bloom *b = cf__alloc(&alloc, sizeof *b);
    CF__RETURN_IF(b == NULL, CF_E_NOMEM);
    memset(b, 0, sizeof *b);
    b->alloc = alloc;
    b->num_bits = num_bits;
    b->bytes = bytes;
    b->k = k;
    b->seed = seed;
    *out = b;
    return CF_OK;
}

cf_status cf__bloom_make(const cf_allocator *a, uint64_t num_bits, unsigned k, uint64_t seed,
                         cf_bloom **out) {
    cf_bloom *b;
    CF__FORWARD_IF_ERROR(cf__bloom_handle(a, num_bits, k, seed, &b));
    b->bits = cf__calloc(&b->alloc, b->bytes);
    if (b->bits == NULL) {
        cf_allocator alloc = b->alloc;
        cf__free(&alloc, b);
        return CF_E_NOMEM;
    }
    *out = b;
    return CF_OK;
}

cf_status cf__bloom_make_view(const cf_allocator *a, uint64_t num_bits, unsigned k, uint64_t seed,
                              uint8_t *bits, cf_bloom **out) {
    CF__FORWARD_IF_ERROR(cf__bloom_handle(a, num_bits, k, seed, out));
    (*out)->bits = bits;
    return CF_OK;
}

void cf__bloom_destroy(cf_bloom *b) {
    if (b == NULL) return;
    cf_allocator alloc = b->alloc;
    if (b->map_base == NULL) cf__free(&alloc, b->bits);
    cf__free(&alloc, b);
}

uint64_t cf_bloom_hash(const cf_bloom *b, const void *key, size_t len) {
    if (key == NULL && len != 0) return 0; /* no bytes to hash: the header's contract */
    return cf__xxh3(key, len, b == NULL ? 0 : b->seed);
}

cf_status cf_bloom_insert_hash(cf_bloom *b, uint64_t h) {
    CF__RETURN_IF(b == NULL, CF_E_PARAM);
    CF__RETURN_IF(b->map_base != NULL, CF_E_READONLY); /* the bits are a file's pages */
    uint64_t step = cf__mix64(h) | 1;
    for (unsigned j = 0; j < b->k; j++, h += step) {
        uint64_t bit = cf__range(h, b->num_bits);
        b->bits[bit >> 3] |= (uint8_t)(1u << (bit & 7));
    }
    b->items++;
    return CF_OK;
}

bool cf_bloom_contains_hash(const cf_bloom *b, uint64_t h) {
    if (b == NULL) return false;
    uint64_t step = cf__mix64(h) | 1;
    for (unsigned j = 0; j < b->k; j++, h += step) {
        uint64_t bit = cf__range(h, b->num_bits);
        if (!(b->bits[bit >> 3] & (1u << (bit & 7)))) return false;
    }
    return true;
}

cf_status cf_bloom_insert(cf_bloom *b, const void *key, size_t len) {
    CF__RETURN_IF(b == NULL || (key == NULL && len != 0), CF_E_PARAM);
    return cf_bloom_insert_hash(b, cf__xxh3(key, len, b->seed));
}

/* 64-bit keys as their 8 little-endian bytes, as the cuckoo filter's _u64
 * calls hash them. */
static uint64_t cf__bloom_hash_u64(const cf_bloom *b, uint64_t key) {
    uint8_t bytes[8];
    cf__store64le(bytes, key);
    return cf__xxh3(bytes, sizeof bytes, b->seed);
}

cf_status cf_bloom_insert_u64(cf_bloom *b, uint64_t key) {
    CF__RETURN_IF(b == NULL, CF_E_PARAM);
    return cf_bloom_insert_hash(b, cf__bloom_hash_u64(b, key));
}

bool cf_bloom_contains_u64(const cf_bloom *b, uint64_t key) {
    return b != NULL && cf_bloom_contains_hash(b, cf__bloom_hash_u64(b, key));
}

bool cf_bloom_contains(const cf_bloom *b, const void *key, size_t len) {
    if (b == NULL || (key == NULL && len != 0)) return false;
    return cf_bloom_contains_hash(b, cf__xxh3(key, len, b->seed));
}

cf_status cf_bloom_clear(cf_bloom *b) {
    CF__RETURN_IF(b == NULL, CF_E_PARAM);
    CF__RETURN_IF(b->map_base != NULL, CF_E_READONLY);
    memset(b->bits, 0, b->bytes);
    b->items = 0;
    return CF_OK;
}

cf_status cf_bloom_merge(cf_bloom *dst, const cf_bloom *src) {
    CF__RETURN_IF(dst == NULL || src == NULL || dst == src, CF_E_PARAM);
    CF__RETURN_IF(dst->map_base != NULL, CF_E_READONLY);
    /* The same bits for every key: size, hash count and seed. */
    CF__RETURN_IF(dst->num_bits != src->num_bits || dst->k != src->k || dst->seed != src->seed,
                  CF_E_PARAM);
    for (size_t i = 0; i < dst->bytes; i++) dst->bits[i] |= src->bits[i];
    dst->items = dst->items + src->items < dst->items ? UINT64_MAX : dst->items + src->items;
    return CF_OK;
}

size_t cf_bloom_memory_usage(const cf_bloom *b) {
    return b == NULL ? 0 : sizeof *b + b->bytes;
}

cf_status cf_bloom_get_stats(const cf_bloom *b, cf_bloom_stats *out) {
    if (out != NULL) memset(out, 0, sizeof *out);
    CF__RETURN_IF(b == NULL || out == NULL, CF_E_PARAM);
    out->num_bits = b->num_bits;
    out->num_hashes = b->k;
    out->items = b->items;
    out->bits_per_item = b->items ? (double)b->num_bits / (double)b->items : 0.0;
    out->expected_fpp = pow(-expm1(-(double)b->k * (double)b->items / (double)b->num_bits), b->k);
    out->memory_bytes = cf_bloom_memory_usage(b);
    return CF_OK;
}
