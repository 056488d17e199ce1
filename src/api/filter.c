/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * filter.c -- the public life cycle of a filter: creating it (of the kind
 * its configuration asks for), turning a plain one concurrent, describing,
 * clearing and releasing it.  Each function checks its arguments, then
 * switches on the kind (kind.h); the work is table/'s and kind/'s.
 */
#include "api/kind.h"
#include "format/cf_format.h"
#include "io/file_sys.h"
#include "kind/chain.h"
#include "kind/concurrent.h"
#include "kind/expiring.h"
#include "kind/inplace.h"
#include "kind/plain.h"

/* The kind of filter cfg asks for (CF_CONCURRENT and CF_GROW together are
 * refused by cf__concurrent_new, which accepts no other flag). */
static cf__kind cf__config_kind(const cf_config *cfg) {
    /* Expiry first: cf__expiring_new refuses every flag with it. */
    if (cfg->expire_after != 0) return CF__EXPIRING;
    if (cfg->flags & CF_CONCURRENT) return CF__CONCURRENT;
    if ((cfg->flags & CF_GROW) && cfg->growth_mode == CF_GROWTH_INPLACE) return CF__INPLACE;
    if (cfg->flags & CF_GROW) return CF__CHAIN;
    return CF__PLAIN;
}

cf_status cf_new(const cf_config *cfg, cf_filter **out) {
    CF__RETURN_IF(out == NULL, CF_E_PARAM);
    *out = NULL;
    CF__RETURN_IF(cfg == NULL, CF_E_PARAM);
    CF__RETURN_IF(cfg->growth_mode > CF_GROWTH_INPLACE, CF_E_PARAM);
    CF__KIND_DISPATCH(cf__config_kind(cfg), new, cfg, out);
}

const char *cf_kind_name(const cf_filter *f) {
    if (f == NULL) return NULL;
    switch (f->kind) {
    case CF__PLAIN: return "plain";
    case CF__CHAIN: return "chain";
    case CF__CONCURRENT: return "concurrent";
    case CF__INPLACE: return "in place";
    case CF__EXPIRING: return "expiring";
    }
    CF__NO_OTHER_KIND();
}

cf_status cf_make_concurrent(cf_filter *f) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    switch (f->kind) {
    case CF__PLAIN:
        /* Semi-sorted tables are rewritten whole by every store; a mapped
         * or borrowed table is not ours to write. */
        CF__RETURN_IF(f->t.flags != 0 || !f->t.owns_table || f->t.read_only, CF_E_PARAM);
        return cf__concurrent_attach(f);
    case CF__CHAIN:
    case CF__CONCURRENT:
    case CF__INPLACE:
    case CF__EXPIRING: return cf__unsupported();
    }
    CF__NO_OTHER_KIND();
}

void cf_free(cf_filter *f) {
    if (f == NULL) return;
    cf__unmap(f);
    switch (f->kind) {
    case CF__PLAIN: cf__plain_free(f); return;
    case CF__CHAIN: cf__chain_free(f); return;
    case CF__CONCURRENT: cf__concurrent_free(f); return;
    case CF__INPLACE: cf__inplace_free(f); return;
    case CF__EXPIRING: cf__expiring_free(f); return;
    }
}

cf_status cf_clear(cf_filter *f) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    CF__RETURN_IF(f->t.read_only, CF_E_READONLY);
    CF__KIND_DISPATCH(f->kind, clear, f);
}

cf_status cf_set_max_kicks(cf_filter *f, unsigned max_kicks) {
    CF__RETURN_IF(f == NULL || max_kicks == 0 || max_kicks > CF_MAX_KICKS_LIMIT, CF_E_PARAM);
    CF__RETURN_IF(f->t.read_only, CF_E_READONLY);
    /* A chain's tables share one budget (cf_grow_append checks it). */
    if (f->kind == CF__CHAIN)
        for (unsigned k = 0; k < cf__chain_of(f)->count; k++)
            cf__chain_of(f)->tables[k]->t.max_kicks = max_kicks;
    f->t.max_kicks = max_kicks;
    return CF_OK;
}

size_t cf_memory_usage(const cf_filter *f) {
    if (f == NULL) return 0;
    CF__KIND_DISPATCH(f->kind, memory, f);
}

cf_status cf_get_stats(const cf_filter *f, cf_stats *out) {
    if (out != NULL) memset(out, 0, sizeof *out);
    CF__RETURN_IF(f == NULL || out == NULL, CF_E_PARAM);
    switch (f->kind) {
    case CF__PLAIN: cf__plain_stats(f, out); break;
    case CF__CHAIN: cf__chain_stats(f, out); break;
    case CF__CONCURRENT: cf__concurrent_stats(f, out); break;
    case CF__INPLACE: cf__inplace_stats(f, out); break;
    case CF__EXPIRING: cf__expiring_stats(f, out); break;
    }
    out->format_version = cf__format_version(f);
    return CF_OK;
}

cf_status cf_set_time(cf_filter *f, uint64_t now) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    switch (f->kind) {
    case CF__EXPIRING:
        CF__RETURN_IF(f->t.read_only, CF_E_READONLY);
        return cf__expiring_set_time(f, now);
    case CF__PLAIN:
    case CF__CHAIN:
    case CF__CONCURRENT:
    case CF__INPLACE: return cf__unsupported();
    }
    CF__NO_OTHER_KIND();
}
