/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* report_util.c -- the report's keys, statistics, clock and progress line. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, fork, isatty */

#include "report.h"

#include <math.h>
#include <time.h>

#include "cli_base.h"

/* splitmix64's finalizer: a bijection on 64-bit values (xor-shifts and odd
 * multiplications are invertible), so distinct inputs give distinct keys. */
static uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

void report_key(uint64_t seed, uint64_t index, bool member, unsigned char out[8]) {
    /* Members use inputs below 2^63 and non-members inputs above: xoring a
     * constant and mixing are bijections, so the two sets can never meet. */
    uint64_t input = (index & ~(1ull << 63)) | (member ? 0 : 1ull << 63);
    uint64_t v = mix64(input ^ mix64(seed ^ 0x6a09e667f3bcc909ull));
    for (int i = 0; i < 8; i++) out[i] = (unsigned char)(v >> (8 * i));
}

report_rate report_rate_of(uint64_t hits, uint64_t trials) {
    report_rate r = {hits, trials, 0, 0, 1};
    if (trials == 0) return r;
    /* Wilson's interval stays inside [0, 1] and is sensible for the small
     * counts the wide fingerprints produce, where p +- 1.96 sigma is not. */
    const double z = 1.959963984540054;
    double n = (double)trials, p = (double)hits / n;
    double denom = 1 + z * z / n;
    double centre = (p + z * z / (2 * n)) / denom;
    double half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom;
    r.rate = p;
    r.low = hits == 0 ? 0 : fmax(0, centre - half);
    r.high = hits == trials ? 1 : fmin(1, centre + half);
    return r;
}

uint64_t report_p99(const uint64_t *histogram, size_t len) {
    uint64_t total = 0;
    for (size_t i = 0; i < len; i++) total += histogram[i];
    uint64_t seen = 0;
    for (size_t i = 0; i < len; i++) {
        seen += histogram[i];
        /* seen / total >= 0.99, in integers */
        if (seen * 100 >= total * 99) return (uint64_t)i;
    }
    return len ? (uint64_t)(len - 1) : 0;
}

double report_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

void report_progress(const report *r, const char *phase, uint64_t done, uint64_t total) {
    if (!r->show_progress) return;
    /* For long phases, printing every call would cost more than the work. */
    if (done != total && total > 0x10000 && (done & 0xffff) != 0) return;
    fprintf(stderr, "\r  %-28s %3.0f%%", phase, total ? 100.0 * (double)done / (double)total : 100);
    if (done == total) fputc('\n', stderr);
    fflush(stderr);
}

cf_status report_new_filter(const report *r, unsigned fbits, unsigned bucket_size, uint64_t buckets,
                            unsigned flags, cf_filter **out) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.flags = flags;
    cfg.fingerprint_bits = fbits;
    cfg.bucket_size = bucket_size;
    cfg.num_buckets = buckets;
    cfg.max_kicks = r->params.max_kicks;
    cfg.seed = r->params.seed;
    cf_status s = cf_new(&cfg, out);
    if (s != CF_OK)
        cli_error("cannot create a %sfilter (f=%u, b=%u, %llu buckets): %s",
                  (flags & CF_SEMI_SORT) ? "semi-sorted " : "", fbits, bucket_size,
                  (unsigned long long)buckets, cf_strerror(s));
    return s;
}

bool report_semi_supported(unsigned bucket_size, unsigned fbits) {
    return bucket_size == REPORT_SEMI_BUCKET_SIZE && fbits >= REPORT_SEMI_MIN_BITS &&
           fbits <= REPORT_SEMI_MAX_BITS;
}

bool report_is_article_setup(const report_params *p) {
    /* The article's table had plain buckets: its memory figures are those. */
    return !p->semi_sort && p->fingerprint_bits == 12 && p->bucket_size == 4 &&
           p->buckets == 65536 && p->load == 0.95 && p->queries == 500000 && p->max_kicks == 500;
}
