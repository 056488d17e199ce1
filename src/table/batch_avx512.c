/*
 * batch_avx512.c -- cf_contains_batch eight keys at a time (AVX-512 F and
 * DQ): each step of a lookup, from the hash to the lanes' compare, is one
 * instruction for eight keys, and each key's two bucket words come in two
 * gathers.
 *
 * The same arithmetic as the scalar kernels (table/layout.h), lane by lane:
 *   fp = ((h mod 2^32) * fp_mask >> 32) + 1
 *   i1 = range(h, nb), i2 = reflect(range(map(fp), nb), i1, nb)
 * with range(x, n) = floor(x n / 2^64) from two 32 x 32 -> 64 multiplies,
 * exact for n < 2^32 (AVX-512 has no 64-bit multiply-high), and the bucket
 * test cf__zero_lanes on both words.  Tables past CF__NEAR_BYTES have their
 * buckets prefetched CF__AHEAD blocks of eight ahead, as batch.c's pipeline
 * does one key at a time.
 */
#include "table/batch_avx512.h"

#if CF__HAVE_AVX512_BATCH
#include <immintrin.h>

#define CF__AVX512 __attribute__((target("avx512f,avx512dq")))

/* Blocks of eight keys located and prefetched ahead of their probes: 48
 * keys, as batch.c's CF__PIPE. */
#define CF__AHEAD 6

bool cf__batch_avx512_usable(const cf__table *f) {
    if (!f->swar || f->semi_sort || f->bucket_bits % 8 != 0 || f->num_buckets > UINT32_MAX)
        return false;
    __builtin_cpu_init(); /* idempotent; needed only before constructors ran */
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
}

/* The table's constants, one per lane. */
typedef struct cf__consts8 {
    __m512i fp_mask, golden, alt_xmask, alt_mul, nb, stride, lane_ones, lane_highs, keep;
} cf__consts8;

/* Where eight keys' buckets start (byte offsets) and their fingerprints. */
typedef struct cf__located8 {
    __m512i at1, at2, fp;
} cf__located8;

/* floor(x n / 2^64) for n < 2^32: with x = xh 2^32 + xl, it is
 * floor((xh n + floor(xl n / 2^32)) / 2^32), and the sum fits 64 bits. */
CF__AVX512 static inline __m512i cf__range8(__m512i x, __m512i n) {
    __m512i lo = _mm512_srli_epi64(_mm512_mul_epu32(x, n), 32);
    __m512i hi = _mm512_mul_epu32(_mm512_srli_epi64(x, 32), n);
    return _mm512_srli_epi64(_mm512_add_epi64(hi, lo), 32);
}

CF__AVX512 static inline cf__located8 cf__locate8(const cf__consts8 *c, const uint64_t *hashes) {
    __m512i h = _mm512_loadu_si512((const void *)hashes);
    /* fp_mask < 2^32, and _mm512_mul_epu32 takes each lane's low 32 bits. */
    __m512i fp = _mm512_add_epi64(_mm512_srli_epi64(_mm512_mul_epu32(h, c->fp_mask), 32),
                                  _mm512_set1_epi64(1));
    __m512i m = _mm512_mullo_epi64(fp, c->golden);
    m = _mm512_xor_si512(m, _mm512_and_si512(_mm512_srli_epi64(m, 29), c->alt_xmask));
    m = _mm512_mullo_epi64(m, c->alt_mul);
    __m512i i1 = cf__range8(h, c->nb), p = cf__range8(m, c->nb);
    /* reflect: p - i1, plus nb where that went below zero. */
    __m512i i2 = _mm512_sub_epi64(p, i1);
    i2 = _mm512_mask_add_epi64(i2, _mm512_cmplt_epu64_mask(p, i1), i2, c->nb);
    cf__located8 l = {_mm512_mul_epu32(i1, c->stride), _mm512_mul_epu32(i2, c->stride), fp};
    return l;
}

