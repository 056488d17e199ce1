/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_clock.c -- an expiring key's clock (cf_redis_chain.h): the
 * library's cf_set_time, moved only when the time enters a later stamp
 * span, so the moves are few (at most one per span per key) and each can
 * be replicated.
 */
#include "key/cf_redis_chain.h"

/* Sets the clock and records the write.  Slots may have been freed, so an
 * exhausted mark no longer holds. */
static cfr_result clock_to(cfr_chain *c, uint64_t t) {
    if (!c->expiring || cf_set_time(c->f, t) != CF_OK) return CFR_BAD_HEADER;
    c->flags &= ~(uint32_t)CFR_CHAIN_EXHAUSTED;
    cfr_chain_touch(c);
    return CFR_OK;
}

bool cfr_clock_advance(cfr_chain *c, uint64_t now) {
    if (!c->expiring || c->load) return false;
    cf_stats st;
    cf_get_stats(c->f, &st);
    /* The stamp span a time falls in is time / expire_span (the header's
     * "Expiring" paragraph): only entering a later one removes items or
     * changes the stamp inserts write. */
    if (now / st.expire_span <= st.now / st.expire_span) return false;
    return clock_to(c, now) == CFR_OK;
}

cfr_result cfr_clock_set(cfr_chain *c, uint64_t t) {
    if (c->load) return CFR_BAD_HEADER;
    return clock_to(c, t);
}
