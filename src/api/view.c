/*
 * view.c -- cf_view_init: the constants of a filter's lookup, copied into
 * the caller's cf_view for the inline lookups of cuckoofilter_inline.h.
 * The rules copied here are the library's own (cf__derive_layout's swar,
 * cf__range, cf__alt_index, cf__hash_u64); tests/test_view.c checks the
 * inline lookups against cf_contains* on every shape.
 */
#include "cuckoofilter_inline.h"

#include "kind.h"

/* A plain filter's lookup constants: grown and concurrent filters look up
 * by their own code. */
static void cf__view_of_table(cf_view *v, const cf_filter *f) {
    memset(v, 0, sizeof *v);
    v->table_ = f->table;
    v->filter_ = f;
    v->num_buckets_ = f->num_buckets;
    /* range(h, 2^k) = h >> (64 - k), and (c - i) mod 2^k a mask. */
    if (f->num_buckets >= 2 && (f->num_buckets & (f->num_buckets - 1)) == 0)
        v->index_shift_ = 64 - (unsigned)__builtin_ctzll(f->num_buckets);
    if (!f->swar)
        v->layout_ = CF_VIEW_CALL;
    else if (f->bucket_bits % 8 == 0)
        v->layout_ = CF_VIEW_BYTES, v->stride_ = f->bucket_bits / 8;
    else
        v->layout_ = CF_VIEW_BITS, v->stride_ = f->bucket_bits;
    v->fp_mask_ = f->fp_mask;
    v->lane_ones_ = f->lane_ones;
    v->lane_highs_ = f->lane_highs;
    v->alt_xmask_ = f->alt_xmask;
    v->alt_mul_ = f->alt_mul;
    v->flip48_ = f->hkey.flip48;
}

cf_status cf_view_init_abi(cf_view *v, const cf_filter *f, unsigned abi, size_t size) {
    CF__RETURN_IF(abi != CF_VIEW_ABI || size != sizeof(cf_view), CF_E_VERSION);
    CF__RETURN_IF(v == NULL || f == NULL, CF_E_PARAM);
    switch (f->kind) {
    case CF__PLAIN: cf__view_of_table(v, f); return CF_OK;
    case CF__GROWN:
    case CF__CONCURRENT:
    case CF__INPLACE: return cf__unsupported();
    }
    CF__NO_OTHER_KIND();
}
