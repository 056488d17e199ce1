/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * report_compare.c -- phase 7: Cuckoo vs Bloom at the same memory, and
 * phase 9: the throughput of both (informative only).
 *
 * For each fingerprint width f the cuckoo filter of the requested shape is
 * filled with the same member keys as the main experiment (up to the target
 * load or its first failure); a Bloom filter gets exactly the cuckoo table's
 * nb * b * f bits, the optimal k for that many items, and the same items.
 * Both answer the same non-member queries.
 *
 * With 4 slots per bucket the same is done again for semi-sorted buckets
 * (f = 5..16): the same FPP per width for one bit less per slot, so the
 * Bloom filter beside it gets nb * 4 * (f - 1) bits.  This is the layout the
 * paper's "cuckoo wins below about 3%" is about.
 */
#include "report.h"

#include <math.h>

#include "cli_base.h"

/* Fills one row; when speed is not NULL, also times both filters. */
typedef struct timing {
    double insert_ns;
    double lookup_ns;
    double bloom_insert_ns;
    double bloom_lookup_ns;
} timing;

static int compare_one(report *r, unsigned fbits, unsigned flags, report_compare_row *row,
                       timing *speed) {
    const report_params *p = &r->params;
    cf_filter *cf;
    if (report_new_filter(r, fbits, p->bucket_size, p->buckets, flags, &cf) != CF_OK)
        return CLI_ERROR;
    cf_stats s;
    cf_get_stats(cf, &s);
    uint64_t target = (uint64_t)floor(p->load * (double)s.slots);
    unsigned char key[8];

    double t0 = report_now_ns();
    uint64_t n = 0;
    for (; n < target; n++) {
        report_key(p->seed, n, true, key);
        if (cf_insert(cf, key, sizeof key) != CF_OK) break;
    }
    double t1 = report_now_ns();
    uint64_t hits = 0;
    for (uint64_t j = 0; j < p->queries; j++) {
        report_key(p->seed, j, false, key);
        hits += cf_contains(cf, key, sizeof key);
    }
    double t2 = report_now_ns();
    cf_get_stats(cf, &s);
    row->fingerprint_bits = fbits;
    row->items = n;
    row->load = s.load_factor;
    row->bits_per_slot = s.bits_per_slot;
    row->table_bits = s.slots * s.bits_per_slot;
    row->bits_per_item = n ? (double)row->table_bits / (double)n : 0;
    row->cuckoo = report_rate_of(hits, p->queries);
    row->cuckoo_theory = cf_theoretical_fpp(fbits, p->bucket_size, s.load_factor);
    cf_free(cf);

    cf_bloom_config bc;
    cf_bloom_config_init(&bc);
    bc.num_bits = row->table_bits;
    bc.num_hashes = cf_bloom_optimal_k(row->table_bits, n ? n : 1);
    bc.seed = p->seed;
    cf_bloom *bloom;
    cf_status st = cf_bloom_new(&bc, &bloom);
    if (st != CF_OK)
        return cli_error("cannot create a Bloom filter of %llu bits: %s",
                         (unsigned long long)bc.num_bits, cf_strerror(st));
    double t3 = report_now_ns();
    for (uint64_t i = 0; i < n; i++) {
        report_key(p->seed, i, true, key);
        cf_bloom_insert(bloom, key, sizeof key);
    }
    double t4 = report_now_ns();
    hits = 0;
    for (uint64_t j = 0; j < p->queries; j++) {
        report_key(p->seed, j, false, key);
        hits += cf_bloom_contains(bloom, key, sizeof key);
    }
    double t5 = report_now_ns();
    cf_bloom_stats bs;
    cf_bloom_get_stats(bloom, &bs);
    row->bloom = report_rate_of(hits, p->queries);
    row->bloom_theory = bs.expected_fpp;
    row->bloom_k = bs.num_hashes;
    cf_bloom_free(bloom);

    row->winner = row->cuckoo.hits < row->bloom.hits   ? 1
                  : row->cuckoo.hits > row->bloom.hits ? -1
                                                       : 0;
    row->significant = row->cuckoo.high < row->bloom.low || row->bloom.high < row->cuckoo.low;
    if (speed != NULL && n > 0 && p->queries > 0) {
        speed->insert_ns = (t1 - t0) / (double)n;
        speed->lookup_ns = (t2 - t1) / (double)p->queries;
        speed->bloom_insert_ns = (t4 - t3) / (double)n;
        speed->bloom_lookup_ns = (t5 - t4) / (double)p->queries;
    }
    return 0;
}

