/* SPDX-License-Identifier: Apache-2.0 OR MIT */
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

cf_status cf_bloom_deserialize_prefix(const void *src, size_t len, const cf_allocator *a,
                                      cf_bloom **out, size_t *used) {
    if (used != NULL) *used = 0;
    CF__RETURN_IF(out == NULL, CF_E_PARAM);
    *out = NULL;
    CF__RETURN_IF(src == NULL || used == NULL, CF_E_PARAM);
    /* The header first (its decoder given an input no image reaches once
     * the header is there: every field checked, the length not compared). */
    size_t bytes;
    uint64_t size = CF__BLOOM_HEADER_SIZE;
    cf_status s = len < CF__BLOOM_HEADER_SIZE
                      ? cf__bloom_header_decode_prefix(src, len, &bytes, &size)
                      : cf__bloom_header_decode_prefix(src, UINT64_MAX, &bytes, &size);
    if (s == CF_OK && size > len) s = CF_E_TRUNCATED;
    if (s == CF_E_TRUNCATED) *used = size > SIZE_MAX ? SIZE_MAX : (size_t)size;
    CF__FORWARD_IF_ERROR(s);
    CF__FORWARD_IF_ERROR(cf__bloom_image_decode(src, (size_t)size, a, out));
    *used = (size_t)size;
    return CF_OK;
}
