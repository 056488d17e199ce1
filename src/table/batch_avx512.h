/*
 * batch_avx512.h -- batched lookups eight keys at a time with AVX-512, for
 * the tables of byte-aligned one-word buckets (batch.c's commonest
 * pipeline), on the CPUs that have it.
 *
 * The library is built for the baseline x86-64; these functions alone are
 * compiled for AVX-512 (F and DQ, a `target` attribute) and run only where
 * the CPU says it has them (cf__batch_avx512_usable, asked per batch: one
 * load and test of libgcc's CPU model), so one binary runs everywhere.
 * Elsewhere (other CPUs, -DCF_NO_SIMD, WebAssembly) batch.c's portable
 * pipeline answers, as it always did.
 */
#ifndef CF_BATCH_AVX512_H
#define CF_BATCH_AVX512_H

#include "table/kernel.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(CF_NO_SIMD) && !defined(__wasm__)
#define CF__HAVE_AVX512_BATCH 1

/* Whether cf__batch_avx512 serves f here: a table of byte-aligned buckets
 * of at most 64 bits (f->swar), fewer than 2^32 buckets, and a CPU with
 * AVX-512 F and DQ. */
bool cf__batch_avx512_usable(const cf__table *f);

/* cf__table_contains_batch_lanes's answer for n hashes, n a multiple of 8,
 * on a table cf__batch_avx512_usable accepts: the same buckets, the same
 * lanes compared, the same answers as batch.c's pipeline. */
size_t cf__batch_avx512(const cf__table *f, const uint64_t *hashes, size_t n, bool *out,
                        uint64_t fp_mask, uint64_t keep);
#else
#define CF__HAVE_AVX512_BATCH 0
#endif

#endif /* CF_BATCH_AVX512_H */
