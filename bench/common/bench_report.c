/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * bench_report.c -- turns a case's samples into the table people read and
 * the CSV that scripts read.
 *
 * Ratios are ours / other on the medians, so below 1 means the library is
 * faster: the targets read "lookups 1.5x faster than the reference"
 * as ours/ref <= 0.67 and "batched within 2x of the limit" as ours/limit <= 2.
 * The limit for a lookup is the probe's pair of independent random lines.
 * The semi-sorted variant is set against the plain library (semi/ours: the
 * issue wants lookups within 1.3x and one bit per item less).
 */
#include "common/bench.h"

#include "common/bench_util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile uint64_t bench_sink;

const char *const bench_impl_names[IMPL_COUNT] = {"ours", "semi", "ref", "bloom", "probe"};

const char *const bench_metric_names[M_COUNT] = {
    "insert",      "insert_batch", "lookup_pos", "lookup_neg", "lookup_mixed", "lookup_mixed_hash",
    "batch_mixed", "delete",       "dependent",  "random1",    "random2",      "page2"};

/* Rows of the table: the library's metric, the baselines' metric it is set
 * against (the batched insert hashes its keys too, so it faces the plain
 * inserts; lookups on precomputed hashes face only the probe), and whether
 * the probe's limit applies. */
static const struct {
    bench_metric metric;
    const char *label;
    bench_metric base;
    bool has_limit;
} table_rows[] = {
    {M_INSERT, "insert to load", M_INSERT, false},
    {M_INSERT_BATCH, "  same, batched", M_INSERT, false},
    {M_POS, "lookup, present", M_POS, true},
    {M_NEG, "lookup, absent", M_NEG, true},
    {M_MIXED, "lookup, 50% mixed", M_MIXED, true},
    {M_MIXED_HASH, "  same, on hashes", M_MIXED_HASH, true},
    {M_BATCH, "  same, batched", M_BATCH, true},
    {M_DELETE, "delete", M_DELETE, false},
};

/* Parses "123", "10M", "1.5k"... into *out; false on anything else. */
bool bench_parse_count(const char *s, uint64_t *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno != 0 || v < 0) return false;
    double mult = 1;
    if (*end == 'k' || *end == 'K')
        mult = 1e3, end++;
    else if (*end == 'M' || *end == 'm')
        mult = 1e6, end++;
    else if (*end == 'G' || *end == 'g')
        mult = 1e9, end++;
    if (*end != '\0') return false;
    v *= mult;
    if (v < 1 || v > 1e15 || v != floor(v)) return false;
    *out = (uint64_t)v;
    return true;
}

void bench_fill_keys(uint64_t *keys, uint64_t n, uint64_t stream_seed) {
    uint64_t s = stream_seed;
    for (uint64_t i = 0; i < n; i++) keys[i] = bench_splitmix64(&s);
}

