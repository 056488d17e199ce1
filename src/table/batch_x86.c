/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * batch_x86.c -- cf_contains_batch several keys at a time: eight with
 * AVX-512 (F and DQ), four with AVX2.  Each step of a lookup, from the hash
 * to the lanes' compare, is a few instructions for all the keys of a block,
 * and their bucket words come in two gathers.
 *
 * The same arithmetic as the scalar kernels (table/layout.h), lane by lane:
 *   fp = ((h mod 2^32) * fp_mask >> 32) + 1
 *   i1 = range(h, nb), i2 = reflect(range(map(fp), nb), i1, nb)
 * with range(x, n) = floor(x n / 2^64) from two 32 x 32 -> 64 multiplies,
 * exact for n < 2^32 (neither set has a 64-bit multiply-high), and the
 * bucket test cf__zero_lanes on both words.  Tables past CF__NEAR_BYTES
 * have their buckets prefetched CF__AHEAD_KEYS keys ahead, as batch.c's
 * pipeline does one key at a time.
 */
#include "table/batch_x86.h"

#if CF__HAVE_BATCH_X86

bool cf__batch_x86_suits(const cf__table *f) {
    return f->swar && f->bucket_bits % 8 == 0 &&
           f->num_buckets <= UINT32_MAX; /* swar: not semi-sorted */
}

bool cf__batch_x86_runs(unsigned width) {
    __builtin_cpu_init(); /* idempotent; needed only before constructors ran */
    if (width == 8) return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
    return width == 4 && __builtin_cpu_supports("avx2");
}

unsigned cf__batch_x86_width(const cf__table *f) {
    if (!cf__batch_x86_suits(f)) return 0;
    return cf__batch_x86_runs(8) ? 8 : cf__batch_x86_runs(4) ? 4 : 0;
}

/* ---- AVX-512: eight keys ---- */

typedef struct cf__consts8 {
    __m512i fp_mask, golden, alt_xmask, alt_mul, nb, stride, lane_ones, lane_highs, keep;
} cf__consts8;

/* Where eight keys' buckets start (byte offsets) and their fingerprints. */
typedef struct cf__located8 {
    __m512i at1, at2, fp;
} cf__located8;

CF__AVX512 static inline cf__consts8 cf__consts8_of(const cf__table *f, uint64_t fp_mask,
                                                    uint64_t keep) {
    cf__consts8 c = {_mm512_set1_epi64((long long)fp_mask),
                     _mm512_set1_epi64((long long)CF__GOLDEN),
                     _mm512_set1_epi64((long long)f->alt_xmask),
                     _mm512_set1_epi64((long long)f->alt_mul),
                     _mm512_set1_epi64((long long)f->num_buckets),
                     _mm512_set1_epi64(f->bucket_bits / 8),
                     _mm512_set1_epi64((long long)f->lane_ones),
                     _mm512_set1_epi64((long long)f->lane_highs),
                     _mm512_set1_epi64((long long)keep)};
    return c;
}

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

/* The keys' answers as bytes 0 or 1 at out (when not NULL); the number
 * found. */
CF__AVX512 static inline size_t cf__probe8(const cf__consts8 *c, const uint8_t *table,
                                           cf__located8 l, bool *out) {
    __m512i w1 = _mm512_i64gather_epi64(l.at1, (const void *)table, 1);
    __m512i w2 = _mm512_i64gather_epi64(l.at2, (const void *)table, 1);
    __m512i v = _mm512_mullo_epi64(l.fp, c->lane_ones);
    __m512i z = _mm512_or_si512(cf__zero_lanes8(c, w1, v), cf__zero_lanes8(c, w2, v));
    return cf__answer8(_mm512_test_epi64_mask(z, z), out);
}

CF__BATCH_X86_LOOP(CF__AVX512, cf__loop8, 8, cf__consts8, cf__located8, cf__locate8, cf__probe8,
                   cf__prefetch_offsets8)

CF__AVX512 static size_t cf__batch8(const cf__table *f, const uint64_t *hashes, size_t n, bool *out,
                                    uint64_t fp_mask, uint64_t keep) {
    const cf__consts8 c = cf__consts8_of(f, fp_mask, keep);
    return cf__loop8(&c, f->table, f->far, hashes, n, out);
}

/* ---- AVX2: four keys ---- */

typedef struct cf__consts4 {
    __m256i fp_mask, golden, golden_hi, alt_xmask, alt_mul, alt_mul_hi, nb, stride, lane_ones,
        lane_ones_hi, lane_highs, keep;
} cf__consts4;

