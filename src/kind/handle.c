/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * handle.c -- making and releasing handles (kind/handle.h).  The handle
 * and its table come from the filter's allocator.
 */
#include "kind/handle.h"
#include "table/table.h"

cf_status cf__handle_alloc(const cf_allocator *a, cf_filter **out) {
    *out = NULL;
    cf_allocator alloc;
    CF__FORWARD_IF_ERROR(cf__allocator_resolve(a, &alloc));
    cf_filter *f = cf__alloc(&alloc, sizeof *f);
    CF__RETURN_IF(f == NULL, CF_E_NOMEM);
    memset(f, 0, sizeof *f);
    f->t.alloc = alloc;
    f->kind = CF__PLAIN;
    *out = f;
    return CF_OK;
}

cf_status cf__filter_alloc(const cf_allocator *a, uint64_t nb, unsigned b, unsigned fbits,
                           unsigned flags, unsigned max_kicks, cf_filter **out) {
    cf_filter *f;
    CF__FORWARD_IF_ERROR(cf__handle_alloc(a, &f));
    cf__table_shape(&f->t, nb, b, fbits, flags, max_kicks);
    *out = f;
    return CF_OK;
}

cf_status cf__handle_new_plain(const cf_config *cfg, cf_filter **out) {
    unsigned fbits, b, max_kicks;
    uint64_t nb;
    CF__FORWARD_IF_ERROR(cf__resolve_config(cfg, &fbits, &b, &nb, &max_kicks));
    size_t bytes;
    CF__FORWARD_IF_ERROR(cf__table_bytes(nb, b, fbits, cfg->flags, &bytes));

    cf_filter *f;
    CF__FORWARD_IF_ERROR(cf__filter_alloc(cfg->allocator, nb, b, fbits, cfg->flags, max_kicks, &f));
    cf__set_seed(&f->t, cfg->seed);
    f->t.table_bytes = bytes;
    if (cf__table_alloc(&f->t, true) != CF_OK) {
        cf__handle_free_plain(f);
        return CF_E_NOMEM;
    }
    *out = f;
    return CF_OK;
}

void cf__handle_free_plain(cf_filter *f) {
    if (f == NULL) return;
    cf__table_release(&f->t);
    cf_allocator alloc = f->t.alloc;
    cf__free(&alloc, f);
}
