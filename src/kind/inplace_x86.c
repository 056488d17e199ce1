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
#include <immintrin.h>

#define CF__AVX512BW __attribute__((target("avx512f,avx512dq,avx512bw")))

/* Keys located and prefetched ahead of their probes in a far table: as
 * table/batch_x86.c. */
#define CF__INPLACE_AHEAD_BLOCKS 6

bool cf__inplace_x86_suits(const cf_filter *f) {
    const cf__inplace *ip = cf__inplace_of(f);
    if (ip->w != 15 && ip->w != 16) return false;
    __builtin_cpu_init(); /* idempotent; needed only before constructors ran */
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512bw");
}

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
    __mmask8 hit = _mm512_test_epi64_mask(marked, marked);
    if (out != NULL)
        _mm_storel_epi64((__m128i *)(void *)out,
                         _mm512_cvtepi64_epi8(_mm512_maskz_set1_epi64(hit, 1)));
    return (size_t)__builtin_popcount(hit);
}

CF__AVX512BW static inline void cf__ip_prefetch(const uint8_t *table, cf__ip_located l) {
    uint64_t at[16];
    _mm512_storeu_si512((void *)at, l.at1);
    _mm512_storeu_si512((void *)(at + 8), l.at2);
    for (int k = 0; k < 16; k++) cf__prefetch_word(table + at[k]);
}

CF__AVX512BW size_t cf__inplace_x86(const cf_filter *f, const uint64_t *hashes, size_t n,
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
    const uint8_t *table = f->t.table;
    size_t blocks = n / 8, found = 0;
    if (!cf__inplace_far(f)) {
        for (size_t b = 0; b < blocks; b++)
            found += cf__ip_probe(&c, table, cf__ip_locate(&c, hashes + 8 * b),
                                  out != NULL ? out + 8 * b : NULL);
        return found;
    }
    cf__ip_located ring[CF__INPLACE_AHEAD_BLOCKS];
    for (size_t b = 0; b < blocks && b < CF__INPLACE_AHEAD_BLOCKS; b++) {
        ring[b] = cf__ip_locate(&c, hashes + 8 * b);
        cf__ip_prefetch(table, ring[b]);
    }
    for (size_t b = 0; b < blocks; b++) {
        size_t r = b % CF__INPLACE_AHEAD_BLOCKS;
        found += cf__ip_probe(&c, table, ring[r], out != NULL ? out + 8 * b : NULL);
        if (b + CF__INPLACE_AHEAD_BLOCKS < blocks) {
            ring[r] = cf__ip_locate(&c, hashes + 8 * (b + CF__INPLACE_AHEAD_BLOCKS));
            cf__ip_prefetch(table, ring[r]);
        }
    }
    return found;
}

#endif /* CF__HAVE_INPLACE_X86 */
