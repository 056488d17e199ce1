/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * report_fields.c -- the report's machine-readable numbers, in order, sent
 * to a sink (CSV or JSON).  One list for both formats keeps them in step.
 * Timings are deliberately absent: they differ between runs, and the same
 * seed must give the same bytes.
 */
#include "report.h"

#include <inttypes.h>
#include <math.h>

typedef struct emitter {
    const report_sink *sink;
    char buf[64];
} emitter;

static void section(emitter *e, const char *name, bool has_rows) {
    e->sink->section(e->sink->ctx, name, has_rows);
}

static void row(emitter *e, const char *key, uint64_t value) {
    snprintf(e->buf, sizeof e->buf, "%" PRIu64, value);
    e->sink->row(e->sink->ctx, key, e->buf);
}

static void u64(emitter *e, const char *name, uint64_t v) {
    snprintf(e->buf, sizeof e->buf, "%" PRIu64, v);
    e->sink->field(e->sink->ctx, name, e->buf, false);
}

/* Ten significant digits: enough for the tests to recompute ratios, and a
 * fixed format, so the bytes depend on the value only. */
static void num(emitter *e, const char *name, double v) {
    if (!isfinite(v)) {
        e->sink->field(e->sink->ctx, name, NULL, false); /* no value */
        return;
    }
    snprintf(e->buf, sizeof e->buf, "%.10g", v);
    e->sink->field(e->sink->ctx, name, e->buf, false);
}

static void flag(emitter *e, const char *name, bool v) {
    e->sink->field(e->sink->ctx, name, v ? "true" : "false", false);
}

static void text(emitter *e, const char *name, const char *v) {
    e->sink->field(e->sink->ctx, name, v, true);
}

static void rate(emitter *e, const char *prefix, const report_rate *r) {
    char name[48];
    snprintf(name, sizeof name, "%sfalse_positives", prefix);
    u64(e, name, r->hits);
    snprintf(name, sizeof name, "%sfpp", prefix);
    num(e, name, r->rate);
    snprintf(name, sizeof name, "%sci95_low", prefix);
    num(e, name, r->low);
    snprintf(name, sizeof name, "%sci95_high", prefix);
    num(e, name, r->high);
}

static void fields_fill(emitter *e, const report *r) {
    const report_params *p = &r->params;
    const report_fill *f = &r->fill;
    section(e, "params", false);
    u64(e, "fingerprint_bits", p->fingerprint_bits);
    u64(e, "bucket_size", p->bucket_size);
    u64(e, "buckets", p->buckets);
    num(e, "load", p->load);
    u64(e, "queries", p->queries);
    u64(e, "max_kicks", p->max_kicks);
    u64(e, "seed", p->seed);
    flag(e, "semi_sort", p->semi_sort);
    text(e, "library", cf_version_string());

    section(e, "fill", false);
    u64(e, "slots", f->slots);
    u64(e, "target_items", f->target_items);
    u64(e, "items", f->items);
    flag(e, "target_reached", f->target_reached);
    num(e, "load", f->load);
    u64(e, "bits_per_slot", f->bits_per_slot);
    u64(e, "table_bytes", f->table_bytes);
    num(e, "table_kib", (double)f->table_bytes / 1024.0);
    u64(e, "memory_bytes", f->memory_bytes);
    num(e, "bits_per_item", f->bits_per_item);

    section(e, "false_negatives", false);
    u64(e, "checked", f->items);
    u64(e, "false_negatives", f->false_negatives);

    section(e, "fpp", false);
    u64(e, "queries", f->fpp.trials);
    rate(e, "", &f->fpp);
    num(e, "theory", f->fpp_theory);
    num(e, "bound", f->fpp_bound);
    flag(e, "theory_in_ci95", f->theory_in_ci);

    section(e, "kicks", false);
    text(e, "eviction", "breadth-first");
    u64(e, "inserts", f->kicks.inserts);
    u64(e, "total", f->kicks.total);
    num(e, "mean", f->kicks.mean);
    u64(e, "p99", f->kicks.p99);
    u64(e, "max", f->kicks.max);

    section(e, "delete", false);
    u64(e, "items", f->delete_items);
    u64(e, "found_before", f->delete_found_before);
    u64(e, "found_after", f->delete_found_after);
    u64(e, "others_lost", f->delete_others_lost);
    flag(e, "reinserted", f->delete_reinserted);

    section(e, "failure", false);
    flag(e, "failed", f->fail_reached);
    u64(e, "items", f->fail_items);
    num(e, "load", f->fail_load);
    u64(e, "lost", f->fail_lost);
}

