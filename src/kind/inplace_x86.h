/*
 * inplace_x86.h -- an in-place filter's batched lookups eight keys at a
 * time with AVX-512 (inplace_x86.c), for slots of 15 and 16 bits, on the
 * CPUs that have it (asked per batch); cf__inplace_contains_batch's own
 * loop answers elsewhere (other CPUs and widths, -DCF_NO_SIMD,
 * WebAssembly).
 */
#ifndef CF_INPLACE_X86_H
#define CF_INPLACE_X86_H

#include "kind/inplace.h"
#include "table/bucket.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(CF_NO_SIMD) && !defined(__wasm__)
#define CF__HAVE_INPLACE_X86 1

/* Whether cf__inplace_x86 serves f here: slots of 15 or 16 bits, and a CPU
 * with AVX-512 F, DQ and BW. */
bool cf__inplace_x86_suits(const cf_filter *f);

/* cf__inplace_contains_batch's answer for n hashes, n a multiple of 8, on
 * a filter cf__inplace_x86_suits accepts. */
size_t cf__inplace_x86(const cf_filter *f, const uint64_t *hashes, size_t n, bool *out);
#else
#define CF__HAVE_INPLACE_X86 0
#endif

#endif /* CF_INPLACE_X86_H */
