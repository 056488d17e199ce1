/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * report_run.c -- the experiment from its parameters to its output: the
 * phases (report_fill.c, report_compare.c, report_buckets.c), then a table,
 * CSV or JSON on stdout, and charts.  `cuckoo report` (tools/commands/cmd_report.c)
 * reads the options and calls it.
 */
#define _POSIX_C_SOURCE 200809L /* isatty */

#include <stdlib.h>
#include <unistd.h>

#include "cli_base.h"
#include "report.h"

/* The guarantees the report demonstrates; a violation is a library bug. */
static int check_guarantees(const report *r) {
    const report_fill *f = &r->fill;
    uint64_t lost = f->false_negatives + f->delete_others_lost + f->fail_lost;
    for (int i = 0; i < REPORT_BUCKET_ROWS; i++) lost += r->buckets[i].lost;
    if (lost == 0) return CLI_OK;
    fprintf(stderr, "cuckoo report: %llu inserted items were not found: a library bug\n",
            (unsigned long long)lost);
    return CLI_NOT_FOUND;
}

int report_run(const report_params *p) {
    report *r = calloc(1, sizeof *r);
    if (r == NULL) return cli_error("out of memory");
    r->params = *p;
    r->show_progress = isatty(STDERR_FILENO);

    int rc = report_run_fill(r);
    if (rc == 0) rc = report_run_compare(r);
    if (rc == 0) rc = report_run_buckets(r);
    if (rc == 0) {
        if (p->format == REPORT_CSV)
            report_write_csv(r, stdout);
        else if (p->format == REPORT_JSON)
            report_write_json(r, stdout);
        else
            report_write_text(r, stdout);
        fflush(stdout);
        if (p->plot_dir != NULL) rc = report_plot(r, p->plot_dir);
    }
    if (rc == 0) rc = check_guarantees(r);
    free(r);
    return rc;
}
