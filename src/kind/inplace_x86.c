/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * inplace_x86.c -- an in-place filter's batched lookups eight keys at a
 * time with AVX-512 (F, DQ and BW), for its narrow slots (W = 15 and 16),
 * on the CPUs that have it; as table/batch_x86.c does for plain tables.
 *
 * The same arithmetic as cf__inplace_locate_w and cf__inplace_probe_narrow
 * (inplace.h), lane by lane: the partner offset H(t) by two multiplies, the
 * buckets as the top k bits of h and h ^ H(t), each bucket's query string,
 * the two bucket words by two gathers (W = 15: at byte 60 i / 8, shifted by
 * 0 or 4 bits, and spread to 16-bit lanes as cf__inplace_spread15 does,
 * within each 128-bit quarter), and the lanes compared by their markers in
 * 16-bit lanes: 32 lanes, four slots of eight buckets, a register.
 */
#include "kind/inplace_x86.h"

#if CF__HAVE_INPLACE_X86

unsigned cf__inplace_x86_width(const cf_filter *f) {
    const cf__inplace *ip = cf__inplace_of(f);
    if (ip->w != 15 && ip->w != 16) return 0;
    if (cf__batch_x86_runs(8) && __builtin_cpu_supports("avx512bw")) return 8;
    return cf__batch_x86_runs(4) ? 4 : 0;
}

/* ---- AVX-512: eight keys ---- */

typedef struct cf__ip_consts {
    __m512i golden, one, tag_mask, ones16, pow, mask15;
    __m128i top_k, k, below_e; /* shift counts: 64 - k, k, 64 - e */
    unsigned w;
} cf__ip_consts;

/* Eight keys' bucket offsets (bytes), bit shifts within the loaded words
 * (W = 15), and query strings (one 16-bit lane each, in each 64-bit lane). */
typedef struct cf__ip_located {
    __m512i at1, at2, sh1, sh2, q1, q2;
} cf__ip_located;

CF__AVX512BW static inline __m512i cf__ip_query(const cf__ip_consts *c, __m512i x, __m512i t) {
    __m512i e = _mm512_srl_epi64(_mm512_sll_epi64(x, c->k), c->below_e);
    return _mm512_or_si512(_mm512_slli_epi64(t, c->w - CF__INPLACE_TAG_NARROW),
                           _mm512_slli_epi64(e, 1));
}

/* Where bucket i's word starts: byte 8 i (W = 16), else byte 60 i / 8 and
 * the bit 60 i mod 8 (0 or 4) it is shifted by. */
CF__AVX512BW static inline void cf__ip_place(const cf__ip_consts *c, __m512i i, __m512i *at,
                                             __m512i *sh) {
    if (c->w == 16) {
        *at = _mm512_slli_epi64(i, 3);
        *sh = _mm512_setzero_si512();
        return;
    }
    __m512i bit = _mm512_sub_epi64(_mm512_slli_epi64(i, 6), _mm512_slli_epi64(i, 2)); /* 60 i */
    *at = _mm512_srli_epi64(bit, 3);
    *sh = _mm512_and_si512(bit, _mm512_set1_epi64(7));
}

CF__AVX512BW static inline cf__ip_located cf__ip_locate(const cf__ip_consts *c,
                                                        const uint64_t *hashes) {
    __m512i h = _mm512_loadu_si512((const void *)hashes);
    __m512i t = _mm512_and_si512(h, c->tag_mask);
    /* cf__inplace_mix: m = (t + 1) G; m ^= m >> 29; m G. */
    __m512i m = _mm512_mullo_epi64(_mm512_add_epi64(t, c->one), c->golden);
    m = _mm512_mullo_epi64(_mm512_xor_si512(m, _mm512_srli_epi64(m, 29)), c->golden);
    __m512i x2 = _mm512_xor_si512(h, m);
    cf__ip_located l;
    cf__ip_place(c, _mm512_srl_epi64(h, c->top_k), &l.at1, &l.sh1);
    cf__ip_place(c, _mm512_srl_epi64(x2, c->top_k), &l.at2, &l.sh2);
    l.q1 = cf__ip_query(c, h, t);
    l.q2 = cf__ip_query(c, x2, t);
    return l;
}

/* Eight bucket words as 16-bit lanes (four a word). */
CF__AVX512BW static inline __m512i cf__ip_lanes(const cf__ip_consts *c, const uint8_t *table,
                                                __m512i at, __m512i sh) {
    __m512i v = _mm512_i64gather_epi64(at, (const void *)table, 1);
    if (c->w == 16) return v;
    v = _mm512_and_si512(_mm512_srlv_epi64(v, sh), c->mask15);
    __m512i up = _mm512_mulhi_epu16(_mm512_bslli_epi128(v, 2), c->pow);
    return _mm512_and_si512(_mm512_or_si512(_mm512_mullo_epi16(v, c->pow), up),
                            _mm512_set1_epi16(0x7fff));
}

