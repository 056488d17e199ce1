/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * resolve.c -- cf_config_resolve: the shape cf_new would build, without
 * building it.  Every number comes from the helpers cf_new itself uses
 * (cf__resolve_config, cf__table_bytes, cf__bucket_bits) and the file
 * format's constants, so programs that size or budget filters (the Redis
 * module's per-key limit, the CLI) ask here instead of keeping copies.
 */
#include "format/cf_format.h"
#include "format/expiring_format.h"

/* Fills out from a resolved shape: f-bit fingerprints in bits_per_slot-bit
 * slots, a file of header bytes before the table and a trailer after it. */
static cf_status cf__shape_fill(const cf_config *cfg, uint64_t nb, unsigned b, unsigned f,
                                unsigned bits_per_slot, unsigned max_kicks, size_t bytes,
                                size_t header, cf_shape *out) {
    /* cf_new also rejects an allocator with only one of alloc and free. */
    cf_allocator alloc;
    CF__FORWARD_IF_ERROR(cf__allocator_resolve(cfg->allocator, &alloc));
    out->num_buckets = nb;
    out->slots = nb * b;
    out->bucket_size = b;
    out->fingerprint_bits = f;
    out->bits_per_slot = bits_per_slot;
    out->max_kicks = max_kicks;
    out->flags = cfg->flags;
    out->max_load = cf__sizing_load(cfg, b);
    out->fpp_at_max_load = cf_theoretical_fpp(f, b, out->max_load);
    out->table_bytes = bytes;
    out->serialized_size = header + bytes + CF__TRAILER_SIZE;
    return CF_OK;
}

cf_status cf_config_resolve(const cf_config *cfg, cf_shape *out) {
    CF__RETURN_IF(out == NULL, CF_E_PARAM);
    memset(out, 0, sizeof *out);
    CF__RETURN_IF(cfg == NULL, CF_E_PARAM);
    /* One table of fixed shape: a grown filter's later tables depend on its
     * history, and a concurrent one adds stripes (the header says so). */
    CF__RETURN_IF((cfg->flags & (CF_GROW | CF_CONCURRENT)) != 0, CF_E_PARAM);
    unsigned fbits, b, max_kicks;
    uint64_t nb;
    size_t bytes;
    if (cfg->expire_after != 0) { /* slots of the fingerprint and its stamp: version 7 */
        unsigned s;
        CF__FORWARD_IF_ERROR(cf__expiring_resolve(cfg, &fbits, &s, &b, &nb, &max_kicks, &bytes));
        return cf__shape_fill(cfg, nb, b, fbits, fbits + s, max_kicks, bytes,
                              CF__EXPIRING_HEADER_SIZE, out);
    }
    CF__FORWARD_IF_ERROR(cf__resolve_config(cfg, &fbits, &b, &nb, &max_kicks));
    CF__FORWARD_IF_ERROR(cf__table_bytes(nb, b, fbits, cfg->flags, &bytes));
    return cf__shape_fill(cfg, nb, b, fbits, cf__bucket_bits(b, fbits, cfg->flags) / b, max_kicks,
                          bytes, CF__HEADER_SIZE, out);
}
