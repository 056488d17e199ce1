/*
 * bloom_io.h -- comparison Bloom filters in files (bloom_io.c): the image
 * of format/bloom_format.c, saved atomically as cuckoo filters are
 * (file_path.c's temporary file and rename) and read back validated.
 */
#ifndef CF_BLOOM_IO_H
#define CF_BLOOM_IO_H

#include "bloom.h"

/* cf_bloom_save and cf_bloom_load after their argument checks. */
cf_status cf__bloom_save_path(const cf_bloom *b, const char *path);
cf_status cf__bloom_load_path(const char *path, const cf_allocator *a, cf_bloom **out);

#endif /* CF_BLOOM_IO_H */
