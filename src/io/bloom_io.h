/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * bloom_io.h -- comparison Bloom filters in files (bloom_io.c): the image
 * of format/bloom_format.c, saved atomically as cuckoo filters are
 * (file_path.c's temporary file and rename), read back validated, or
 * mapped read-only.
 */
#ifndef CF_BLOOM_IO_H
#define CF_BLOOM_IO_H

#include "bloom/bloom.h"

/* cf_bloom_save, cf_bloom_load and cf_bloom_map after their argument
 * checks. */
cf_status cf__bloom_save_path(const cf_bloom *b, const char *path);
cf_status cf__bloom_load_path(const char *path, const cf_allocator *a, cf_bloom **out);
cf_status cf__bloom_map_path(const char *path, const cf_allocator *a, cf_bloom **out);

/* Releases a mapped filter's mapping (b->map_base; nothing for another),
 * before cf__bloom_destroy frees the handle. */
void cf__bloom_unmap(cf_bloom *b);

#endif /* CF_BLOOM_IO_H */
