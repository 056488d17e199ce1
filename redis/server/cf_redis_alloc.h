/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_alloc.h -- the allocator every filter and key of the module uses
 * (the Redis module allocator; cf_redis_alloc.c).
 */
#ifndef CF_REDIS_ALLOC_H
#define CF_REDIS_ALLOC_H

#include "cuckoofilter.h"

#include <stdbool.h>
#include <stddef.h>

/* For the library (cf_config.allocator, cf_deserialize); cfr_alloc_init
 * completes it once the module's API is resolved and its arguments read. */
extern cf_allocator cfr_allocator;
void cfr_alloc_init(void);
/* NULL on failure (never aborts the server where Redis has TryAlloc). */
void *cfr_alloc(size_t n);
void cfr_free(void *p);
/* For sanitizer runs only: allocate with libc malloc instead of Redis's. */
void cfr_use_libc_malloc(bool on);

#endif /* CF_REDIS_ALLOC_H */
