/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * report_fill.c -- phases 1 to 6 of the report, in the article's order, on
 * one filter of the requested shape (plain buckets, or semi-sorted ones with
 * --semi-sort: f - 1 bits per slot, the FPP of f-bit fingerprints):
 *
 *   fill to floor(load * slots) items ---> check every item (false negatives)
 *     ---> query non-members (FPP) ---> delete 4 items, check, put them back
 *     ---> keep inserting until the first CF_E_FULL ---> check every item again
 *
 * Kicks per insert come from the library's running total (cf_stats.total_kicks)
 * read around each insert, so the report measures what the library did, not
 * a model of it.
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>

#include "cli_base.h"

/* Kicks of a single insert beyond this are counted in the last histogram
 * cell; the p99 the report prints is far below it. */
#define KICK_HISTOGRAM 1024

typedef struct fill_state {
    report *r;
    cf_filter *f;
    uint64_t slots;
    uint64_t last_total_kicks;
    uint64_t histogram[KICK_HISTOGRAM];
} fill_state;

/* Inserts member keys from index `from` until `to` or the first failure;
 * returns the index reached.  summary: also count towards the kick summary
 * (the article's average is over the fill to the target load only). */
static uint64_t insert_members(fill_state *st, uint64_t from, uint64_t to, bool summary,
                               const char *phase, bool *failed) {
    report_kicks *k = &st->r->fill.kicks;
    unsigned char key[8];
    *failed = false;
    for (uint64_t i = from; i < to; i++) {
        cf_stats before;
        cf_get_stats(st->f, &before);
        report_key(st->r->params.seed, i, true, key);
        if (cf_insert(st->f, key, sizeof key) != CF_OK) {
            *failed = true;
            report_progress(st->r, phase, to - from, to - from);
            return i;
        }
        cf_stats after;
        cf_get_stats(st->f, &after);
        uint64_t kicks = after.total_kicks - before.total_kicks;
        size_t bin = (size_t)((double)before.items * REPORT_LOAD_BINS / (double)st->slots);
        if (bin >= REPORT_LOAD_BINS) bin = REPORT_LOAD_BINS - 1;
        k->bin_inserts[bin]++;
        k->bin_kicks[bin] += kicks;
        if (kicks > k->bin_max[bin]) k->bin_max[bin] = kicks;
        if (summary) {
            k->inserts++;
            k->total += kicks;
            if (kicks > k->max) k->max = kicks;
            st->histogram[kicks < KICK_HISTOGRAM ? kicks : KICK_HISTOGRAM - 1]++;
        }
        report_progress(st->r, phase, i - from, to - from);
    }
    report_progress(st->r, phase, to - from, to - from);
    return to;
}

/* Member keys in [from, to) that the filter does not find, skipping those
 * flagged in `absent` (indices below REPORT_DELETE_ITEMS that are out). */
static uint64_t count_missing(const fill_state *st, uint64_t from, uint64_t to,
                              const bool absent[REPORT_DELETE_ITEMS]) {
    uint64_t missing = 0;
    unsigned char key[8];
    for (uint64_t i = from; i < to; i++) {
        if (i < REPORT_DELETE_ITEMS && absent[i]) continue;
        report_key(st->r->params.seed, i, true, key);
        if (!cf_contains(st->f, key, sizeof key)) missing++;
    }
    return missing;
}

static void measure_fpp(fill_state *st) {
    report_fill *out = &st->r->fill;
    const report_params *p = &st->r->params;
    unsigned char key[8];
    uint64_t hits = 0;
    for (uint64_t j = 0; j < p->queries; j++) {
        report_key(p->seed, j, false, key);
        hits += cf_contains(st->f, key, sizeof key);
        report_progress(st->r, "querying non-members", j, p->queries);
    }
    report_progress(st->r, "querying non-members", p->queries, p->queries);
    out->fpp = report_rate_of(hits, p->queries);
    out->fpp_theory = cf_theoretical_fpp(p->fingerprint_bits, p->bucket_size, out->load);
    out->fpp_bound = ldexp(2.0 * p->bucket_size, -(int)p->fingerprint_bits);
    out->theory_in_ci = out->fpp.low <= out->fpp_theory && out->fpp_theory <= out->fpp.high;
}

