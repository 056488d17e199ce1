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
#else
#define CF__HAVE_BATCH_X86 0
#endif

#endif /* CF_BATCH_X86_H */