double bench_median(double *v, size_t n) {
    if (n == 0) return 0.0;
    for (size_t i = 1; i < n; i++) { /* insertion sort: n is a handful */
        double x = v[i];
        size_t j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double bench_available_bytes(void) {
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : INFINITY;
}

/* Collects the measured samples of (impl, m) into v; returns how many. */
static size_t collect(const bench_case *c, bench_impl impl, bench_metric m, double *v) {
    size_t k = 0;
    for (unsigned r = 0; r < c->reps; r++) {
        double x = c->samples[impl][m][r];
        if (!isnan(x)) v[k++] = x;
    }
    return k;
}

double bench_case_median(const bench_case *c, bench_impl impl, bench_metric m) {
    double v[BENCH_MAX_REPS];
    size_t k = collect(c, impl, m, v);
    return k == 0 ? NAN : bench_median(v, k);
}

/* Prints x with fmt, or a dash as wide as fmt's field when x is missing. */
static void put_num(FILE *out, double x, const char *fmt) {
    if (isnan(x))
        fprintf(out, fmt[1] == '%' && fmt[2] == '1' ? " %10s" : " %s", "-");
    else
        fprintf(out, fmt, x);
}

static double ratio(double a, double b) {
    return (isnan(a) || isnan(b) || b <= 0.0) ? NAN : a / b;
}

static void print_targets(FILE *out, const bench_case *c) {
    double pos =
        ratio(bench_case_median(c, IMPL_REF, M_POS), bench_case_median(c, IMPL_OURS, M_POS));
    double neg =
        ratio(bench_case_median(c, IMPL_REF, M_NEG), bench_case_median(c, IMPL_OURS, M_NEG));
    double ins =
        ratio(bench_case_median(c, IMPL_REF, M_INSERT), bench_case_median(c, IMPL_OURS, M_INSERT));
    double insb = ratio(bench_case_median(c, IMPL_REF, M_INSERT),
                        bench_case_median(c, IMPL_OURS, M_INSERT_BATCH));
    double lim = ratio(bench_case_median(c, IMPL_OURS, M_BATCH),
                       bench_case_median(c, IMPL_PROBE, M_RANDOM2));
    fputs("  issue 5 targets: lookups vs ref", out);
    put_num(out, pos, " %.2fx");
    fputs(" (present) /", out);
    put_num(out, neg, " %.2fx");
    fputs(" (absent) faster, want >= 1.5; inserts", out);
    put_num(out, ins, " %.2fx");
    fputs(" (batched", out);
    put_num(out, insb, " %.2fx");
    fputs(") faster, want >= 2; batched lookups", out);
    put_num(out, lim, " %.2fx");
    fputs(" the limit, want <= 2\n", out);
    if (!c->facts[IMPL_SEMI].present) return;
    fprintf(out, "  semi-sorted: %.2f bits/item (plain %.2f), want 1 less; lookups",
            c->facts[IMPL_SEMI].bits_per_item, c->facts[IMPL_OURS].bits_per_item);
    put_num(out,
            ratio(bench_case_median(c, IMPL_SEMI, M_POS), bench_case_median(c, IMPL_OURS, M_POS)),
            " %.2fx");
    fputs(" (present) /", out);
    put_num(out,
            ratio(bench_case_median(c, IMPL_SEMI, M_NEG), bench_case_median(c, IMPL_OURS, M_NEG)),
            " %.2fx");
    fputs(" (absent) plain's time, want <= 1.3\n", out);
}

void bench_print_case(FILE *out, const bench_case *c) {
    const bench_facts *fo = &c->facts[IMPL_OURS];
    fprintf(out, "\n== N = %llu, f = %u, b = %u: median of %u, ns per operation ==\n",
            (unsigned long long)c->n, c->fp_bits, c->bucket_size, c->reps);
    fprintf(out, "%-20s %10s %10s %10s %10s %10s %10s %10s %10s %10s\n", "", "ours", "semi", "ref",
            "bloom", "limit", "ours/ref", "ours/bloom", "ours/limit", "semi/ours");
    double limit = bench_case_median(c, IMPL_PROBE, M_RANDOM2);
    for (size_t i = 0; i < sizeof table_rows / sizeof table_rows[0]; i++) {
        bench_metric m = table_rows[i].metric;
        double o = bench_case_median(c, IMPL_OURS, m);
        double sm = bench_case_median(c, IMPL_SEMI, m);
        bench_metric base = table_rows[i].base;
        double r = bench_case_median(c, IMPL_REF, base);
        double b = bench_case_median(c, IMPL_BLOOM, base);
        double l = table_rows[i].has_limit ? limit : NAN;
        fprintf(out, "%-20s", table_rows[i].label);
        put_num(out, o, " %10.1f");
        put_num(out, sm, " %10.1f");
        put_num(out, base == m ? r : NAN, " %10.1f");
        put_num(out, base == m ? b : NAN, " %10.1f");
        put_num(out, l, " %10.1f");
        put_num(out, ratio(o, r), " %10.2f");
        put_num(out, ratio(o, b), " %10.2f");
        put_num(out, ratio(o, l), " %10.2f");
        put_num(out, ratio(sm, o), " %10.2f");
        fputc('\n', out);
    }
    static const struct {
        const char *label;
        int which;
    } fact_rows[] = {{"bits per item", 0}, {"FPP %", 1}, {"items", 2}, {"table MB", 3}};
    for (size_t i = 0; i < sizeof fact_rows / sizeof fact_rows[0]; i++) {
        fprintf(out, "%-20s", fact_rows[i].label);
        for (int impl = IMPL_OURS; impl <= IMPL_BLOOM; impl++) {
            const bench_facts *f = &c->facts[impl];
            double x = NAN;
            if (f->present) {
                switch (fact_rows[i].which) {
                case 0: x = f->bits_per_item; break;
                case 1: x = f->fpp * 100.0; break;
                case 2: x = (double)f->items; break;
                default: x = (double)f->table_bytes / 1e6; break;
                }
            }
            put_num(out, x,
                    fact_rows[i].which == 1   ? " %10.4f"
                    : fact_rows[i].which == 2 ? " %10.0f"
                                              : " %10.2f");
        }
        fputc('\n', out);
    }
    const bench_facts *fp = &c->facts[IMPL_PROBE];
    if (fp->present)
        fprintf(out,
                "  probe over %.2f MB: dependent %.1f ns/read, independent %.1f ns/line, "
                "%.1f ns/pair (the limit), %.1f ns/pair in one page%s\n",
                (double)fp->table_bytes / 1e6, bench_case_median(c, IMPL_PROBE, M_DEPENDENT),
                bench_case_median(c, IMPL_PROBE, M_RANDOM1), limit,
                bench_case_median(c, IMPL_PROBE, M_PAGE2), fp->huge_bytes ? "; on huge pages" : "");
    for (int impl = IMPL_OURS; impl <= IMPL_REF; impl++) {
        const bench_facts *f = &c->facts[impl];
        if (!f->present) continue;
        fprintf(out,
                "  %s: %llu buckets, %.3f kicks/insert, %llu failed inserts, %llu false negatives, "
                "%llu failed deletes\n",
                bench_impl_names[impl], (unsigned long long)f->num_buckets,
                f->items ? (double)f->kicks / (double)f->items : 0.0,
                (unsigned long long)f->failed_inserts, (unsigned long long)f->false_negatives,
                (unsigned long long)f->failed_deletes);
    }
    if (c->facts[IMPL_REF].present)
        fputs("  ref: the paper's code hashes inside its lookup (no hash path): its \"on hashes\"\n"
              "       row is its lookup of the same keys\n",
              out);
    if (c->facts[IMPL_BLOOM].present)
        fprintf(out, "  bloom: k = %u\n", c->facts[IMPL_BLOOM].num_hashes);
    if (fo->present && c->facts[IMPL_REF].present) print_targets(out, c);
}

void bench_csv_header(FILE *out) {
    fputs("n,fp_bits,bucket_size,impl,metric,value,unit,ops,reps,min,max\n", out);
}

static void csv_fact(FILE *out, const bench_case *c, int impl, const char *metric, double v,
                     const char *unit) {
    fprintf(out, "%llu,%u,%u,%s,%s,%.10g,%s,,,,\n", (unsigned long long)c->n, c->fp_bits,
            c->bucket_size, bench_impl_names[impl], metric, v, unit);
}

void bench_csv_case(FILE *out, const bench_case *c) {
    for (int impl = 0; impl < IMPL_COUNT; impl++) {
        for (int m = 0; m < M_COUNT; m++) {
            double v[BENCH_MAX_REPS];
            size_t k = collect(c, (bench_impl)impl, (bench_metric)m, v);
            if (k == 0) continue;
            double med = bench_median(v, k); /* v is sorted now */
            fprintf(out, "%llu,%u,%u,%s,%s,%.4f,ns,%llu,%zu,%.4f,%.4f\n", (unsigned long long)c->n,
                    c->fp_bits, c->bucket_size, bench_impl_names[impl], bench_metric_names[m], med,
                    (unsigned long long)c->ops[impl][m], k, v[0], v[k - 1]);
        }
        const bench_facts *f = &c->facts[impl];
        if (!f->present) continue;
        csv_fact(out, c, impl, "table_bytes", (double)f->table_bytes, "bytes");
        if (impl == IMPL_PROBE) continue;
        csv_fact(out, c, impl, "items", (double)f->items, "items");
        csv_fact(out, c, impl, "bits_per_item", f->bits_per_item, "bits");
        csv_fact(out, c, impl, "fpp", f->fpp, "fraction");
        csv_fact(out, c, impl, "false_negatives", (double)f->false_negatives, "count");
        csv_fact(out, c, impl, "failed_inserts", (double)f->failed_inserts, "count");
    }
}