/* Lanes of v that hold an entry matching q above their marker. */
CF__AVX512BW static inline __mmask32 cf__ip_match(__m512i v, __m512i q) {
    __m512i below = _mm512_xor_si512(v, _mm512_sub_epi16(v, _mm512_set1_epi16(1)));
    __m512i d = _mm512_andnot_si512(below, _mm512_xor_si512(v, q));
    return _mm512_test_epi16_mask(v, v) & _mm512_testn_epi16_mask(d, d);
}

CF__AVX512BW static inline size_t cf__ip_probe(const cf__ip_consts *c, const uint8_t *table,
                                               cf__ip_located l, bool *out) {
    __m512i v1 = cf__ip_lanes(c, table, l.at1, l.sh1);
    __m512i v2 = cf__ip_lanes(c, table, l.at2, l.sh2);
    __mmask32 lanes = cf__ip_match(v1, _mm512_mullo_epi64(l.q1, c->ones16)) |
                      cf__ip_match(v2, _mm512_mullo_epi64(l.q2, c->ones16));
    __m512i marked = _mm512_movm_epi16(lanes);
    return cf__answer8(_mm512_test_epi64_mask(marked, marked), out);
}

CF__BATCH_X86_LOOP(CF__AVX512BW, cf__ip_loop8, 8, cf__ip_consts, cf__ip_located, cf__ip_locate,
                   cf__ip_probe, cf__prefetch_offsets8)

CF__AVX512BW static size_t cf__ip_batch8(const cf_filter *f, const uint64_t *hashes, size_t n,
                                         bool *out) {
    const cf__inplace *ip = cf__inplace_of(f);
    unsigned k = ip->level, e = ip->w - 1 - CF__INPLACE_TAG_NARROW;
    const cf__ip_consts c = {_mm512_set1_epi64((long long)CF__GOLDEN),
                             _mm512_set1_epi64(1),
                             _mm512_set1_epi64((1 << CF__INPLACE_TAG_NARROW) - 1),
                             _mm512_set1_epi64((long long)CF__INPLACE_ONES16),
                             _mm512_set_epi16(8, 4, 2, 1, 8, 4, 2, 1, 8, 4, 2, 1, 8, 4, 2, 1, 8, 4,
                                              2, 1, 8, 4, 2, 1, 8, 4, 2, 1, 8, 4, 2, 1),
                             _mm512_set1_epi64((long long)CF__INPLACE_MASK60),
                             _mm_cvtsi32_si128((int)(64 - k)),
                             _mm_cvtsi32_si128((int)k),
                             _mm_cvtsi32_si128((int)(64 - e)),
                             ip->w};
    return cf__ip_loop8(&c, f->t.table, cf__inplace_far(f), hashes, n, out);
}

/* ---- AVX2: four keys, the same steps ---- */

typedef struct cf__ip_consts4 {
    __m256i golden, golden_hi, one, tag_mask, ones16, ones16_hi, pow, mask15;
    __m128i top_k, k, below_e;
    unsigned w;
} cf__ip_consts4;

typedef struct cf__ip_located4 {
    __m256i at1, at2, sh1, sh2, q1, q2;
} cf__ip_located4;

CF__AVX2 static inline __m256i cf__ip_query4(const cf__ip_consts4 *c, __m256i x, __m256i t) {
    __m256i e = _mm256_srl_epi64(_mm256_sll_epi64(x, c->k), c->below_e);
    return _mm256_or_si256(_mm256_slli_epi64(t, (int)(c->w - CF__INPLACE_TAG_NARROW)),
                           _mm256_slli_epi64(e, 1));
}

CF__AVX2 static inline void cf__ip_place4(const cf__ip_consts4 *c, __m256i i, __m256i *at,
                                          __m256i *sh) {
    if (c->w == 16) {
        *at = _mm256_slli_epi64(i, 3);
        *sh = _mm256_setzero_si256();
        return;
    }
    __m256i bit = _mm256_sub_epi64(_mm256_slli_epi64(i, 6), _mm256_slli_epi64(i, 2)); /* 60 i */
    *at = _mm256_srli_epi64(bit, 3);
    *sh = _mm256_and_si256(bit, _mm256_set1_epi64x(7));
}

