/*
 * bloom_bytes.c -- the public functions of a comparison Bloom filter's
 * bytes, in memory (their size, the whole form, a filter from bytes) and in
 * files (save, load, map), and its release (which unmaps a mapped one).
 * The format is format/bloom_format.c's, the files io/bloom_io.c's; these
 * check the arguments.
 */
#include "format/bloom_format.h"
#include "io/bloom_io.h"

size_t cf_bloom_serialized_size(const cf_bloom *b) {
    return b == NULL ? 0 : cf__bloom_image_size(b);
}

cf_status cf_bloom_serialize(const cf_bloom *b, void *dst, size_t cap, size_t *written) {
    if (written != NULL) *written = 0;
    CF__RETURN_IF(b == NULL || dst == NULL, CF_E_PARAM);
    size_t size = cf__bloom_image_size(b);
    CF__RETURN_IF(cap < size, CF_E_TRUNCATED);
    cf__bloom_image_encode(b, dst);
    if (written != NULL) *written = size;
    return CF_OK;
}

cf_status cf_bloom_deserialize(const void *src, size_t len, const cf_allocator *a, cf_bloom **out) {
    CF__RETURN_IF(out == NULL, CF_E_PARAM);
    *out = NULL;
    CF__RETURN_IF(src == NULL, CF_E_PARAM);
    return cf__bloom_image_decode(src, len, a, out);
}

cf_status cf_bloom_save(const cf_bloom *b, const char *path) {
    CF__RETURN_IF(b == NULL || path == NULL || path[0] == '\0', CF_E_PARAM);
    return cf__bloom_save_path(b, path);
}

cf_status cf_bloom_load(const char *path, const cf_allocator *a, cf_bloom **out) {
    CF__RETURN_IF(out == NULL, CF_E_PARAM);
    *out = NULL;
    CF__RETURN_IF(path == NULL, CF_E_PARAM);
    return cf__bloom_load_path(path, a, out);
}

cf_status cf_bloom_map(const char *path, const cf_allocator *a, cf_bloom **out) {
    CF__RETURN_IF(out == NULL, CF_E_PARAM);
    *out = NULL;
    CF__RETURN_IF(path == NULL, CF_E_PARAM);
    return cf__bloom_map_path(path, a, out);
}

void cf_bloom_free(cf_bloom *b) {
    if (b == NULL) return;
    cf__bloom_unmap(b);
    cf__bloom_destroy(b);
}