/* Where log(cuckoo theory) - log(Bloom theory) changes sign from Bloom
 * better to cuckoo better, interpolated linearly in bits per item; and the
 * width from which the measurements agree. */
static report_crossover find_crossover(const report_compare_row *rows, int n) {
    report_crossover x = {false, 0, 0, 0};
    for (int i = 0; i + 1 < n; i++) {
        const report_compare_row *a = &rows[i], *b = &rows[i + 1];
        if (a->cuckoo_theory <= 0 || a->bloom_theory <= 0 || b->cuckoo_theory <= 0 ||
            b->bloom_theory <= 0)
            continue;
        double da = log(a->cuckoo_theory) - log(a->bloom_theory);
        double db = log(b->cuckoo_theory) - log(b->bloom_theory);
        if (da >= 0 && db < 0) {
            double t = da / (da - db);
            x.found = true;
            x.bits = a->bits_per_item + t * (b->bits_per_item - a->bits_per_item);
            x.fpp =
                exp(log(a->cuckoo_theory) + t * (log(b->cuckoo_theory) - log(a->cuckoo_theory)));
            break;
        }
    }
    for (int i = n - 1; i >= 0 && rows[i].winner >= 0; i--)
        x.measured_from_f = rows[i].fingerprint_bits;
    return x;
}

int report_run_compare(report *r) {
    report_compare *c = &r->compare;
    const report_params *p = &r->params;
    unsigned main_f = p->fingerprint_bits;
    timing t = {0, 0, 0, 0};
    for (int i = 0; i < REPORT_SWEEP_ROWS; i++) {
        unsigned f = REPORT_MIN_SWEEP_BITS + (unsigned)i;
        int rc = compare_one(r, f, 0, &c->rows[i], f == main_f ? &t : NULL);
        if (rc != 0) return rc;
        report_progress(r, "cuckoo vs bloom", (uint64_t)i + 1, REPORT_SWEEP_ROWS);
    }
    if (main_f < REPORT_MIN_SWEEP_BITS || main_f > REPORT_MAX_SWEEP_BITS) {
        report_compare_row scratch;
        int rc = compare_one(r, main_f, 0, &scratch, &t);
        if (rc != 0) return rc;
    }
    r->speed.cuckoo_insert_ns = t.insert_ns;
    r->speed.cuckoo_lookup_ns = t.lookup_ns;
    r->speed.bloom_insert_ns = t.bloom_insert_ns;
    r->speed.bloom_lookup_ns = t.bloom_lookup_ns;
    c->crossover = find_crossover(c->rows, REPORT_SWEEP_ROWS);

    c->semi_available = report_semi_supported(p->bucket_size, REPORT_SEMI_MIN_BITS);
    if (!c->semi_available) return 0;
    for (int i = 0; i < REPORT_SEMI_ROWS; i++) {
        unsigned f = REPORT_SEMI_MIN_BITS + (unsigned)i;
        timing *want = f == main_f ? &t : NULL;
        int rc = compare_one(r, f, CF_SEMI_SORT, &c->semi[i], want);
        if (rc != 0) return rc;
        if (want != NULL) {
            r->speed.has_semi = true;
            r->speed.semi_insert_ns = t.insert_ns;
            r->speed.semi_lookup_ns = t.lookup_ns;
        }
        report_progress(r, "semi-sorted vs bloom", (uint64_t)i + 1, REPORT_SEMI_ROWS);
    }
    c->semi_crossover = find_crossover(c->semi, REPORT_SEMI_ROWS);
    return 0;
}
