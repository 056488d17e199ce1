/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * report_buckets.c -- phase 8: the load a filter reaches before its first
 * failed insert, for each bucket size, at the same number of slots and the
 * same fingerprint width.  Larger buckets give each item more places to go,
 * which is why the paper chose b = 4 (~95%) over b = 2 (~84%).
 */
#include "report.h"

#include "cli_base.h"

static int fill_until_failure(report *r, report_bucket_row *row) {
    const report_params *p = &r->params;
    cf_filter *f;
    /* Plain buckets for every row: semi-sorting exists for b = 4 only, and
     * the rows must differ in the bucket size alone. */
    if (report_new_filter(r, p->fingerprint_bits, row->bucket_size, row->buckets, 0, &f) != CF_OK)
        return CLI_ERROR;
    unsigned char key[8];
    char phase[40];
    snprintf(phase, sizeof phase, "max load with b = %u", row->bucket_size);
    uint64_t n = 0;
    for (; n <= row->slots; n++) {
        report_key(p->seed, n, true, key);
        if (cf_insert(f, key, sizeof key) != CF_OK) break;
        report_progress(r, phase, n, row->slots);
    }
    report_progress(r, phase, row->slots, row->slots);
    cf_stats s;
    cf_get_stats(f, &s);
    row->items = s.items;
    row->max_load = s.load_factor;
    row->mean_kicks = n ? (double)s.total_kicks / (double)n : 0;
    row->lost = 0;
    for (uint64_t i = 0; i < n; i++) {
        report_key(p->seed, i, true, key);
        row->lost += !cf_contains(f, key, sizeof key);
    }
    cf_free(f);
    return 0;
}

int report_run_buckets(report *r) {
    static const unsigned sizes[REPORT_BUCKET_ROWS] = {1, 2, 4, 8};
    /* Same memory for every row: the slots of the main experiment's table. */
    uint64_t slots = r->params.buckets * r->params.bucket_size;
    for (int i = 0; i < REPORT_BUCKET_ROWS; i++) {
        report_bucket_row *row = &r->buckets[i];
        row->bucket_size = sizes[i];
        row->buckets = slots / sizes[i] ? slots / sizes[i] : 1;
        row->slots = row->buckets * sizes[i];
        int rc = fill_until_failure(r, row);
        if (rc != 0) return rc;
    }
    return 0;
}
