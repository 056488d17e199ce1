/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * report_plot.c -- `--plot DIR`: the report's charts.
 *
 *   DIR/report.csv      the full CSV (as --csv prints it)
 *   DIR/fpp.dat         FPP vs bits per item, both filters, measured and theory
 *   DIR/fpp_semi.dat    the same for semi-sorted buckets (b = 4 only; else a
 *                       comment saying why it is empty)
 *   DIR/kicks.dat       mean and max kicks per insert per 1% of load
 *   DIR/max_load.dat    maximum load per bucket size, with the paper's values
 *   DIR/report.gp       the gnuplot script that turns them into
 *   DIR/{fpp,kicks,max_load}.{png,svg}
 *
 * gnuplot runs as a child process in DIR; without gnuplot the data and the
 * script stay there, and the message says how to draw them later.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, fork, isatty */

#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_base.h"

/* gnuplot reads "NaN" as a missing point: a zero count has no place on a log axis. */
static void put_positive(FILE *f, double v) {
    if (v > 0)
        fprintf(f, " %.6g", v);
    else
        fputs(" NaN", f);
}

static void write_rows(const report *r, FILE *f, const report_compare_row *rows, int n) {
    fputs("# f bits_per_item cuckoo_fpp cuckoo_low cuckoo_high cuckoo_theory"
          " bloom_fpp bloom_low bloom_high bloom_theory bound_2b_over_2f\n",
          f);
    for (int i = 0; i < n; i++) {
        const report_compare_row *w = &rows[i];
        fprintf(f, "%u %.4f", w->fingerprint_bits, w->bits_per_item);
        bool c = w->cuckoo.hits > 0, b = w->bloom.hits > 0;
        put_positive(f, c ? w->cuckoo.rate : 0);
        put_positive(f, c ? w->cuckoo.low : 0);
        put_positive(f, c ? w->cuckoo.high : 0);
        put_positive(f, w->cuckoo_theory);
        put_positive(f, b ? w->bloom.rate : 0);
        put_positive(f, b ? w->bloom.low : 0);
        put_positive(f, b ? w->bloom.high : 0);
        put_positive(f, w->bloom_theory);
        put_positive(f, ldexp(2.0 * r->params.bucket_size, -(int)w->fingerprint_bits));
        fputc('\n', f);
    }
}

static void write_fpp(const report *r, FILE *f) {
    write_rows(r, f, r->compare.rows, REPORT_SWEEP_ROWS);
}

static void write_fpp_semi(const report *r, FILE *f) {
    if (r->compare.semi_available)
        write_rows(r, f, r->compare.semi, REPORT_SEMI_ROWS);
    else
        fprintf(f, "# no semi-sorted series: it needs 4 slots per bucket, not %u\n",
                r->params.bucket_size);
}

static void write_kicks(const report *r, FILE *f) {
    const report_kicks *k = &r->fill.kicks;
    fputs("# load_pct mean_kicks max_kicks inserts\n", f);
    for (int i = 0; i < REPORT_LOAD_BINS; i++)
        if (k->bin_inserts[i])
            fprintf(f, "%.1f %.6g %" PRIu64 " %" PRIu64 "\n", i + 0.5,
                    (double)k->bin_kicks[i] / (double)k->bin_inserts[i], k->bin_max[i],
                    k->bin_inserts[i]);
}

static void write_max_load(const report *r, FILE *f) {
    /* Fan et al. 2014, the loads reached with 4 and 8 slots, and ~50% / 84% for 1 and 2. */
    static const double paper[REPORT_BUCKET_ROWS] = {50, 84, 95, 98};
    fputs("# b max_load_pct paper_pct\n", f);
    for (int i = 0; i < REPORT_BUCKET_ROWS; i++)
        fprintf(f, "%u %.2f %.0f\n", r->buckets[i].bucket_size, 100 * r->buckets[i].max_load,
                paper[i]);
}

/* One chart's gnuplot commands, drawn once per terminal. */
/* A dotted vertical line at a crossover, labelled near the top. */
static void crossover_line(FILE *g, int id, const report_crossover *x, const char *what,
                           const char *colour, double height) {
    if (!x->found) return;
    fprintf(g,
            "set arrow %d from %.3f, graph 0 to %.3f, graph 1 nohead dt 4 lc rgb \"%s\"\n"
            "set label %d \"%s crossover %.1f bits/item\" at %.3f, graph %.2f left "
            "offset 0.5,0 tc rgb \"%s\"\n",
            id, x->bits, x->bits, colour, id, what, x->bits, x->bits, height, colour);
}

