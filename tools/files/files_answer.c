/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * files_answer.c -- the answers of query and count: a batch of keys looked up
 * (cf_contains_batch) or counted, printed as lines, bare keys or JSON, and
 * the "N of M found" summary.
 */
#define _POSIX_C_SOURCE 200809L /* isatty */

#include <unistd.h>

#include "cli/cli.h"
#include "files/files.h"

typedef struct querier {
    const cf_filter *f;
    const files_opts *o;
    uint64_t seen, missing;
    bool with_counts; /* count: print copies, not yes/no */
} querier;

/* One answer line (or NUL-terminated record with -0).  --found/--missing
 * print the bare key: the caller chose which answer it wants. */
static void print_answer(const querier *q, const char *key, size_t len, bool found, size_t n) {
    const files_opts *o = q->o;
    char end = o->nul ? '\0' : '\n';
    if (o->quiet || (o->found_only && !found) || (o->missing_only && found)) return;
    if (o->json) {
        fputs("{\"key\": ", stdout);
        files_json_bytes(stdout, key, len);
        if (q->with_counts)
            printf(", \"count\": %zu}\n", n);
        else
            printf(", \"found\": %s}\n", found ? "true" : "false");
        return;
    }
    fwrite(key, 1, len, stdout);
    if (o->found_only || o->missing_only)
        fputc(end, stdout);
    else if (q->with_counts)
        printf("\t%zu%c", n, end);
    else
        printf("\t%s%c", found ? "yes" : "no", end);
}

/* Answers a batch: cf_contains_batch for query, cf_count_hash for count. */
static bool query_batch(void *ctx, const files_batch *b) {
    querier *q = ctx;
    bool found[FILES_BATCH_KEYS];
    if (!q->with_counts) cf_contains_batch(q->f, b->hash, b->n, found);
    for (size_t i = 0; i < b->n; i++) {
        size_t n = q->with_counts ? cf_count_hash(q->f, b->hash[i]) : 0;
        bool yes = q->with_counts ? n > 0 : found[i];
        q->missing += !yes;
        print_answer(q, b->key[i], b->len[i], yes, n);
    }
    q->seen += b->n;
    return true;
}

/* Reads every key and prints the answers; the exit code of query and count. */
int files_answer_all(const files_opts *o, bool with_counts) {
    cf_filter *f = files_open_now(o);
    if (f == NULL) return CLI_ERROR;
    querier q = {f, o, 0, 0, with_counts};
    bool ok = files_for_each_batch(o, f, query_batch, &q);
    files_keys_done();
    cf_free(f);
    if (!ok) return CLI_ERROR;
    bool streamed = o->nkeys == 0;
    if (o->summary || (streamed && isatty(STDERR_FILENO))) {
        char found[32], seen[32];
        fflush(stdout); /* the answers before the summary, where both reach one terminal */
        fprintf(stderr, "%s of %s found\n", cli_thousands(q.seen - q.missing, found, sizeof found),
                cli_thousands(q.seen, seen, sizeof seen));
    }
    return q.missing == 0 ? CLI_OK : CLI_NOT_FOUND;
}
