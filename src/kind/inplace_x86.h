/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * inplace_x86.h -- an in-place filter's batched lookups eight keys at a
 * time with AVX-512, four with AVX2 (inplace_x86.c), for slots of 15 and
 * 16 bits, on the CPUs that have them (asked per batch);
 * cf__inplace_contains_batch's own loop answers elsewhere (other CPUs and
 * widths, -DCF_NO_SIMD, WebAssembly).
 */
#ifndef CF_INPLACE_X86_H
#define CF_INPLACE_X86_H

#include "kind/inplace.h"
#include "table/batch_x86.h"

#if CF__HAVE_BATCH_X86
#define CF__HAVE_INPLACE_X86 1

/* The widest kernel this CPU runs on f: 8 (AVX-512 F, DQ and BW), 4
 * (AVX2), or 0 (none, or slots of 32 bits). */
unsigned cf__inplace_x86_width(const cf_filter *f);

/* cf__inplace_contains_batch's answer for n hashes, n a multiple of width,
 * by the kernel of that width (which the CPU must run; slots of 15 or 16
 * bits). */
size_t cf__inplace_x86(const cf_filter *f, unsigned width, const uint64_t *hashes, size_t n,
                       bool *out);
#else
#define CF__HAVE_INPLACE_X86 0
#endif

#endif /* CF_INPLACE_X86_H */