/* One chart's gnuplot commands, drawn once per terminal. */
static void chart_fpp(const report *r, FILE *g) {
    const report_compare *c = &r->compare;
    fprintf(g,
            "set title \"False-positive rate at equal memory: cuckoo (b = %u, load %g%%%s) "
            "vs Bloom (optimal k)\"\n",
            r->params.bucket_size, 100 * r->params.load,
            c->semi_available ? ", plain and semi-sorted" : "");
    fputs("set xlabel \"bits per item (table bits / items)\"\n"
          "set ylabel \"false-positive rate (log scale)\"\n"
          "set logscale y\nset format y \"10^{%L}\"\nset grid\nset key bottom left box opaque\n",
          g);
    crossover_line(g, 1, &c->crossover, "plain", "#1f77b4", 0.95);
    if (c->semi_available)
        crossover_line(g, 2, &c->semi_crossover, "semi-sorted", "#2ca02c", 0.88);
    else
        fputs("set label 3 \"no semi-sorted series: it needs 4 slots per bucket\" at graph 0.98, "
              "graph 0.04 right tc rgb \"gray30\"\n",
              g);
    bool art = report_is_article_setup(&r->params);
    if (art) /* the article's three rows: bits per item, cuckoo FPP, Bloom FPP */
        fputs("$article << EOD\n8.42 0.0296 0.0175\n12.63 0.0019 0.0024\n"
              "16.84 0.000096 0.00028\nEOD\n",
              g);
    fputs("plot \"fpp.dat\" using 2:6 with lines lw 2 lc rgb \"#1f77b4\" "
          "title \"cuckoo, theory 1-(1-1/(2^f-1))^{2b load}\", \\\n"
          "  \"\" using 2:3:4:5 with yerrorbars pt 7 ps 0.8 lc rgb \"#1f77b4\" "
          "title \"cuckoo, measured (95% CI)\", \\\n",
          g);
    if (c->semi_available)
        fputs("  \"fpp_semi.dat\" using 2:6 with lines lw 2 dt 5 lc rgb \"#2ca02c\" "
              "title \"semi-sorted cuckoo (f-1 bits per slot), theory\", \\\n"
              "  \"\" using 2:3:4:5 with yerrorbars pt 9 ps 1.1 lc rgb \"#2ca02c\" "
              "title \"semi-sorted cuckoo, measured (95% CI)\", \\\n",
              g);
    fputs("  \"fpp.dat\" using 2:10 with lines lw 2 dt 2 lc rgb \"#d62728\" "
          "title \"Bloom, theory (1-e^{-kn/m})^k\", \\\n"
          "  \"\" using 2:7:8:9 with yerrorbars pt 5 ps 0.8 lc rgb \"#d62728\" "
          "title \"Bloom, measured (95% CI)\", \\\n"
          "  \"\" using 2:11 with lines dt 3 lc rgb \"gray50\" title \"cuckoo bound 2b/2^f\"",
          g);
    if (art)
        fputs(", \\\n  $article using 1:2 with points pt 6 ps 2 lw 2 lc rgb \"black\" "
              "title \"the article (Python): cuckoo\", \\\n"
              "  $article using 1:3 with points pt 4 ps 2 lw 2 lc rgb \"black\" "
              "title \"the article (Python): Bloom\"",
              g);
    fputs("\n", g);
}

static void chart_kicks(const report *r, FILE *g) {
    const report_params *p = &r->params;
    double target = 100 * r->fill.load, failure = 100 * r->fill.fail_load;
    fprintf(g,
            "set title \"Kicks per insert vs load (f = %u, b = %u, breadth-first eviction, "
            "max kicks %u)\"\n",
            p->fingerprint_bits, p->bucket_size, p->max_kicks);
    fputs("set xlabel \"load when the item is inserted (%)\"\n"
          "set ylabel \"mean kicks per insert (1% bins)\"\nset y2label \"max kicks in the bin\"\n"
          "set ytics nomirror\nset y2tics\nset grid\n"
          "set key top left box opaque\nset xrange [0:100]\n",
          g);
    uint64_t top = 0; /* headroom above the largest max, so the steps stay visible */
    for (int i = 0; i < REPORT_LOAD_BINS; i++)
        if (r->fill.kicks.bin_max[i] > top) top = r->fill.kicks.bin_max[i];
    fprintf(g, "set y2range [0:%" PRIu64 "]\nset yrange [0:*]\n", top + 1 + top / 5);
    fprintf(g,
            "set arrow 1 from %.3f, graph 0 to %.3f, graph 1 nohead dt 2 lc rgb \"gray30\"\n"
            "set label 1 \"target %.4g%%\" at %.3f, graph 0.92 right offset -0.5,0\n"
            "set arrow 2 from %.3f, graph 0 to %.3f, graph 1 nohead dt 4 lc rgb \"#d62728\"\n"
            "set label 2 \"first failure %.1f%%\" at %.3f, graph 0.84 right offset -0.5,0 "
            "tc rgb \"#d62728\"\n",
            target, target, target, target, failure, failure, failure, failure);
    fputs("plot \"kicks.dat\" using 1:3 axes x1y2 with histeps lw 1.5 lc rgb \"#ff7f0e\" "
          "title \"max kicks in the bin (right axis)\", \\\n"
          "  \"\" using 1:2 axes x1y1 with linespoints lw 2 pt 7 ps 0.5 lc rgb \"#1f77b4\" "
          "title \"mean kicks per insert\"\n",
          g);
}