/* cf__zero_lanes of the word's lanes xor the fingerprint, under keep:
 * (x - ones) & ~x & highs, one ternary-logic instruction for the ands. */
CF__AVX512 static inline __m512i cf__zero_lanes8(const cf__consts8 *c, __m512i w, __m512i v) {
    __m512i x = _mm512_and_si512(_mm512_xor_si512(w, v), c->keep);
    return _mm512_ternarylogic_epi64(_mm512_sub_epi64(x, c->lane_ones), x, c->lane_highs, 0x20);
}

/* The eight keys' answers as bytes 0 or 1 at out (when not NULL); the
 * number found. */
CF__AVX512 static inline size_t cf__probe8(const cf__consts8 *c, const uint8_t *table,
                                           cf__located8 l, bool *out) {
    __m512i w1 = _mm512_i64gather_epi64(l.at1, (const void *)table, 1);
    __m512i w2 = _mm512_i64gather_epi64(l.at2, (const void *)table, 1);
    __m512i v = _mm512_mullo_epi64(l.fp, c->lane_ones);
    __m512i z = _mm512_or_si512(cf__zero_lanes8(c, w1, v), cf__zero_lanes8(c, w2, v));
    __mmask8 hit = _mm512_test_epi64_mask(z, z);
    if (out != NULL) {
        __m128i bytes = _mm512_cvtepi64_epi8(_mm512_maskz_set1_epi64(hit, 1));
        _mm_storel_epi64((__m128i *)(void *)out, bytes);
    }
    return (size_t)__builtin_popcount(hit);
}

CF__AVX512 static void cf__prefetch8(const uint8_t *table, cf__located8 l) {
    uint64_t at[16];
    _mm512_storeu_si512((void *)at, l.at1);
    _mm512_storeu_si512((void *)(at + 8), l.at2);
    for (int k = 0; k < 16; k++) cf__prefetch_word(table + at[k]);
}

CF__AVX512 size_t cf__batch_avx512(const cf__table *f, const uint64_t *hashes, size_t n, bool *out,
                                   uint64_t fp_mask, uint64_t keep) {
    const cf__consts8 c = {_mm512_set1_epi64((long long)fp_mask),
                           _mm512_set1_epi64((long long)CF__GOLDEN),
                           _mm512_set1_epi64((long long)f->alt_xmask),
                           _mm512_set1_epi64((long long)f->alt_mul),
                           _mm512_set1_epi64((long long)f->num_buckets),
                           _mm512_set1_epi64(f->bucket_bits / 8),
                           _mm512_set1_epi64((long long)f->lane_ones),
                           _mm512_set1_epi64((long long)f->lane_highs),
                           _mm512_set1_epi64((long long)keep)};
    const uint8_t *table = f->table;
    size_t blocks = n / 8, found = 0;
    if (!f->far) {
        for (size_t b = 0; b < blocks; b++)
            found += cf__probe8(&c, table, cf__locate8(&c, hashes + 8 * b),
                                out != NULL ? out + 8 * b : NULL);
        return found;
    }
    /* A ring of located blocks: block b is probed CF__AHEAD blocks after it
     * was located and its buckets prefetched, and block b + CF__AHEAD takes
     * its place. */
    cf__located8 ring[CF__AHEAD];
    for (size_t b = 0; b < blocks && b < CF__AHEAD; b++) {
        ring[b] = cf__locate8(&c, hashes + 8 * b);
        cf__prefetch8(table, ring[b]);
    }
    for (size_t b = 0; b < blocks; b++) {
        found += cf__probe8(&c, table, ring[b % CF__AHEAD], out != NULL ? out + 8 * b : NULL);
        if (b + CF__AHEAD < blocks) {
            ring[b % CF__AHEAD] = cf__locate8(&c, hashes + 8 * (b + CF__AHEAD));
            cf__prefetch8(table, ring[b % CF__AHEAD]);
        }
    }
    return found;
}

#endif /* CF__HAVE_AVX512_BATCH */
