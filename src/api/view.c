/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * view.c -- cf_view_init: the constants of a filter's lookup, copied into
 * the caller's cf_view for the inline lookups of cuckoofilter_inline.h.
 * The addressing is the filter's own (cf__derive_layout's addr,
 * index_shift, bucket_bytes); the header's probe restates cf__range,
 * cf__alt_index and cf__hash_u64, and tests/test_view.c checks the inline
 * lookups against cf_contains* on every shape.
 */
#include "cuckoofilter_inline.h"

#include "api/kind.h"

/* A plain filter's lookup constants: grown, concurrent and in-place
 * filters look up by their own code. */
static void cf__view_of_table(cf_view *v, const cf_filter *f) {
    memset(v, 0, sizeof *v);
    v->table_ = f->t.table;
    v->filter_ = f;
    v->num_buckets_ = f->t.num_buckets;
    /* The table's addressing as cf__derive_layout chose it (the kernels'). */
    v->index_shift_ = f->t.index_shift;
    switch (f->t.addr) {
    case CF__ADDR_BYTES:
    case CF__ADDR_POW2_BYTES: v->layout_ = CF_VIEW_BYTES, v->stride_ = f->t.bucket_bytes; break;
    case CF__ADDR_BITS:
    case CF__ADDR_POW2_BITS: v->layout_ = CF_VIEW_BITS, v->stride_ = f->t.bucket_bits; break;
    default: v->layout_ = CF_VIEW_CALL; /* CF__ADDR_OTHER */
    }
    v->fp_mask_ = f->t.fp_mask;
    v->lane_ones_ = f->t.lane_ones;
    v->lane_highs_ = f->t.lane_highs;
    v->alt_xmask_ = f->t.alt_xmask;
    v->alt_mul_ = f->t.alt_mul;
    v->flip48_ = f->t.hkey.flip48;
}

cf_status cf_view_init_abi(cf_view *v, const cf_filter *f, unsigned abi, size_t size) {
    CF__RETURN_IF(abi != CF_VIEW_ABI || size != sizeof(cf_view), CF_E_VERSION);
    CF__RETURN_IF(v == NULL || f == NULL, CF_E_PARAM);
    switch (f->kind) {
    case CF__PLAIN: cf__view_of_table(v, f); return CF_OK;
    case CF__CHAIN:
    case CF__CONCURRENT:
    case CF__INPLACE:
    case CF__EXPIRING: return cf__unsupported();
    }
    CF__NO_OTHER_KIND();
}
