/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * report_text.c -- the report as a person reads it: the article's figure,
 * item by item, with the article's own numbers alongside when the
 * parameters are the article's.
 */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "cli_base.h"

/* A probability as a percentage with 4 significant digits: 0.1832%, 9.6e-05%. */
static const char *pct(double p, char buf[32]) {
    snprintf(buf, 32, "%.4g%%", 100 * p);
    return buf;
}

/* One line: a label, a value, and the article's value in a right-hand
 * column when the parameters are the article's (theirs != NULL). */
static void item(FILE *out, bool art, const char *label, const char *theirs, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void item(FILE *out, bool art, const char *label, const char *theirs, const char *fmt, ...) {
    char value[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    if (art && theirs != NULL)
        fprintf(out, "%-36s %-42s | %s\n", label, value, theirs);
    else
        fprintf(out, "%-36s %s\n", label, value);
}

static void text_fill(const report *r, FILE *out, bool art) {
    const report_params *p = &r->params;
    const report_fill *f = &r->fill;
    char a[32], b[32], c[32], label[64];

    fprintf(out, "cuckoo report: the article's experiment with libcuckoofilter %s\n",
            cf_version_string());
    fprintf(out,
            "  %u-bit fingerprints, %u slots per bucket, %s buckets (%s slots), target load "
            "%g%%,\n  max kicks %u, %s non-member queries, seed %" PRIu64 "\n",
            p->fingerprint_bits, p->bucket_size, cli_thousands(p->buckets, a, sizeof a),
            cli_thousands(f->slots, b, sizeof b), 100 * p->load, p->max_kicks,
            cli_thousands(p->queries, c, sizeof c), p->seed);
    if (p->semi_sort)
        fprintf(out,
                "  semi-sorted buckets (--semi-sort): %u bits per slot, the FPP of %u-bit "
                "fingerprints\n",
                f->bits_per_slot, p->fingerprint_bits);
    fputc('\n', out);
    if (art) item(out, art, "", "the article (Python)", "%s", "");

    snprintf(label, sizeof label, "1. items inserted at %g%% load", 100 * p->load);
    item(out, art, label, "249,036", "%s%s", cli_thousands(f->items, a, sizeof a),
         f->target_reached ? "" : " (the filter filled up before the target)");
    item(out, art, "   memory (bucket table)", "393,216 B = 384 KB",
         "%s B = %.4g KiB (%u bits "
         "per slot)",
         cli_thousands(f->table_bytes, a, sizeof a), (double)f->table_bytes / 1024,
         f->bits_per_slot);
    item(out, art, "   memory (all allocations)", NULL, "%s B",
         cli_thousands(f->memory_bytes, a, sizeof a));
    if (f->items) item(out, art, "   bits per item", "12.63", "%.2f", f->bits_per_item);

    item(out, art, "2. false negatives", "0", "%s of %s inserted items",
         cli_thousands(f->false_negatives, a, sizeof a), cli_thousands(f->items, b, sizeof b));

    item(out, art, "3. false-positive rate", "0.1832% (916)", "%s (%s of %s non-members)",
         pct(f->fpp.rate, a), cli_thousands(f->fpp.hits, b, sizeof b),
         cli_thousands(f->fpp.trials, c, sizeof c));
    item(out, art, "   95% confidence interval", NULL, "[%s, %s] (Wilson score)",
         pct(f->fpp.low, a), pct(f->fpp.high, b));
    item(out, art, "   theory 1-(1-1/(2^f-1))^(2b*load)", NULL, "%s, %s the interval",
         pct(f->fpp_theory, a), f->theory_in_ci ? "inside" : "OUTSIDE");
    item(out, art, "   bound 2b/2^f", "0.195%", "%s", pct(f->fpp_bound, a));

    snprintf(label, sizeof label, "4. kicks per insert (to %g%%)", 100 * p->load);
    item(out, art, label, "0.888 (mean)", "mean %.3f, p99 %" PRIu64 ", max %" PRIu64, f->kicks.mean,
         f->kicks.p99, f->kicks.max);
    item(out, art, "", NULL, "%s", "(breadth-first search for the shortest eviction path:");
    item(out, art, "", NULL, "%s", " fewer moves than the article's random walk)");

    snprintf(label, sizeof label, "5. delete %u items", f->delete_items);
    item(out, art, label, "4/4: True -> False", "found before %u/%u, after %u/%u",
         f->delete_found_before, f->delete_items, f->delete_found_after, f->delete_items);
    item(out, art, "   other items lost by the deletes", NULL, "%s",
         cli_thousands(f->delete_others_lost, a, sizeof a));

    item(out, art, "6. fill until an insert fails", "~96%", "load %.2f%% (%s items)%s",
         100 * f->fail_load, cli_thousands(f->fail_items, a, sizeof a),
         f->fail_reached ? "" : ", no failure");
    item(out, art, "   items lost at that point", "1 (the dropped victim)",
         "%s (a failed insert changes nothing)", cli_thousands(f->fail_lost, a, sizeof a));
}

/* "(0.1854%)" padded to a column. */
static const char *paren_pct(double p, char buf[32]) {
    snprintf(buf, 32, "(%.4g%%)", 100 * p);
    return buf;
}

/* The crossover and measured-winner lines under a comparison table. */
static void text_crossover(FILE *out, const report_crossover *x, const char *what, unsigned lo,
                           unsigned hi) {
    char a[32];
    if (x->found)
        fprintf(out,
                "   crossover (theory): %s has the lower FPP above %.2f bits per item,\n"
                "   i.e. when the FPP wanted is below %s\n",
                what, x->bits, pct(x->fpp, a));
    else
        fprintf(out, "   crossover (theory): none between f = %u and %u\n", lo, hi);
    if (x->measured_from_f)
        fprintf(out, "   measured: %s wins or ties from f = %u on\n", what, x->measured_from_f);
}

/* One line per width.  theirs(f) gives the article's figures for the
 * right-hand column, or NULL. */
static void text_rows(FILE *out, const report_compare_row *rows, int n,
                      const char *(*theirs)(unsigned f)) {
    char a[32], b[32], x[32], y[32];
    for (int i = 0; i < n; i++) {
        const report_compare_row *w = &rows[i];
        const char *win = w->winner > 0 ? "cuckoo" : w->winner < 0 ? "Bloom" : "tie";
        const char *article = theirs ? theirs(w->fingerprint_bits) : NULL;
        char winner[16];
        snprintf(winner, sizeof winner, "%s%s", w->significant || w->winner == 0 ? "" : "~", win);
        fprintf(out, "  %3u  %9.2f  %4.1f%%  %-10s  %-12s  %2u  %-10s  %-12s  ",
                w->fingerprint_bits, w->bits_per_item, 100 * w->load, pct(w->cuckoo.rate, a),
                paren_pct(w->cuckoo_theory, x), w->bloom_k, pct(w->bloom.rate, b),
                paren_pct(w->bloom_theory, y));
        if (article)
            fprintf(out, "%-7s  | %s\n", winner, article);
        else
            fprintf(out, "%s\n", winner);
    }
}

/* The article's table: cuckoo / Bloom FPP at f = 8, 12, 16. */
static const char *article_compare(unsigned f) {
    return f == 8    ? "2.96% / 1.75%"
           : f == 12 ? "0.19% / 0.24%"
           : f == 16 ? "0.0096% / 0.028%"
                     : NULL;
}

static void text_compare(const report *r, FILE *out, bool art) {
    const report_compare *c = &r->compare;
    fprintf(out,
            "\n7. Cuckoo vs Bloom at the same memory (b = %u, target load %g%%; Bloom gets "
            "the same bits\n   and its optimal k; '~': the two 95%% intervals overlap)\n",
            r->params.bucket_size, 100 * r->params.load);
    fprintf(out,
            "    f  bits/item   load  cuckoo FPP  (theory)      k  Bloom FPP   (theory)     "
            " winner%s\n",
            art ? "   | article: cuckoo / Bloom" : "");
    text_rows(out, c->rows, REPORT_SWEEP_ROWS, art ? article_compare : NULL);
    text_crossover(out, &c->crossover, "cuckoo", REPORT_MIN_SWEEP_BITS, REPORT_MAX_SWEEP_BITS);

    if (!c->semi_available) {
        fprintf(out,
                "\n   semi-sorted buckets: not measured, they need 4 slots per bucket "
                "(--bucket-size 4), not %u\n",
                r->params.bucket_size);
        return;
    }
    fprintf(out,
            "\n   semi-sorted buckets (f = %d..%d): the same FPP per width for f - 1 bits per "
            "slot;\n   Bloom gets the semi-sorted table's bits\n",
            REPORT_SEMI_MIN_BITS, REPORT_SEMI_MAX_BITS);
    fprintf(out, "    f  bits/item   load  semi FPP    (theory)      k  Bloom FPP   (theory)     "
                 " winner\n");
    text_rows(out, c->semi, REPORT_SEMI_ROWS, NULL);
    text_crossover(out, &c->semi_crossover, "semi-sorted cuckoo", REPORT_SEMI_MIN_BITS,
                   REPORT_SEMI_MAX_BITS);
    if (art)
        fprintf(out, "   (the article: cuckoo wins below about 3%% FPP; the paper's figure is for "
                     "semi-sorted buckets)\n");
}

static void text_buckets(const report *r, FILE *out) {
    static const char *paper[REPORT_BUCKET_ROWS] = {"~50%", "~84%", "~95%", "~98%"};
    char a[32], b[32];
    fprintf(out,
            "\n8. maximum load by bucket size (%u-bit fingerprints, plain buckets, same slots, "
            "first failed insert)\n     b  buckets      max load   kicks/insert  lost   paper\n",
            r->params.fingerprint_bits);
    for (int i = 0; i < REPORT_BUCKET_ROWS; i++) {
        const report_bucket_row *w = &r->buckets[i];
        fprintf(out, "    %2u  %-11s  %6.2f%%   %12.3f  %-5s  %s\n", w->bucket_size,
                cli_thousands(w->buckets, a, sizeof a), 100 * w->max_load, w->mean_kicks,
                cli_thousands(w->lost, b, sizeof b), paper[i]);
    }
}

static void text_speed(const report *r, FILE *out) {
    const report_speed *s = &r->speed;
    fprintf(out, "\n9. throughput in this run (informative; one thread, keys hashed per call; "
                 "see bench/)\n");
    fprintf(out, "   cuckoo  insert %6.1f ns (%5.1f M/s)   lookup %6.1f ns (%5.1f M/s)\n",
            s->cuckoo_insert_ns, 1e3 / s->cuckoo_insert_ns, s->cuckoo_lookup_ns,
            1e3 / s->cuckoo_lookup_ns);
    if (s->has_semi)
        fprintf(out,
                "   semi    insert %6.1f ns (%5.1f M/s)   lookup %6.1f ns (%5.1f M/s)"
                "   (semi-sorted)\n",
                s->semi_insert_ns, 1e3 / s->semi_insert_ns, s->semi_lookup_ns,
                1e3 / s->semi_lookup_ns);
    fprintf(out, "   Bloom   insert %6.1f ns (%5.1f M/s)   lookup %6.1f ns (%5.1f M/s)\n",
            s->bloom_insert_ns, 1e3 / s->bloom_insert_ns, s->bloom_lookup_ns,
            1e3 / s->bloom_lookup_ns);
}

void report_write_text(const report *r, FILE *out) {
    bool art = report_is_article_setup(&r->params);
    text_fill(r, out, art);
    text_compare(r, out, art);
    text_buckets(r, out);
    text_speed(r, out);
}