typedef struct cf__located4 {
    __m256i at1, at2, fp;
} cf__located4;

CF__AVX2 static inline cf__consts4 cf__consts4_of(const cf__table *f, uint64_t fp_mask,
                                                  uint64_t keep) {
    cf__consts4 c = {_mm256_set1_epi64x((long long)fp_mask),
                     _mm256_set1_epi64x((long long)CF__GOLDEN),
                     _mm256_set1_epi64x((long long)(CF__GOLDEN >> 32)),
                     _mm256_set1_epi64x((long long)f->alt_xmask),
                     _mm256_set1_epi64x((long long)f->alt_mul),
                     _mm256_set1_epi64x((long long)(f->alt_mul >> 32)),
                     _mm256_set1_epi64x((long long)f->num_buckets),
                     _mm256_set1_epi64x(f->bucket_bits / 8),
                     _mm256_set1_epi64x((long long)f->lane_ones),
                     _mm256_set1_epi64x((long long)(f->lane_ones >> 32)),
                     _mm256_set1_epi64x((long long)f->lane_highs),
                     _mm256_set1_epi64x((long long)keep)};
    return c;
}

CF__AVX2 static inline __m256i cf__range4(__m256i x, __m256i n) {
    __m256i lo = _mm256_srli_epi64(_mm256_mul_epu32(x, n), 32);
    __m256i hi = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), n);
    return _mm256_srli_epi64(_mm256_add_epi64(hi, lo), 32);
}

CF__AVX2 static inline cf__located4 cf__locate4(const cf__consts4 *c, const uint64_t *hashes) {
    __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)hashes);
    __m256i fp = _mm256_add_epi64(_mm256_srli_epi64(_mm256_mul_epu32(h, c->fp_mask), 32),
                                  _mm256_set1_epi64x(1));
    __m256i m = cf__mul32x64(fp, c->golden, c->golden_hi);
    m = _mm256_xor_si256(m, _mm256_and_si256(_mm256_srli_epi64(m, 29), c->alt_xmask));
    m = cf__mul64x64(m, c->alt_mul, c->alt_mul_hi);
    __m256i i1 = cf__range4(h, c->nb), p = cf__range4(m, c->nb);
    /* reflect; i1 and p are below 2^32, so the signed compare is right. */
    __m256i i2 = _mm256_add_epi64(_mm256_sub_epi64(p, i1),
                                  _mm256_and_si256(_mm256_cmpgt_epi64(i1, p), c->nb));
    cf__located4 l = {_mm256_mul_epu32(i1, c->stride), _mm256_mul_epu32(i2, c->stride), fp};
    return l;
}

CF__AVX2 static inline __m256i cf__zero_lanes4(const cf__consts4 *c, __m256i w, __m256i v) {
    __m256i x = _mm256_and_si256(_mm256_xor_si256(w, v), c->keep);
    return _mm256_and_si256(_mm256_andnot_si256(x, _mm256_sub_epi64(x, c->lane_ones)),
                            c->lane_highs);
}

CF__AVX2 static inline size_t cf__probe4(const cf__consts4 *c, const uint8_t *table, cf__located4 l,
                                         bool *out) {
    const long long *base = (const long long *)(const void *)table;
    __m256i w1 = _mm256_i64gather_epi64(base, l.at1, 1);
    __m256i w2 = _mm256_i64gather_epi64(base, l.at2, 1);
    __m256i v = cf__mul32x64(l.fp, c->lane_ones, c->lane_ones_hi);
    return cf__answer4(_mm256_or_si256(cf__zero_lanes4(c, w1, v), cf__zero_lanes4(c, w2, v)), out);
}

CF__BATCH_X86_LOOP(CF__AVX2, cf__loop4, 4, cf__consts4, cf__located4, cf__locate4, cf__probe4,
                   cf__prefetch_offsets4)

CF__AVX2 static size_t cf__batch4(const cf__table *f, const uint64_t *hashes, size_t n, bool *out,
                                  uint64_t fp_mask, uint64_t keep) {
    const cf__consts4 c = cf__consts4_of(f, fp_mask, keep);
    return cf__loop4(&c, f->table, f->far, hashes, n, out);
}

size_t cf__batch_x86(const cf__table *f, unsigned width, const uint64_t *hashes, size_t n,
                     bool *out, uint64_t fp_mask, uint64_t keep) {
    return (width == 8 ? cf__batch8 : cf__batch4)(f, hashes, n, out, fp_mask, keep);
}

#endif /* CF__HAVE_BATCH_X86 */
