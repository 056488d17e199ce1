/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * bytes.c -- the public functions of a filter's bytes in memory: their
 * size, the whole form, any range of it, and a filter from bytes.  The
 * formats are format/'s (version 1: one table; version 2: a grown filter's
 * chain; version 4: an in-place grown table); these check the arguments and
 * switch on the filter's kind, or on the input's version when reading
 * (cf__image_probe).
 */
#include "kind/concurrent.h"
#include "format/chain_format.h"
#include "format/expiring_format.h"
#include "format/inplace_format.h"
#include "api/kind.h"

size_t cf_serialized_size(const cf_filter *f) {
    if (f == NULL) return 0;
    switch (f->kind) {
    case CF__PLAIN:
    case CF__CONCURRENT: return cf__image_size(f);
    case CF__CHAIN: return cf__chain_serialized_size(f);
    case CF__INPLACE: return cf__inplace_serialized_size(f);
    case CF__EXPIRING: return cf__expiring_serialized_size(f);
    }
    CF__NO_OTHER_KIND();
}

/* cf_serialize's destination, for cf__concurrent_with_view. */
typedef struct cf__dst {
    uint8_t *p;
    size_t cap;
} cf__dst;

static cf_status cf__serialize_table(const cf_filter *t, void *arg) {
    const cf__dst *d = arg;
    CF__RETURN_IF(d->cap < cf__image_size(t), CF_E_TRUNCATED);
    cf__image_encode(t, d->p);
    return CF_OK;
}

cf_status cf_serialize(const cf_filter *f, void *dst, size_t cap, size_t *written) {
    if (written != NULL) *written = 0;
    CF__RETURN_IF(f == NULL || dst == NULL, CF_E_PARAM);
    cf__dst d = {dst, cap};
    cf_status s = CF_OK;
    switch (f->kind) {
    case CF__PLAIN: s = cf__serialize_table(f, &d); break;
    case CF__CONCURRENT: s = cf__concurrent_with_view(f, cf__serialize_table, &d); break;
    case CF__CHAIN:
        s = cap < cf__chain_serialized_size(f) ? CF_E_TRUNCATED : CF_OK;
        if (s == CF_OK) cf__chain_serialize(f, d.p);
        break;
    case CF__INPLACE:
        s = cap < cf__inplace_serialized_size(f) ? CF_E_TRUNCATED : CF_OK;
        if (s == CF_OK) cf__inplace_serialize(f, d.p);
        break;
    case CF__EXPIRING:
        s = cap < cf__expiring_serialized_size(f) ? CF_E_TRUNCATED : CF_OK;
        if (s == CF_OK) cf__expiring_serialize(f, d.p);
        break;
    }
    if (s == CF_OK && written != NULL) *written = cf_serialized_size(f);
    return s;
}

cf_status cf_serialize_range(const cf_filter *f, uint64_t offset, void *dst, size_t len) {
    CF__RETURN_IF(f == NULL || (dst == NULL && len > 0), CF_E_PARAM);
    uint64_t total = cf_serialized_size(f);
    switch (f->kind) {
    case CF__PLAIN:
        CF__RETURN_IF(offset > total || len > total - offset, CF_E_PARAM);
        cf__image_range(f, offset, dst, len);
        return CF_OK;
    case CF__CHAIN:
        CF__RETURN_IF(offset > total || len > total - offset, CF_E_PARAM);
        cf__chain_range(f, offset, dst, len);
        return CF_OK;
    case CF__CONCURRENT:
        /* Read in place: not a table that other threads change meanwhile
         * (cf_serialize takes their locks). */
        return cf__unsupported();
    case CF__INPLACE:
        CF__RETURN_IF(offset > total || len > total - offset, CF_E_PARAM);
        cf__inplace_range(f, offset, dst, len);
        return CF_OK;
    case CF__EXPIRING:
        CF__RETURN_IF(offset > total || len > total - offset, CF_E_PARAM);
        cf__expiring_range(f, offset, dst, len);
        return CF_OK;
    }
    CF__NO_OTHER_KIND();
}