CF__AVX2 static inline cf__ip_located4 cf__ip_locate4(const cf__ip_consts4 *c,
                                                      const uint64_t *hashes) {
    __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)hashes);
    __m256i t = _mm256_and_si256(h, c->tag_mask);
    __m256i m = cf__mul32x64(_mm256_add_epi64(t, c->one), c->golden, c->golden_hi);
    m = cf__mul64x64(_mm256_xor_si256(m, _mm256_srli_epi64(m, 29)), c->golden, c->golden_hi);
    __m256i x2 = _mm256_xor_si256(h, m);
    cf__ip_located4 l;
    cf__ip_place4(c, _mm256_srl_epi64(h, c->top_k), &l.at1, &l.sh1);
    cf__ip_place4(c, _mm256_srl_epi64(x2, c->top_k), &l.at2, &l.sh2);
    l.q1 = cf__ip_query4(c, h, t);
    l.q2 = cf__ip_query4(c, x2, t);
    return l;
}

CF__AVX2 static inline __m256i cf__ip_lanes4(const cf__ip_consts4 *c, const uint8_t *table,
                                             __m256i at, __m256i sh) {
    __m256i v = _mm256_i64gather_epi64((const long long *)(const void *)table, at, 1);
    if (c->w == 16) return v;
    v = _mm256_and_si256(_mm256_srlv_epi64(v, sh), c->mask15);
    __m256i up = _mm256_mulhi_epu16(_mm256_bslli_epi128(v, 2), c->pow);
    return _mm256_and_si256(_mm256_or_si256(_mm256_mullo_epi16(v, c->pow), up),
                            _mm256_set1_epi16(0x7fff));
}

/* All ones in the lanes of v that hold an entry matching q. */
CF__AVX2 static inline __m256i cf__ip_match4(__m256i v, __m256i q) {
    __m256i zero = _mm256_setzero_si256();
    __m256i below = _mm256_xor_si256(v, _mm256_sub_epi16(v, _mm256_set1_epi16(1)));
    __m256i d = _mm256_andnot_si256(below, _mm256_xor_si256(v, q));
    return _mm256_andnot_si256(_mm256_cmpeq_epi16(v, zero), _mm256_cmpeq_epi16(d, zero));
}

CF__AVX2 static inline size_t cf__ip_probe4(const cf__ip_consts4 *c, const uint8_t *table,
                                            cf__ip_located4 l, bool *out) {
    __m256i v1 = cf__ip_lanes4(c, table, l.at1, l.sh1);
    __m256i v2 = cf__ip_lanes4(c, table, l.at2, l.sh2);
    __m256i q1 = cf__mul32x64(l.q1, c->ones16, c->ones16_hi);
    __m256i q2 = cf__mul32x64(l.q2, c->ones16, c->ones16_hi);
    return cf__answer4(_mm256_or_si256(cf__ip_match4(v1, q1), cf__ip_match4(v2, q2)), out);
}

CF__BATCH_X86_LOOP(CF__AVX2, cf__ip_loop4, 4, cf__ip_consts4, cf__ip_located4, cf__ip_locate4,
                   cf__ip_probe4, cf__prefetch_offsets4)

CF__AVX2 static size_t cf__ip_batch4(const cf_filter *f, const uint64_t *hashes, size_t n,
                                     bool *out) {
    const cf__inplace *ip = cf__inplace_of(f);
    unsigned k = ip->level, e = ip->w - 1 - CF__INPLACE_TAG_NARROW;
    const cf__ip_consts4 c = {_mm256_set1_epi64x((long long)CF__GOLDEN),
                              _mm256_set1_epi64x((long long)(CF__GOLDEN >> 32)),
                              _mm256_set1_epi64x(1),
                              _mm256_set1_epi64x((1 << CF__INPLACE_TAG_NARROW) - 1),
                              _mm256_set1_epi64x((long long)CF__INPLACE_ONES16),
                              _mm256_set1_epi64x((long long)(CF__INPLACE_ONES16 >> 32)),
                              _mm256_set_epi16(8, 4, 2, 1, 8, 4, 2, 1, 8, 4, 2, 1, 8, 4, 2, 1),
                              _mm256_set1_epi64x((long long)CF__INPLACE_MASK60),
                              _mm_cvtsi32_si128((int)(64 - k)),
                              _mm_cvtsi32_si128((int)k),
                              _mm_cvtsi32_si128((int)(64 - e)),
                              ip->w};
    return cf__ip_loop4(&c, f->t.table, cf__inplace_far(f), hashes, n, out);
}

size_t cf__inplace_x86(const cf_filter *f, unsigned width, const uint64_t *hashes, size_t n,
                       bool *out) {
    return width == 8 ? cf__ip_batch8(f, hashes, n, out) : cf__ip_batch4(f, hashes, n, out);
}

#endif /* CF__HAVE_INPLACE_X86 */
