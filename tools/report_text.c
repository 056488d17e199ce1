/*
 * report_text.c -- the report as a person reads it: the article's figure,
 * item by item, with the article's own numbers alongside when the
 * parameters are the article's.
 */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* 249036 -> "249,036" */
static const char *grouped(uint64_t v, char buf[32]) {
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, v), o = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

/* A probability as a percentage with 4 significant digits: 0.1832%, 9.6e-05%. */
static const char *pct(double p, char buf[32]) {
    snprintf(buf, 32, "%.4g%%", 100 * p);
    return buf;
}

static bool is_article_setup(const report_params *p) {
    return p->fingerprint_bits == 12 && p->bucket_size == 4 && p->buckets == 65536 &&
           p->load == 0.95 && p->queries == 500000 && p->max_kicks == 500;
}

/* Prints a line with the article's value in a right-hand column when shown. */
static void line(FILE *out, bool article, const char *left, const char *theirs) {
    if (article && theirs != NULL)
        fprintf(out, "%-66s | %s\n", left, theirs);
    else
        fprintf(out, "%s\n", left);
}

static void text_fill(const report *r, FILE *out, bool art) {
    const report_params *p = &r->params;
    const report_fill *f = &r->fill;
    char a[32], b[32], c[32], s[160];

    fprintf(out, "cuckoo report: the article's experiment with libcuckoofilter %s\n",
            cf_version_string());
    fprintf(out, "  %u-bit fingerprints, %u slots per bucket, %s buckets (%s slots), target load "
                 "%g%%,\n  max kicks %u, %s non-member queries, seed %" PRIu64 "\n\n",
            p->fingerprint_bits, p->bucket_size, grouped(p->buckets, a), grouped(f->slots, b),
            100 * p->load, p->max_kicks, grouped(p->queries, c), p->seed);
    line(out, art, "", "article");

    snprintf(s, sizeof s, "1. items inserted at %g%% load       %s%s", 100 * p->load,
             grouped(f->items, a), f->target_reached ? "" : "  (filter full before the target)");
    line(out, art, s, "249,036");
    snprintf(s, sizeof s, "   memory (bucket table)          %s B = %.4g KiB (%s B allocated)",
             grouped(f->table_bytes, a), (double)f->table_bytes / 1024, grouped(f->memory_bytes, b));
    line(out, art, s, "393,216 B = 384 KB");
    snprintf(s, sizeof s, "   bits per item                  %.2f", f->bits_per_item);
    line(out, art, s, "12.63");

    snprintf(s, sizeof s, "2. false negatives                %s of %s inserted items",
             grouped(f->false_negatives, a), grouped(f->items, b));
    line(out, art, s, "0");

    snprintf(s, sizeof s, "3. false-positive rate            %s (%s of %s non-members)",
             pct(f->fpp.rate, a), grouped(f->fpp.hits, b), grouped(f->fpp.trials, c));
    line(out, art, s, "0.1832% (916)");
    snprintf(s, sizeof s, "   95%% confidence interval        [%s, %s] (Wilson)", pct(f->fpp.low, a),
             pct(f->fpp.high, b));
    line(out, art, s, NULL);
    snprintf(s, sizeof s, "   theory 1-(1-1/(2^f-1))^(2b*load) %s, %s the interval",
             pct(f->fpp_theory, a), f->theory_in_ci ? "inside" : "OUTSIDE");
    line(out, art, s, NULL);
    snprintf(s, sizeof s, "   bound 2b/2^f                   %s", pct(f->fpp_bound, a));
    line(out, art, s, "0.195%");

    snprintf(s, sizeof s, "4. kicks per insert (to %g%%)      mean %.3f, p99 %" PRIu64 ", max %" PRIu64,
             100 * p->load, f->kicks.mean, f->kicks.p99, f->kicks.max);
    line(out, art, s, "0.888");
    line(out, art,
         "   (breadth-first eviction search: it moves the fewest items, so\n"
         "    fewer kicks than the article's random walk)", NULL);

    snprintf(s, sizeof s, "5. delete %u items                 found before %u/%u, after %u/%u; "
             "others lost %s", f->delete_items, f->delete_found_before, f->delete_items,
             f->delete_found_after, f->delete_items, grouped(f->delete_others_lost, a));
    line(out, art, s, "4/4: True -> False");

    snprintf(s, sizeof s, "6. fill until an insert fails     load %.2f%% (%s items)%s",
             100 * f->fail_load, grouped(f->fail_items, a), f->fail_reached ? "" : ", no failure");
    line(out, art, s, "~96%");
    snprintf(s, sizeof s, "   items lost at the failure      %s (a failed insert changes nothing)",
             grouped(f->fail_lost, a));
    line(out, art, s, "1 (dropped victim)");
}

