/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * alloc.h -- every allocation of the library goes through the filter's
 * allocator (alloc.c): the Redis module accounts its memory, and tests fail
 * allocations one by one.  src/ never calls malloc directly.
 */
#ifndef CF_ALLOC_H
#define CF_ALLOC_H

#include "base/status.h"

/* *out = *in, or malloc/free when in is NULL or empty; CF_E_PARAM when in
 * has only one of alloc and free. */
cf_status cf__allocator_resolve(const cf_allocator *in, cf_allocator *out);
void *cf__alloc(const cf_allocator *a, size_t size);
/* size zeroed bytes: the allocator's calloc if it has one, else alloc + memset. */
void *cf__calloc(const cf_allocator *a, size_t size);
void cf__free(const cf_allocator *a, void *p);
/* Resizes p (old_size bytes) to new_size > 0 bytes: the allocator's realloc
 * (realloc(3) for the default one), else alloc + copy + free.  NULL on
 * failure, p untouched. */
void *cf__realloc(const cf_allocator *a, void *p, size_t old_size, size_t new_size);
/* Tables of this many bytes or more ask for transparent huge pages. */
#define CF__HUGE_MIN ((size_t)4 << 20)
/* Advises the kernel to back [p, p + size) with huge pages when it came
 * from the default allocator and size >= CF__HUGE_MIN (alloc.c). */
void cf__advise_huge(const cf_allocator *a, void *p, size_t size);

#endif /* CF_ALLOC_H */
