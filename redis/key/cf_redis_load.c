/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_load.c -- a restore in progress (cf_redis_load.h): header,
 * images in order, one filter at the end.  Uses only the public API.
 */
#include "key/cf_redis_load.h"

#include "server/cf_redis_alloc.h"

#include <string.h>

cfr_result cfr_loader_new(const uint8_t *h, size_t len, uint64_t max_tables, uint32_t gen,
                          cfr_loader **out) {
    *out = NULL;
    cfr_dump_fields d;
    if (!cfr_dump_header_read(h, len, max_tables, &d)) return CFR_BAD_HEADER;
    cfr_loader *l = cfr_alloc(sizeof *l);
    if (!l) return CFR_NOMEM;
    memset(l, 0, sizeof *l);
    l->d = d;
    l->gen = gen & CFR_ITER_GEN_MASK;
    l->lens = cfr_alloc(sizeof(uint64_t) * d.nsubs);
    l->flags = cfr_alloc(sizeof(uint64_t) * d.nsubs);
    l->subs = cfr_alloc(sizeof(cf_filter *) * d.nsubs);
    if (!l->lens || !l->flags || !l->subs) {
        cfr_loader_free(l);
        return CFR_NOMEM;
    }
    for (uint32_t i = 0; i < d.nsubs; i++) {
        l->lens[i] = cfr_dump_sub_len(h, i);
        l->flags[i] = cfr_dump_sub_flags(h, i);
    }
    *out = l;
    return CFR_OK;
}

void cfr_loader_free(cfr_loader *l) {
    if (!l) return;
    if (l->subs)
        for (uint32_t i = 0; i < l->done; i++) cf_free(l->subs[i]);
    cfr_free(l->subs);
    cfr_free(l->lens);
    cfr_free(l->flags);
    cfr_free(l->partial);
    cfr_free(l);
}

/* Validates a complete image and keeps it. */
static cfr_result finish_image(cfr_loader *l, const uint8_t *buf, size_t len) {
    cf_filter *f = NULL;
    if (cf_deserialize(buf, len, &cfr_allocator, &f) != CF_OK) return CFR_BAD_CHUNK;
    cf_stats st;
    cf_get_stats(f, &st);
    /* Version 1 held single tables only; a chain image grows by EXPANSION,
     * an in-place one (it doubles) by any EXPANSION but 0. */
    bool inplace = st.growth_mode == CF_GROWTH_INPLACE;
    /* An expiring image is one table that never grows: its header says
     * EXPANSION 0, and a version-1 dump (older than expiring keys) never
     * held one. */
    bool expiring_ok = st.expire_after == 0 || (l->d.version >= 2 && l->d.expansion == 0);
    bool ok = !st.read_only && expiring_ok &&
              (!(st.flags & CF_GROW) || (l->d.version >= 2 && l->d.expansion != 0 &&
                                         (inplace || st.growth == l->d.expansion)));
    if (!ok) {
        cf_free(f);
        return CFR_BAD_CHUNK;
    }
    l->subs[l->done++] = f;
    return CFR_OK;
}

cfr_result cfr_loader_append(cfr_loader *l, uint64_t at, const uint8_t *data, size_t len) {
    if (at != l->received) return CFR_BAD_POSITION;
    if (len > l->d.body_len - l->received) return CFR_BAD_CHUNK;
    while (len > 0) {
        uint64_t want = l->lens[l->done];
        size_t take = want - l->partial_len < len ? (size_t)(want - l->partial_len) : len;
        if (l->partial_len == 0 && take == want) {
            /* The whole image is in this chunk: no copy needed. */
            cfr_result r = finish_image(l, data, take);
            if (r != CFR_OK) return r;
        } else {
            if (l->partial_len + take > l->partial_cap) {
                /* Grow with the bytes actually received, never to a size the
                 * header merely claims. */
                size_t cap = l->partial_cap ? l->partial_cap : 4096;
                while (cap < l->partial_len + take) cap *= 2;
                if (cap > want) cap = (size_t)want;
                uint8_t *p = cfr_alloc(cap);
                if (!p) return CFR_NOMEM;
                if (l->partial_len) memcpy(p, l->partial, l->partial_len);
                cfr_free(l->partial);
                l->partial = p;
                l->partial_cap = cap;
            }
            memcpy(l->partial + l->partial_len, data, take);
            l->partial_len += take;
            if (l->partial_len == want) {
                cfr_result r = finish_image(l, l->partial, l->partial_len);
                cfr_free(l->partial);
                l->partial = NULL;
                l->partial_len = l->partial_cap = 0;
                if (r != CFR_OK) return r;
            }
        }
        data += take;
        len -= take;
        l->received += take;
    }
    return CFR_OK;
}

/* The sum of the tables' FPPs at full load. */
static double fpp_bound_of(const cf_filter *f) {
    cf_stats st;
    cf_get_stats(f, &st);
    return st.fpp_bound;
}

/* A version-1 dump's sub-filters (earlier modules' chains: equal widths,
 * each expansion times the previous one's buckets) become the tables of one
 * growing filter, with a bound of twice what they spend (below 1), so later
 * tables have budget. */
cfr_result cfr_loader_build(cfr_loader *l, cf_filter **out) {
    *out = NULL;
    if (!cfr_loader_complete(l)) return CFR_BAD_CHUNK;
    cf_filter *f = l->subs[0];
    if (l->done > 1) {
        if (l->d.expansion == 0) return CFR_BAD_CHUNK; /* EXPANSION 0 never had two */
        double spent = 0;
        for (uint32_t i = 0; i < l->done; i++) spent += fpp_bound_of(l->subs[i]);
        cf_config g;
        cf_config_init(&g);
        g.growth = l->d.expansion;
        g.target_fpp = 2 * spent < (1 + spent) / 2 ? 2 * spent : (1 + spent) / 2;
        if (!(g.target_fpp < 1) || cf_make_growable(&f, &g) != CF_OK) return CFR_BAD_CHUNK;
        l->subs[0] = f;
        for (uint32_t i = 1; i < l->done; i++) {
            if (cf_grow_append(f, l->subs[i]) != CF_OK) return CFR_BAD_CHUNK;
            l->subs[i] = NULL; /* the filter owns it now */
        }
    }
    l->done = 0; /* every image is owned by f now */
    *out = f;
    return CFR_OK;
}

size_t cfr_loader_memory(const cfr_loader *l) {
    size_t n =
        sizeof *l + l->partial_cap + (2 * sizeof(uint64_t) + sizeof(cf_filter *)) * l->d.nsubs;
    for (uint32_t i = 0; i < l->done; i++) n += cf_memory_usage(l->subs[i]);
    return n;
}

uint64_t cfr_loader_images_len(const cfr_loader *l) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < l->done; i++) total += cf_serialized_size(l->subs[i]);
    return total;
}
