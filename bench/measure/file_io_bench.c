/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * file_io_bench.c -- how fast a big filter file opens: cf_load and
 * cf_map(verify) against a plain read() of the same file in the same run,
 * and cf_map without verification (O(1): the same time for 1 MiB and
 * 1 GiB).  Public API only.  The file is read from the page cache (it is
 * read once before timing), so this measures CPU cost, not the disk.
 *
 *   file_io_bench [DIR] [LOG2_BUCKETS]     (default /tmp, 27: a 1 GiB table)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bench_util.h"
#include "cuckoofilter.h"

#define REPS 5

/* Seconds from t0_ns, a bench_now_ns() reading, to now. */
static double seconds_since(double t0_ns) {
    return (bench_now_ns() - t0_ns) * 1e-9;
}

static void die(const char *what, cf_status s) {
    fprintf(stderr, "file_io_bench: %s: %s\n", what, cf_strerror(s));
    exit(2);
}

/* read() of the whole file into a fresh buffer, as a loader would do. */
static double plain_read(const char *path, size_t size) {
    double t0 = bench_now_ns();
    char *buf = malloc(size);
    int fd = open(path, O_RDONLY);
    if (buf == NULL || fd < 0) exit(2);
    size_t got = 0;
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got > (1u << 30) ? (1u << 30) : size - got);
        if (r <= 0) exit(2);
        got += (size_t)r;
    }
    close(fd);
    double t = seconds_since(t0);
    volatile char sink = buf[size / 2];
    (void)sink;
    free(buf);
    return t;
}

static cf_filter *make(uint64_t nb, uint64_t keys) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.fingerprint_bits = 16;
    cfg.bucket_size = 4;
    cfg.num_buckets = nb;
    cfg.seed = 1;
    cf_filter *f;
    cf_status s = cf_new(&cfg, &f);
    if (s != CF_OK) die("cf_new", s);
    for (uint64_t k = 0; k < keys; k++) (void)cf_insert_hash(f, k * 0x9e3779b97f4a7c15ull + 1);
    return f;
}

/* ns per lookup of n random hashes (half present), after one warm-up pass. */
static double lookup_ns(const cf_filter *f, uint64_t present) {
    const uint64_t n = 2000000;
    size_t found = 0;
    double t = 0;
    for (int pass = 0; pass < 2; pass++) {
        double t0 = bench_now_ns();
        for (uint64_t i = 0; i < n; i++) {
            uint64_t k = (i * 0x2545f4914f6cdd1dull) % (2 * present);
            found += cf_contains_hash(f, k * 0x9e3779b97f4a7c15ull + 1);
        }
        t = bench_now_ns() - t0;
    }
    if (found == 0) exit(2);
    return t / (double)n;
}

static double map_time(const char *path, int reps) {
    double t[REPS];
    for (int r = 0; r < reps; r++) {
        cf_filter *m;
        double t0 = bench_now_ns();
        cf_status s = cf_map(path, NULL, false, &m);
        t[r] = seconds_since(t0);
        if (s != CF_OK) die("cf_map", s);
        cf_free(m);
    }
    return bench_median(t, (size_t)reps);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    unsigned log2nb = argc > 2 ? (unsigned)atoi(argv[2]) : 27;
    char big[512], small[512];
    snprintf(big, sizeof big, "%s/file_io_bench_big.cf", dir);
    snprintf(small, sizeof small, "%s/file_io_bench_small.cf", dir);

    uint64_t nb = (uint64_t)1 << log2nb;
    cf_filter *f = make(nb, nb); /* a quarter full: some of every kind of byte */
    double t0 = bench_now_ns();
    cf_status s = cf_save(f, big);
    double save = seconds_since(t0);
    if (s != CF_OK) die("cf_save", s);
    cf_free(f);
    cf_filter *sf = make(1u << 15, 1u << 15); /* 256 KiB table */
    if ((s = cf_save(sf, small)) != CF_OK) die("cf_save", s);
    cf_free(sf);

    struct stat st;
    stat(big, &st);
    size_t size = (size_t)st.st_size;
    double gb = (double)size / 1e9;
    plain_read(big, size); /* into the page cache */

    double tr[REPS], tl[REPS], tv[REPS];
    for (int r = 0; r < REPS; r++) {
        tr[r] = plain_read(big, size);
        cf_filter *l;
        t0 = bench_now_ns();
        if ((s = cf_load(big, NULL, &l)) != CF_OK) die("cf_load", s);
        tl[r] = seconds_since(t0);
        cf_free(l);
        t0 = bench_now_ns();
        if ((s = cf_map(big, NULL, true, &l)) != CF_OK) die("cf_map verify", s);
        tv[r] = seconds_since(t0);
        cf_free(l);
    }
    double read_s = bench_median(tr, REPS), load_s = bench_median(tl, REPS),
           verify_s = bench_median(tv, REPS);
    double map_big = map_time(big, REPS), map_small = map_time(small, REPS);
    cf_filter *loaded, *mapped;
    if ((s = cf_load(big, NULL, &loaded)) != CF_OK) die("cf_load", s);
    if ((s = cf_map(big, NULL, false, &mapped)) != CF_OK) die("cf_map", s);
    double ns_loaded = lookup_ns(loaded, nb), ns_mapped = lookup_ns(mapped, nb);
    cf_free(loaded);
    cf_free(mapped);
    stat(small, &st);

    printf("file: %zu bytes (%.2f GiB), %llu buckets x 4 slots x 16 bits, page cache warm\n", size,
           (double)size / (1u << 30), (unsigned long long)nb);
    printf("%-28s %10s %10s %s\n", "operation", "time", "GB/s", "vs plain read");
    printf("%-28s %9.3fs %10.2f %s\n", "cf_save (write+fsync)", save, gb / save, "");
    printf("%-28s %9.3fs %10.2f %s\n", "plain read()", read_s, gb / read_s, "1.00");
    printf("%-28s %9.3fs %10.2f %.2f\n", "cf_load", load_s, gb / load_s, read_s / load_s);
    printf("%-28s %9.3fs %10.2f %.2f\n", "cf_map(verify=true)", verify_s, gb / verify_s,
           read_s / verify_s);
    printf("%-28s %8.1fus %10s (%zu-byte file)\n", "cf_map(verify=false)", map_big * 1e6, "-",
           size);
    printf("%-28s %8.1fus %10s (%lld-byte file)\n", "cf_map(verify=false)", map_small * 1e6, "-",
           (long long)st.st_size);
    printf("%-28s %8.1fns (loaded) %8.1fns (mapped, page cache warm)\n", "random lookup", ns_loaded,
           ns_mapped);
    unlink(big);
    unlink(small);
    return 0;
}