cf_status cf_deserialize(const void *src, size_t len, const cf_allocator *a, cf_filter **out) {
    CF__RETURN_IF(out == NULL, CF_E_PARAM);
    *out = NULL;
    CF__RETURN_IF(src == NULL, CF_E_PARAM);
    switch (cf__image_probe(src, len)) {
    case CF__IMAGE_TABLE: return cf__image_decode(src, len, a, out);
    case CF__IMAGE_CHAIN: return cf__chain_deserialize(src, len, a, out);
    case CF__IMAGE_INPLACE: return cf__inplace_deserialize(src, len, a, out);
    case CF__IMAGE_EXPIRING: return cf__expiring_deserialize(src, len, a, out);
    }
    CF__NO_OTHER_KIND();
}

/* How long the filter at the start of the len bytes at in is (CF_OK), or,
 * on CF_E_TRUNCATED, how long the input must be before more can be said:
 * the next header to read, or the whole filter once its headers are read.
 * Every image is longer than a version-1 header, so asking for one first
 * never reads past a filter.  The headers' decoders are given an input
 * length no filter reaches (UINT64_MAX) once the header is there: they then
 * check every field and give the size without comparing it with len. */
static cf_status cf__image_extent(const uint8_t *in, size_t len, uint64_t *size) {
    *size = CF__HEADER_SIZE;
    switch (cf__image_probe(in, len)) {
    case CF__IMAGE_TABLE: {
        cf__header h;
        if (len < CF__HEADER_SIZE) return cf__header_decode_prefix(in, len, &h);
        CF__FORWARD_IF_ERROR(cf__header_decode_prefix(in, UINT64_MAX, &h));
        *size = h.total_size;
        return CF_OK;
    }
    case CF__IMAGE_CHAIN: {
        cf__chain_plan p;
        CF__FORWARD_IF_ERROR(cf__chain_plan_begin(in, len, &p));
        for (unsigned k = 0; k < p.tables; k++) {
            *size = p.end + CF__HEADER_SIZE; /* record k's header */
            CF__RETURN_IF(len < *size, CF_E_TRUNCATED);
            CF__FORWARD_IF_ERROR(cf__chain_plan_record(&p, k, in + p.end, UINT64_MAX));
        }
        *size = p.end + cf__chain_owed_size(p.owed);
        return CF_OK;
    }
    case CF__IMAGE_INPLACE: {
        cf__inplace_hdr h;
        *size = CF__INPLACE_HEADER_SIZE;
        if (len < CF__INPLACE_HEADER_SIZE) return cf__inplace_header_decode_prefix(in, len, &h);
        CF__FORWARD_IF_ERROR(cf__inplace_header_decode_prefix(in, UINT64_MAX, &h));
        *size = h.total_size;
        return CF_OK;
    }
    case CF__IMAGE_EXPIRING: {
        cf__expiring_hdr h;
        *size = CF__EXPIRING_HEADER_SIZE;
        if (len < CF__EXPIRING_HEADER_SIZE) return cf__expiring_header_decode_prefix(in, len, &h);
        CF__FORWARD_IF_ERROR(cf__expiring_header_decode_prefix(in, UINT64_MAX, &h));
        *size = h.total_size;
        return CF_OK;
    }
    }
    CF__NO_OTHER_KIND();
}

cf_status cf_deserialize_prefix(const void *src, size_t len, const cf_allocator *a, cf_filter **out,
                                size_t *used) {
    if (used != NULL) *used = 0;
    CF__RETURN_IF(out == NULL, CF_E_PARAM);
    *out = NULL;
    CF__RETURN_IF(src == NULL || used == NULL, CF_E_PARAM);
    uint64_t size;
    cf_status s = cf__image_extent(src, len, &size);
    if (s == CF_OK && size > len) s = CF_E_TRUNCATED;
    if (s == CF_E_TRUNCATED) *used = size > SIZE_MAX ? SIZE_MAX : (size_t)size;
    CF__FORWARD_IF_ERROR(s);
    CF__FORWARD_IF_ERROR(cf_deserialize(src, (size_t)size, a, out));
    *used = (size_t)size;
    return CF_OK;
}