/* The article's demonstration: delete items that are in, see them go, and
 * check that no other item went with them.  Then they go back in, so the
 * failure phase starts from the target load again. */
static void delete_demo(fill_state *st, bool absent[REPORT_DELETE_ITEMS]) {
    report_fill *out = &st->r->fill;
    uint64_t seed = st->r->params.seed;
    unsigned char key[8];
    unsigned n = out->items < REPORT_DELETE_ITEMS ? (unsigned)out->items : REPORT_DELETE_ITEMS;
    out->delete_items = n;
    for (unsigned i = 0; i < n; i++) {
        report_key(seed, i, true, key);
        out->delete_found_before += cf_contains(st->f, key, sizeof key);
        if (cf_delete(st->f, key, sizeof key) == CF_OK) absent[i] = true;
        /* Still found only if another item shares its fingerprint and a bucket. */
        out->delete_found_after += cf_contains(st->f, key, sizeof key);
    }
    out->delete_others_lost = count_missing(st, n, out->items, absent);
    out->delete_reinserted = true;
    for (unsigned i = 0; i < n; i++) {
        if (!absent[i]) continue;
        report_key(seed, i, true, key);
        if (cf_insert(st->f, key, sizeof key) == CF_OK)
            absent[i] = false;
        else
            out->delete_reinserted = false;
    }
}

int report_run_fill(report *r) {
    const report_params *p = &r->params;
    report_fill *out = &r->fill;
    fill_state *st = calloc(1, sizeof *st);
    if (st == NULL) return cli_error("out of memory");
    st->r = r;
    if (report_new_filter(r, p->fingerprint_bits, p->bucket_size, p->buckets,
                          p->semi_sort ? CF_SEMI_SORT : 0, &st->f) != CF_OK) {
        free(st);
        return CLI_ERROR;
    }
    cf_stats s;
    cf_get_stats(st->f, &s);
    st->slots = out->slots = s.slots;
    out->target_items = (uint64_t)floor(p->load * (double)s.slots);

    /* 1. Fill to the target load. */
    bool failed;
    out->items = insert_members(st, 0, out->target_items, true, "filling to target load", &failed);
    out->target_reached = !failed;
    cf_get_stats(st->f, &s);
    out->load = s.load_factor;
    out->bits_per_slot = s.bits_per_slot;
    out->table_bytes = s.table_bytes;
    out->memory_bytes = s.memory_bytes;
    out->bits_per_item = s.bits_per_item;
    report_kicks *k = &out->kicks;
    k->mean = k->inserts ? (double)k->total / (double)k->inserts : 0;
    k->p99 = report_p99(st->histogram, KICK_HISTOGRAM);

    /* 2. No false negatives: every inserted item is found. */
    bool absent[REPORT_DELETE_ITEMS] = {false};
    out->false_negatives = count_missing(st, 0, out->items, absent);

    /* 3. False positives among keys that were never inserted. */
    measure_fpp(st);

    /* 5. Delete (item 4, the kicks, was measured while filling in 1). */
    delete_demo(st, absent);

    /* 6. Fill until the first insert fails; a failed insert changes nothing,
     * so every item stored before it must still be found. */
    uint64_t reached = out->items;
    if (out->target_reached)
        reached =
            insert_members(st, out->items, s.slots + 1, false, "filling until failure", &failed);
    out->fail_reached = failed;
    cf_get_stats(st->f, &s);
    out->fail_items = s.items;
    out->fail_load = s.load_factor;
    out->fail_lost = count_missing(st, 0, reached, absent);

    cf_free(st->f);
    free(st);
    return 0;
}
