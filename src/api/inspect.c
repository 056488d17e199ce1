/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * inspect.c -- the public calls that show a table at work (cf_locate,
 * cf_read_bucket, cf_insert_traced): where a key goes, what a bucket holds,
 * and the moves an insert makes.  Single tables only (plain filters); the
 * growing and concurrent kinds are refused (cf__unsupported).
 */
#include "table/kernel.h"
#include "api/kind.h"

cf_status cf_locate_hash(const cf_filter *f, uint64_t h, cf_location *out) {
    CF__RETURN_IF(f == NULL || out == NULL, CF_E_PARAM);
    switch (f->kind) {
    case CF__PLAIN: break;
    case CF__CHAIN:
    case CF__CONCURRENT:
    case CF__INPLACE:
    case CF__EXPIRING: return cf__unsupported();
    }
    cf__slots p = cf__locate(&f->t, h);
    *out = (cf_location){.fingerprint = p.fp, .bucket1 = p.i1, .bucket2 = p.i2};
    return CF_OK;
}

cf_status cf_locate(const cf_filter *f, const void *key, size_t len, cf_location *out) {
    CF__RETURN_IF(f == NULL || (key == NULL && len != 0), CF_E_PARAM);
    return cf_locate_hash(f, cf__hash_keyed(&f->t.hkey, key, len), out);
}

cf_status cf_read_bucket(const cf_filter *f, uint64_t bucket, uint32_t *slots, size_t cap) {
    CF__RETURN_IF(f == NULL || slots == NULL, CF_E_PARAM);
    switch (f->kind) {
    case CF__PLAIN: break;
    case CF__CHAIN:
    case CF__CONCURRENT:
    case CF__INPLACE:
    case CF__EXPIRING: return cf__unsupported();
    }
    CF__RETURN_IF(cap < f->t.bucket_size || bucket >= f->t.num_buckets, CF_E_PARAM);
    for (unsigned s = 0; s < f->t.bucket_size; s++) slots[s] = cf__slot_get(&f->t, bucket, s);
    return CF_OK;
}

cf_status cf_insert_traced_hash(cf_filter *f, uint64_t h, cf_move *moves, size_t cap,
                                size_t *nmoves) {
    if (nmoves != NULL) *nmoves = 0;
    CF__RETURN_IF(f == NULL || (moves == NULL && cap != 0), CF_E_PARAM);
    CF__RETURN_IF(f->t.read_only, CF_E_READONLY);
    switch (f->kind) {
    case CF__PLAIN: break;
    case CF__CHAIN:
    case CF__CONCURRENT:
    case CF__INPLACE:
    case CF__EXPIRING: return cf__unsupported();
    }
    cf__trace trace = {moves, cap, 0};
    cf_status s = cf__insert_traced(&f->t, cf__locate(&f->t, h), &trace);
    if (s == CF_OK && nmoves != NULL) *nmoves = trace.n;
    return s;
}

cf_status cf_insert_traced(cf_filter *f, const void *key, size_t len, cf_move *moves, size_t cap,
                           size_t *nmoves) {
    if (nmoves != NULL) *nmoves = 0;
    CF__RETURN_IF(f == NULL || (key == NULL && len != 0), CF_E_PARAM);
    return cf_insert_traced_hash(f, cf__hash_keyed(&f->t.hkey, key, len), moves, cap, nmoves);
}