static void chart_max_load(const report *r, FILE *g) {
    fprintf(g,
            "set title \"Maximum load before the first failed insert (f = %u, %" PRIu64
            " slots, max kicks %u)\"\n",
            r->params.fingerprint_bits, r->buckets[0].slots, r->params.max_kicks);
    fputs("set xlabel \"slots per bucket (b)\"\nset ylabel \"maximum load (%)\"\n"
          "set yrange [0:110]\nset grid ytics\nset key top left box opaque\n"
          "set style data histograms\nset style histogram clustered gap 1\n"
          "set style fill solid 0.8 border -1\nset boxwidth 0.9\n"
          "plot \"max_load.dat\" using 2:xtic(1) lc rgb \"#1f77b4\" title \"this library\", \\\n"
          "  \"\" using 3 lc rgb \"#bbbbbb\" title \"paper (Fan et al. 2014)\", \\\n"
          "  \"\" using ($0-1.0/6):($2+3):(sprintf(\"%.1f\", $2)) with labels notitle, \\\n"
          "  \"\" using ($0+1.0/6):($3+3):(sprintf(\"%.0f\", $3)) with labels notitle\n",
          g);
}

static void write_script(const report *r, FILE *g) {
    static const char *names[] = {"fpp", "kicks", "max_load"};
    void (*charts[])(const report *, FILE *) = {chart_fpp, chart_kicks, chart_max_load};
    fputs("# Draws the report's charts; run in this directory: gnuplot report.gp\n"
          "set datafile missing \"NaN\"\nset encoding utf8\n"
          "png_term = (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) ? "
          "\"pngcairo size 960,600 font 'sans,11'\" : \"png size 960,600\"\n",
          g);
    for (int c = 0; c < 3; c++) {
        fputs("reset\nset datafile missing \"NaN\"\n", g);
        fprintf(g, "set terminal @png_term\nset output \"%s.png\"\n", names[c]);
        charts[c](r, g);
        fprintf(g,
                "set terminal svg size 960,600 dynamic font 'sans,11'\nset output \"%s.svg\"\n"
                "replot\nset output\n",
                names[c]);
    }
}

typedef void (*writer_fn)(const report *, FILE *);

static int write_file(const report *r, const char *dir, const char *name, writer_fn fn) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL) return cli_error("cannot write %s: %s", path, strerror(errno));
    fn(r, f);
    if (fclose(f) != 0) return cli_error("cannot write %s: %s", path, strerror(errno));
    return 0;
}

/* Runs gnuplot report.gp in dir; returns its exit status, 127 when missing. */
static int run_gnuplot(const char *dir) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return 127;
    if (pid == 0) {
        if (chdir(dir) != 0) _exit(126);
        execlp("gnuplot", "gnuplot", "report.gp", (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return 127;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int report_plot(const report *r, const char *dir) {
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return cli_error("cannot create %s: %s", dir, strerror(errno));
    int rc = write_file(r, dir, "report.csv", report_write_csv);
    if (rc == 0) rc = write_file(r, dir, "fpp.dat", write_fpp);
    if (rc == 0) rc = write_file(r, dir, "fpp_semi.dat", write_fpp_semi);
    if (rc == 0) rc = write_file(r, dir, "kicks.dat", write_kicks);
    if (rc == 0) rc = write_file(r, dir, "max_load.dat", write_max_load);
    if (rc == 0) rc = write_file(r, dir, "report.gp", write_script);
    if (rc != 0) return rc;
    int status = run_gnuplot(dir);
    if (status == 0)
        fprintf(stderr, "cuckoo report: charts written to %s/{fpp,kicks,max_load}.{png,svg}\n",
                dir);
    else if (status == 127)
        fprintf(stderr,
                "cuckoo report: gnuplot not found; the data is in %s. To draw the "
                "charts: apt-get install gnuplot-nox, then cd %s && gnuplot report.gp\n",
                dir, dir);
    else
        fprintf(stderr,
                "cuckoo report: gnuplot failed (status %d); the data and script are in %s\n",
                status, dir);
    return 0;
}
