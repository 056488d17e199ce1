/*
 * filter.c -- the public life cycle of a filter: creating it (of the kind
 * its configuration asks for), turning a plain one concurrent, describing,
 * clearing and releasing it.  Each function checks its arguments, then
 * switches on the kind (kind.h); the work is table/'s and kind/'s.
 */
#include "format/cf_format.h"
#include "kind/concurrent.h"
#include "io/file_sys.h"
#include "kind/chain.h"
#include "kind/inplace.h"
#include "api/kind.h"
#include "table/table.h"

/* The kind of filter cfg asks for (CF_CONCURRENT and CF_GROW together are
 * refused by cf__concurrent_new, which accepts no other flag). */
static cf__kind cf__config_kind(const cf_config *cfg) {
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
    switch (cf__config_kind(cfg)) {
    case CF__PLAIN: return cf__table_new(cfg, out);
    case CF__CHAIN: return cf__chain_new(cfg, out);
    case CF__CONCURRENT: return cf__concurrent_new(cfg, out);
    case CF__INPLACE: return cf__inplace_new(cfg, out);
    }
    CF__NO_OTHER_KIND();
}

cf_status cf_make_concurrent(cf_filter *f) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    switch (f->kind) {
    case CF__PLAIN:
        /* Semi-sorted tables are rewritten whole by every store; a mapped
         * or borrowed table is not ours to write. */
        CF__RETURN_IF(f->flags != 0 || !f->owns_table || f->read_only, CF_E_PARAM);
        return cf__concurrent_attach(f);
    case CF__CHAIN:
    case CF__CONCURRENT:
    case CF__INPLACE: return cf__unsupported();
    }
    CF__NO_OTHER_KIND();
}

void cf_free(cf_filter *f) {
    if (f == NULL) return;
    cf__unmap(f);
    switch (f->kind) {
    case CF__PLAIN: cf__table_free(f); return;
    case CF__CHAIN: cf__chain_free(f); return;
    case CF__CONCURRENT: cf__concurrent_free(f); return;
    case CF__INPLACE: cf__inplace_free(f); return;
    }
}

cf_status cf_clear(cf_filter *f) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    CF__RETURN_IF(f->read_only, CF_E_READONLY);
    switch (f->kind) {
    case CF__PLAIN: cf__table_clear(f); return CF_OK;
    case CF__CHAIN: cf__chain_clear(f); return CF_OK;
    case CF__CONCURRENT: return cf__concurrent_clear(f);
    case CF__INPLACE: cf__inplace_clear(f); return CF_OK;
    }
    CF__NO_OTHER_KIND();
}

cf_status cf_set_max_kicks(cf_filter *f, unsigned max_kicks) {
    CF__RETURN_IF(f == NULL || max_kicks == 0 || max_kicks > CF_MAX_KICKS_LIMIT, CF_E_PARAM);
    CF__RETURN_IF(f->read_only, CF_E_READONLY);
    /* A chain's tables share one budget (cf_grow_append checks it). */
    if (f->kind == CF__CHAIN)
        for (unsigned k = 0; k < f->chain->count; k++) f->chain->tables[k]->max_kicks = max_kicks;
    f->max_kicks = max_kicks;
    return CF_OK;
}

size_t cf_memory_usage(const cf_filter *f) {
    if (f == NULL) return 0;
    switch (f->kind) {
    case CF__PLAIN: return cf__table_memory(f);
    case CF__CHAIN: return cf__chain_memory(f);
    case CF__CONCURRENT: return cf__concurrent_memory(f);
    case CF__INPLACE: return cf__inplace_memory(f);
    }
    CF__NO_OTHER_KIND();
}

void cf_get_stats(const cf_filter *f, cf_stats *out) {
    switch (f->kind) {
    case CF__PLAIN:
        cf__table_stats(f, out);
        out->format_version = CF__FORMAT_VERSION;
        return;
    case CF__CHAIN:
        cf__chain_stats(f, out);
        out->format_version = CF__FORMAT_VERSION_CHAIN;
        return;
    case CF__CONCURRENT:
        cf__concurrent_get_stats(f, out);
        out->format_version = CF__FORMAT_VERSION; /* saved as the plain table it is */
        return;
    case CF__INPLACE:
        cf__inplace_stats(f, out);
        out->format_version = CF__FORMAT_VERSION_INPLACE;
        return;
    }
}