static void text_compare(const report *r, FILE *out, bool art) {
    const report_compare *c = &r->compare;
    char a[32], b[32], x[32], y[32];
    fprintf(out, "\n7. Cuckoo vs Bloom at the same memory (b = %u, target load %g%%; Bloom gets "
                 "the same bits\n   and its optimal k; '~' = the 95%% intervals overlap)\n",
            r->params.bucket_size, 100 * r->params.load);
    fprintf(out, "    f  bits/item   load  cuckoo FPP    (theory)     k  Bloom FPP     (theory)"
                 "     winner\n");
    for (int i = 0; i < REPORT_SWEEP_ROWS; i++) {
        const report_compare_row *w = &c->rows[i];
        const char *win = w->winner > 0 ? "cuckoo" : w->winner < 0 ? "Bloom" : "tie";
        fprintf(out, "  %3u  %9.2f  %4.1f%%  %-12s (%-10s)  %2u  %-12s (%-10s)  %s%s\n",
                w->fingerprint_bits, w->bits_per_item, 100 * w->load, pct(w->cuckoo.rate, a),
                pct(w->cuckoo_theory, x), w->bloom_k, pct(w->bloom.rate, b),
                pct(w->bloom_theory, y), w->significant || w->winner == 0 ? "" : "~", win);
    }
    if (c->crossover_found)
        fprintf(out, "   crossover (theory): cuckoo is smaller above %.2f bits per item, i.e. for "
                     "FPP below %s\n", c->crossover_bits, pct(c->crossover_fpp, a));
    else
        fprintf(out, "   crossover (theory): none between f = %d and %d\n", REPORT_MIN_SWEEP_BITS,
                REPORT_MAX_SWEEP_BITS);
    if (c->measured_from_f)
        fprintf(out, "   measured: cuckoo wins or ties from f = %u on\n", c->measured_from_f);
    if (art)
        fprintf(out, "   article: f=8 (8.42 bits) Bloom 1.75%% vs cuckoo 2.96%%; f=12 (12.63) "
                     "cuckoo 0.19%% vs 0.24%%;\n            f=16 (16.84) cuckoo 0.0096%% vs "
                     "0.028%%; cuckoo wins below ~3%% FPP\n");
}

static void text_buckets(const report *r, FILE *out) {
    static const char *paper[REPORT_BUCKET_ROWS] = {"~50%", "~84%", "~95%", "~98%"};
    char a[32], b[32];
    fprintf(out, "\n8. maximum load by bucket size (%u-bit fingerprints, same slots, first "
                 "failed insert)\n     b  buckets      max load   kicks/insert  lost   paper\n",
            r->params.fingerprint_bits);
    for (int i = 0; i < REPORT_BUCKET_ROWS; i++) {
        const report_bucket_row *w = &r->buckets[i];
        fprintf(out, "    %2u  %-11s  %6.2f%%   %12.3f  %-5s  %s\n", w->bucket_size,
                grouped(w->buckets, a), 100 * w->max_load, w->mean_kicks, grouped(w->lost, b),
                paper[i]);
    }
}

static void text_speed(const report *r, FILE *out) {
    const report_speed *s = &r->speed;
    fprintf(out, "\n9. throughput in this run (informative; one thread, keys hashed per call; "
                 "see bench/)\n");
    fprintf(out, "   cuckoo  insert %6.1f ns (%5.1f M/s)   lookup %6.1f ns (%5.1f M/s)\n",
            s->cuckoo_insert_ns, 1e3 / s->cuckoo_insert_ns, s->cuckoo_lookup_ns,
            1e3 / s->cuckoo_lookup_ns);
    fprintf(out, "   Bloom   insert %6.1f ns (%5.1f M/s)   lookup %6.1f ns (%5.1f M/s)\n",
            s->bloom_insert_ns, 1e3 / s->bloom_insert_ns, s->bloom_lookup_ns,
            1e3 / s->bloom_lookup_ns);
}

void report_write_text(const report *r, FILE *out) {
    bool art = is_article_setup(&r->params);
    text_fill(r, out, art);
    text_compare(r, out, art);
    text_buckets(r, out);
    text_speed(r, out);
}
