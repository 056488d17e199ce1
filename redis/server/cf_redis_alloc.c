/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_alloc.c -- the module's allocator: every filter, key and buffer
 * goes through Redis's, so MEMORY USAGE and maxmemory see them.  An
 * in-place key's doubling grows its table with Redis's realloc, so Redis
 * never counts the old table and the new one together (jemalloc grows a
 * large block where it lies when it can, else copies it); a failed
 * allocation changes nothing.
 */
#include "server/cf_redis_alloc.h"

#include "server/cf_redismodule.h"

#include <stdlib.h>

/* ---- memory: all through the Redis allocator, so MEMORY USAGE is real ---- */

/* Set once at load (module argument SANITIZER_MALLOC 1): sanitizer test runs
 * use libc malloc so AddressSanitizer sees the module's heap; Redis's
 * jemalloc arenas are invisible to it.  MEMORY USAGE stays exact either way
 * (it sums the sizes the library reports). */
static bool cfr_libc_malloc = false;

void cfr_use_libc_malloc(bool on) {
    cfr_libc_malloc = on;
}

void *cfr_alloc(size_t n) {
    if (cfr_libc_malloc) return malloc(n);
    /* TryAlloc returns NULL on failure; plain Alloc would abort the server. */
    if (RedisModule_TryAlloc) return RedisModule_TryAlloc(n);
    return RedisModule_Alloc(n);
}

void cfr_free(void *p) {
    if (!p) return;
    if (cfr_libc_malloc)
        free(p);
    else
        RedisModule_Free(p);
}

static void *cfr_alloc_cb(void *ctx, size_t n) {
    (void)ctx;
    return cfr_alloc(n);
}

static void cfr_free_cb(void *ctx, void *p) {
    (void)ctx;
    cfr_free(p);
}

/* Tables come zeroed from calloc: jemalloc (and glibc) map fresh pages for
 * large sizes, so CF.RESERVE of any size answers at once and each page is
 * zeroed by the kernel when an insert first touches it.  Redis counts the
 * whole size in used_memory (and maxmemory) at once.  Without TryCalloc
 * (Redis < 7.4) a refused allocation aborts the server, as Redis's own
 * allocations do; MAX_KEY_BYTES bounds every request beforehand. */
static void *cfr_calloc_cb(void *ctx, size_t n) {
    (void)ctx;
    if (cfr_libc_malloc) return calloc(1, n);
    if (RedisModule_TryCalloc) return RedisModule_TryCalloc(1, n);
    return RedisModule_Calloc(1, n);
}

/* TryRealloc (Redis 7.4) returns NULL on failure; a server without
 * TryAlloc aborts on a refusal, as its Alloc does. */
static void *cfr_realloc_cb(void *ctx, void *p, size_t old_size, size_t n) {
    (void)ctx, (void)old_size;
    if (cfr_libc_malloc) return realloc(p, n);
    if (RedisModule_TryRealloc) return RedisModule_TryRealloc(p, n);
    return RedisModule_Realloc(p, n);
}

cf_allocator cfr_allocator = {cfr_alloc_cb, cfr_free_cb, NULL, cfr_calloc_cb, cfr_realloc_cb};

void cfr_alloc_init(void) {
    /* A server with TryAlloc but not TryRealloc: no realloc, so that the
     * library grows a table by a new block from TryAlloc, a copy and a
     * free, and a refused doubling answers instead of aborting. */
    if (!cfr_libc_malloc && RedisModule_TryAlloc && !RedisModule_TryRealloc)
        cfr_allocator.realloc = NULL;
}