static void compare_rows(emitter *e, const char *name, const report_compare_row *rows, int n) {
    section(e, name, true);
    for (int i = 0; i < n; i++) {
        const report_compare_row *w = &rows[i];
        row(e, "f", w->fingerprint_bits);
        u64(e, "items", w->items);
        num(e, "load", w->load);
        u64(e, "bits_per_slot", w->bits_per_slot);
        u64(e, "table_bits", w->table_bits);
        num(e, "bits_per_item", w->bits_per_item);
        rate(e, "cuckoo_", &w->cuckoo);
        num(e, "cuckoo_theory", w->cuckoo_theory);
        u64(e, "bloom_k", w->bloom_k);
        rate(e, "bloom_", &w->bloom);
        num(e, "bloom_theory", w->bloom_theory);
        text(e, "winner", w->winner > 0 ? "cuckoo" : w->winner < 0 ? "bloom" : "tie");
        flag(e, "significant", w->significant);
    }
}

static void crossover(emitter *e, const char *name, const report_crossover *x) {
    section(e, name, false);
    flag(e, "found", x->found);
    num(e, "bits_per_item", x->found ? x->bits : NAN);
    num(e, "fpp", x->found ? x->fpp : NAN);
    u64(e, "measured_from_f", x->measured_from_f);
}

static void fields_compare(emitter *e, const report *r) {
    const report_compare *c = &r->compare;
    compare_rows(e, "compare", c->rows, REPORT_SWEEP_ROWS);
    crossover(e, "crossover", &c->crossover);

    /* The semi-sorted series: absent (no rows, no crossover) unless b = 4. */
    section(e, "semi_sort", false);
    flag(e, "available", c->semi_available);
    text(e, "reason", c->semi_available ? NULL : "needs bucket size 4");
    u64(e, "bucket_size", REPORT_SEMI_BUCKET_SIZE);
    u64(e, "min_f", REPORT_SEMI_MIN_BITS);
    u64(e, "max_f", REPORT_SEMI_MAX_BITS);
    compare_rows(e, "compare_semi", c->semi, c->semi_available ? REPORT_SEMI_ROWS : 0);
    crossover(e, "crossover_semi", &c->semi_crossover);
}

static void fields_buckets(emitter *e, const report *r) {
    section(e, "max_load", true);
    for (int i = 0; i < REPORT_BUCKET_ROWS; i++) {
        const report_bucket_row *b = &r->buckets[i];
        row(e, "b", b->bucket_size);
        u64(e, "buckets", b->buckets);
        u64(e, "slots", b->slots);
        u64(e, "items", b->items);
        num(e, "max_load", b->max_load);
        num(e, "mean_kicks", b->mean_kicks);
        u64(e, "lost", b->lost);
    }
    const report_kicks *k = &r->fill.kicks;
    section(e, "kicks_by_load", true);
    for (int i = 0; i < REPORT_LOAD_BINS; i++) {
        if (k->bin_inserts[i] == 0) continue;
        row(e, "load_pct", (uint64_t)i);
        u64(e, "inserts", k->bin_inserts[i]);
        num(e, "mean", (double)k->bin_kicks[i] / (double)k->bin_inserts[i]);
        u64(e, "max", k->bin_max[i]);
    }
}

void report_fields(const report *r, const report_sink *sink) {
    emitter e = {sink, {0}};
    fields_fill(&e, r);
    fields_compare(&e, r);
    fields_buckets(&e, r);
    sink->end(sink->ctx);
}
