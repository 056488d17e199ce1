/*
 * resolve.c -- cf_config_resolve: the shape cf_new would build, without
 * building it.  Every number comes from the helpers cf_new itself uses
 * (cf__resolve_config, cf__table_bytes, cf__bucket_bits) and the file
 * format's constants, so programs that size or budget filters (the Redis
 * module's per-key limit, the CLI) ask here instead of keeping copies.
 */
#include "format/cf_format.h"
#include "format/expiring_format.h"

/* An expiring table: slots of the fingerprint and its stamp, the
 * version-7 file's header. */
static cf_status cf__resolve_expiring(const cf_config *cfg, cf_shape *out) {
    unsigned f, s, b, max_kicks;
    uint64_t nb;
    size_t bytes;
    CF__FORWARD_IF_ERROR(cf__expiring_resolve(cfg, &f, &s, &b, &nb, &bytes));
    max_kicks = cfg->max_kicks ? cfg->max_kicks : CF_DEFAULT_MAX_KICKS;
    cf_allocator alloc;
    CF__FORWARD_IF_ERROR(cf__allocator_resolve(cfg->allocator, &alloc));
    out->num_buckets = nb;
    out->slots = nb * b;
    out->bucket_size = b;
    out->fingerprint_bits = f;
    out->bits_per_slot = f + s;
    out->max_kicks = max_kicks;
    out->flags = cfg->flags;
    out->max_load = cf__sizing_load(cfg, b);
    out->fpp_at_max_load = cf_theoretical_fpp(f, b, out->max_load);
    out->table_bytes = bytes;
    out->serialized_size = CF__EXPIRING_HEADER_SIZE + bytes + CF__TRAILER_SIZE;
    return CF_OK;
}

cf_status cf_config_resolve(const cf_config *cfg, cf_shape *out) {
    CF__RETURN_IF(out == NULL, CF_E_PARAM);
    memset(out, 0, sizeof *out);
    CF__RETURN_IF(cfg == NULL, CF_E_PARAM);
    /* One table of fixed shape: a grown filter's later tables depend on its
     * history, and a concurrent one adds stripes (the header says so). */
    CF__RETURN_IF((cfg->flags & (CF_GROW | CF_CONCURRENT)) != 0, CF_E_PARAM);
    if (cfg->expire_after != 0) return cf__resolve_expiring(cfg, out);
    unsigned fbits, b, max_kicks;
    uint64_t nb;
    CF__FORWARD_IF_ERROR(cf__resolve_config(cfg, &fbits, &b, &nb, &max_kicks));
    size_t bytes;
    CF__FORWARD_IF_ERROR(cf__table_bytes(nb, b, fbits, cfg->flags, &bytes));
    /* cf_new also rejects an allocator with only one of alloc and free. */
    cf_allocator alloc;
    CF__FORWARD_IF_ERROR(cf__allocator_resolve(cfg->allocator, &alloc));

    out->num_buckets = nb;
    out->slots = nb * b;
    out->bucket_size = b;
    out->fingerprint_bits = fbits;
    out->bits_per_slot = cf__bucket_bits(b, fbits, cfg->flags) / b;
    out->max_kicks = max_kicks;
    out->flags = cfg->flags;
    out->max_load = cf__sizing_load(cfg, b);
    out->fpp_at_max_load = cf_theoretical_fpp(fbits, b, out->max_load);
    out->table_bytes = bytes;
    out->serialized_size = CF__HEADER_SIZE + bytes + CF__TRAILER_SIZE;
    return CF_OK;
}
