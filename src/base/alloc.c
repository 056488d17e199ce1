/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * alloc.c -- the only place that touches malloc/free.  Every other module
 * allocates through a filter's cf_allocator, so an embedder (the Redis
 * module) accounts for all memory and tests can inject failures.
 */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/alloc.h"

static void *cf__default_alloc(void *ctx, size_t size) {
    (void)ctx;
    return malloc(size);
}

static void cf__default_free(void *ctx, void *ptr) {
    (void)ctx;
    free(ptr);
}

/* libc's calloc maps fresh zero pages for large sizes instead of writing
 * zeros, so a big table costs nothing until its pages are touched. */
static void *cf__default_calloc(void *ctx, size_t size) {
    (void)ctx;
    return calloc(1, size);
}

/* glibc's realloc moves a large block with mremap: no copy, and never two
 * tables at once. */
static void *cf__default_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
    (void)ctx, (void)old_size;
    return realloc(ptr, new_size);
}

cf_status cf__allocator_resolve(const cf_allocator *in, cf_allocator *out) {
    out->alloc = cf__default_alloc;
    out->free = cf__default_free;
    out->ctx = NULL;
    out->calloc = cf__default_calloc;
    out->realloc = cf__default_realloc;
    if (in == NULL ||
        (in->alloc == NULL && in->free == NULL && in->calloc == NULL && in->realloc == NULL))
        return CF_OK;
    /* Half an allocator would silently mix the embedder's heap with malloc's. */
    CF__RETURN_IF(in->alloc == NULL || in->free == NULL, CF_E_PARAM);
    *out = *in;
    return CF_OK;
}

void *cf__alloc(const cf_allocator *a, size_t size) {
    return size == 0 ? NULL : a->alloc(a->ctx, size);
}

void *cf__calloc(const cf_allocator *a, size_t size) {
    if (size == 0) return NULL;
    /* Without the embedder's calloc, zero by hand: never mix heaps. */
    if (a->calloc != NULL) return a->calloc(a->ctx, size);
    void *p = a->alloc(a->ctx, size);
    if (p != NULL) memset(p, 0, size);
    return p;
}

void cf__free(const cf_allocator *a, void *p) {
    if (p != NULL) a->free(a->ctx, p);
}

/* Transparent huge pages for big tables.  A lookup in a table far larger
 * than the caches costs a page walk as well as the line it reads; with
 * 2 MiB pages the walk is shorter and more of it is cached (measured:
 * lookups 10-25% and inserts ~15% faster at 200 MB-1 GB, docs/BENCHMARKS.md).
 * Only memory from the default allocator is advised: malloc serves such
 * sizes from a mapping of their own, while an embedder's allocator (Redis's
 * jemalloc) keeps its own policy for the mappings it owns.  Linux's THP
 * mode decides the rest ("never" ignores the advice, "always" needs none);
 * CF_HUGEPAGES=0 in the environment turns the advice off. */
void cf__advise_huge(const cf_allocator *a, void *p, size_t size) {
#ifdef MADV_HUGEPAGE
    if (p == NULL || size < CF__HUGE_MIN || a->alloc != cf__default_alloc) return;
    const char *env = getenv("CF_HUGEPAGES");
    if (env != NULL && strcmp(env, "0") == 0) return;
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) return;
    /* Every page the block touches: malloc serves such sizes from a mapping
     * of their own, whose first and last pages it shares with nobody but
     * its header; advice on part of a mapping would split it in two, and
     * realloc's mremap refuses a range over two mappings (EFAULT), falling
     * back to a copy. */
    uintptr_t lo = (uintptr_t)p & ~((uintptr_t)page - 1);
    uintptr_t hi = ((uintptr_t)p + size + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    /* Advice only: a kernel without THP refuses it, and nothing changes. */
    (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)a, (void)p, (void)size;
#endif
}

void *cf__realloc(const cf_allocator *a, void *p, size_t old_size, size_t new_size) {
    if (a->realloc != NULL) return a->realloc(a->ctx, p, old_size, new_size);
    /* An embedder's allocator without realloc: a new block, a copy, the old
     * one freed (never mixing heaps). */
    void *q = a->alloc(a->ctx, new_size);
    if (q == NULL) return NULL;
    memcpy(q, p, old_size < new_size ? old_size : new_size);
    a->free(a->ctx, p);
    return q;
}
