/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * batch_x86.h -- batched lookups several keys at a time with AVX-512 (8)
 * or AVX2 (4), for the tables of byte-aligned one-word buckets (batch.c's
 * commonest pipeline), on the CPUs that have them.
 *
 * The library is built for the baseline x86-64; these kernels alone are
 * compiled for their instruction sets (a `target` attribute each) and run
 * only where the CPU says it has them (cf__batch_x86_width, asked per
 * batch: a load and a test of libgcc's CPU model), so one binary runs
 * everywhere.  Elsewhere (other CPUs, -DCF_NO_SIMD, WebAssembly) batch.c's
 * portable pipeline answers, as it always did.
 */
#ifndef CF_BATCH_X86_H
#define CF_BATCH_X86_H

#include "table/kernel.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(CF_NO_SIMD) && !defined(__wasm__)
#define CF__HAVE_BATCH_X86 1

/* Whether f's layout suits the kernels: byte-aligned buckets of at most 64
 * bits (f->swar), fewer than 2^32 buckets. */
bool cf__batch_x86_suits(const cf__table *f);

/* Whether this CPU runs the kernel that takes `width` keys at a time: 8
 * (AVX-512 F and DQ) or 4 (AVX2). */
bool cf__batch_x86_runs(unsigned width);

/* The widest kernel this CPU runs on f: 8, 4, or 0 (none; batch.c's
 * pipeline). */
unsigned cf__batch_x86_width(const cf__table *f);

/* cf__table_contains_batch_lanes's answer for n hashes, n a multiple of
 * width, on a table the kernels suit, by the kernel of that width (which
 * the CPU must run): the same buckets, the same lanes compared, the same
 * answers as batch.c's pipeline. */
size_t cf__batch_x86(const cf__table *f, unsigned width, const uint64_t *hashes, size_t n,
                     bool *out, uint64_t fp_mask, uint64_t keep);

/* ---- what the kernels share (batch_x86.c, kind/inplace_x86.c) ---- */
#include <immintrin.h>

#define CF__AVX512 __attribute__((target("avx512f,avx512dq")))
#define CF__AVX512BW __attribute__((target("avx512f,avx512dq,avx512bw")))
#define CF__AVX2 __attribute__((target("avx2")))

/* Keys located and prefetched ahead of their probes in a far table, as
 * batch.c's CF__PIPE: 6 blocks of 8, 12 of 4. */
#define CF__AHEAD_KEYS 48

/* The loop every kernel runs, as a function `name` of (the kernel's
 * constants c, the table's bytes, whether it is far, the hashes, n a
 * multiple of W, out): blocks of W keys, located (LOCATE) and probed
 * (PROBE) directly in a near table; in a far one through a ring of located
 * blocks, each prefetched (PREFETCH) CF__AHEAD_KEYS keys before its probe,
 * the next block taking its place.  CONSTS is the kernel's constants'
 * type, LOCATED a located block's (with the byte offsets of its keys'
 * buckets in at1 and at2, which PREFETCH, cf__prefetch_offsets8 or 4,
 * takes). */
#define CF__BATCH_X86_LOOP(ATTR, name, W, CONSTS, LOCATED, LOCATE, PROBE, PREFETCH)               \
    ATTR static size_t name(const CONSTS *c, const uint8_t *table, bool far,                      \
                            const uint64_t *hashes, size_t n, bool *out) {                        \
        size_t blocks = n / (W), found = 0;                                                       \
        if (!far) {                                                                               \
            for (size_t b = 0; b < blocks; b++)                                                   \
                found +=                                                                          \
                    PROBE(c, table, LOCATE(c, hashes + (W)*b), out != NULL ? out + (W)*b : NULL); \
            return found;                                                                         \
        }                                                                                         \
        enum { ahead = CF__AHEAD_KEYS / (W) };                                                    \
        LOCATED ring[ahead];                                                                      \
        for (size_t b = 0; b < blocks && b < ahead; b++) {                                        \
            ring[b] = LOCATE(c, hashes + (W)*b);                                                  \
            PREFETCH(table, ring[b].at1, ring[b].at2);                                            \
        }                                                                                         \
        for (size_t b = 0; b < blocks; b++) {                                                     \
            found += PROBE(c, table, ring[b % ahead], out != NULL ? out + (W)*b : NULL);          \
            if (b + ahead < blocks) {                                                             \
                ring[b % ahead] = LOCATE(c, hashes + (W) * (b + ahead));                          \
                PREFETCH(table, ring[b % ahead].at1, ring[b % ahead].at2);                        \
            }                                                                                     \
        }                                                                                         \
        return found;                                                                             \
    }

/* Prefetches the words at the byte offsets of both vectors. */
CF__AVX512 static inline void cf__prefetch_offsets8(const uint8_t *table, __m512i at1,
                                                    __m512i at2) {
    uint64_t at[16];
    _mm512_storeu_si512((void *)at, at1);
    _mm512_storeu_si512((void *)(at + 8), at2);
    for (int k = 0; k < 16; k++) cf__prefetch_word(table + at[k]);
}

CF__AVX2 static inline void cf__prefetch_offsets4(const uint8_t *table, __m256i at1, __m256i at2) {
    uint64_t at[8];
    _mm256_storeu_si256((__m256i *)(void *)at, at1);
    _mm256_storeu_si256((__m256i *)(void *)(at + 4), at2);
    for (int k = 0; k < 8; k++) cf__prefetch_word(table + at[k]);
}

/* A probe's answers: out[j] (unless out is NULL) whether key j of the
 * block was found, from the keys' lanes of hit (eight keys) or the
 * nonzero lanes of any (four); how many were. */
CF__AVX512 static inline size_t cf__answer8(__mmask8 hit, bool *out) {
    if (out != NULL)
        _mm_storel_epi64((__m128i *)(void *)out,
                         _mm512_cvtepi64_epi8(_mm512_maskz_set1_epi64(hit, 1)));
    return (size_t)__builtin_popcount(hit);
}

CF__AVX2 static inline size_t cf__answer4(__m256i any, bool *out) {
    __m256i none = _mm256_cmpeq_epi64(any, _mm256_setzero_si256());
    unsigned hit = ~(unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(none)) & 15u;
    if (out != NULL)
        for (unsigned j = 0; j < 4; j++) out[j] = (hit >> j) & 1u;
    return (size_t)__builtin_popcount(hit);
}

/* The low 64 bits of a b for a < 2^32 (b_hi is b >> 32): AVX2 has no
 * 64-bit multiply, so a b_lo + (a b_hi << 32). */
CF__AVX2 static inline __m256i cf__mul32x64(__m256i a, __m256i b, __m256i b_hi) {
    return _mm256_add_epi64(_mm256_mul_epu32(a, b),
                            _mm256_slli_epi64(_mm256_mul_epu32(a, b_hi), 32));
}

/* The low 64 bits of a b for any a: a_lo b + (a_hi b_lo << 32). */
CF__AVX2 static inline __m256i cf__mul64x64(__m256i a, __m256i b, __m256i b_hi) {
    __m256i cross =
        _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b), _mm256_mul_epu32(a, b_hi));
    return _mm256_add_epi64(_mm256_mul_epu32(a, b), _mm256_slli_epi64(cross, 32));
}

#else
#define CF__HAVE_BATCH_X86 0
#endif

#endif /* CF_BATCH_X86_H */
