/*
 * alloc.c -- the only place that touches malloc/free.  Every other module
 * allocates through a filter's cf_allocator, so an embedder (the Redis
 * module) accounts for all memory and tests can inject failures.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

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

cf_status cf__allocator_resolve(const cf_allocator *in, cf_allocator *out) {
    out->alloc = cf__default_alloc;
    out->free = cf__default_free;
    out->ctx = NULL;
    out->calloc = cf__default_calloc;
    if (in == NULL || (in->alloc == NULL && in->free == NULL && in->calloc == NULL)) return CF_OK;
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
