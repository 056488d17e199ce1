/*
 * cmd_files.c -- `cuckoo create | add | query | delete | count | build | info`:
 * filter files from the command line.
 *
 * Exit codes: 0 success (for queries: every key found), 1 a key not found,
 * 2 an error, with one line on stderr.  Modifying commands load the file
 * (validating it), change the filter in memory and replace the file
 * atomically (cf_save), so an interrupted or failed command leaves the old
 * file as it was.  Every command that writes FILE holds its lock
 * (files_lock.c) meanwhile, so concurrent writers lose nothing.  Queries
 * map the file read-only: opening is O(1) in its size and many processes
 * share one copy in the page cache.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "files.h"
#include "files_help.h"

static void usage(const char *cmd) {
    static const struct {
        const char *name, *text;
    } texts[] = {
        {"create",
         "usage: cuckoo create FILE --capacity N [options]\n"
         "Creates an empty filter file sized for N items (or exactly NB buckets).\n"
         "options:\n" SHAPE_HELP
         "  --grow                add tables as the filter fills (each twice the last),\n"
         "                        keeping the FPP of all of them under --fpp; as\n"
         "                        --grow=chain.  With --grow=inplace, one table that\n"
         "                        doubles in place instead: lookups read two buckets at\n"
         "                        any size (16- or 32-bit slots, FPP under --fpp)\n" FORCE_HELP
             WAIT_HELP HELP_HELP},
        {"add", "usage: cuckoo add FILE [options] [KEY...]\n"
                "Inserts each key.  All or nothing: if the filter fills, FILE is left\n"
                "unchanged and the message names the key.  Through a symbolic link, the\n"
                "link's target is updated.\n"
                "options:\n"
                "  --unique              skip keys the filter already reports present\n"
                "  --grow                make a file created without --grow grow from now on (its\n"
                "                        table first, FPP bound 4x that table's); a file\n"
                "                        created with --grow grows anyway\n" KEYS_HELP WAIT_HELP
                    HELP_HELP KEYS_RULE},
        {"query",
         "usage: cuckoo query FILE [options] [KEY...]\n"
         "Prints 'KEY<TAB>yes' or 'KEY<TAB>no' for each key.  Exit 0 when every key\n"
         "was found, 1 otherwise.\n"
         "options:\n"
         "  -q                    print nothing (the exit code answers)\n"
         "  --found               print only the keys found, one per line\n"
         "  --missing             print only the keys not found\n"
         "  --json                print {\"key\": ..., \"found\": true|false} lines\n"
         "  --summary             print 'N of M found' on stderr at the end (also\n"
         "                        shown when stderr is a terminal and keys are "
         "streamed)\n" KEYS_HELP
         "                        (with -0, printed keys end with NUL too)\n" HELP_HELP KEYS_RULE},
        {"delete", "usage: cuckoo delete FILE [options] [KEY...]\n"
                   "Removes one copy of each key.  Only delete keys that were added.  Exit 1\n"
                   "when some key was not found (the others are removed).\n"
                   "options:\n" KEYS_HELP WAIT_HELP HELP_HELP KEYS_RULE},
        {"count",
         "usage: cuckoo count FILE [options] [KEY...]\n"
         "Prints an upper bound on the copies of each key stored: the number alone\n"
         "for one KEY argument, else 'KEY<TAB>N' lines.  Exit 1 when some count is 0.\n"
         "options:\n"
         "  --json                print {\"key\": ..., \"count\": N} lines\n" KEYS_HELP HELP_HELP
             KEYS_RULE},
        {"build",
         "usage: cuckoo build FILE --capacity N [options] < keys\n"
         "Builds a filter from a stream of keys.  If it fills before the stream\n"
         "ends, reports how many keys fit and writes nothing, unless --grow.\n"
         "options:\n" SHAPE_HELP
         "  --unique              skip keys the filter already reports present\n"
         "  --grow                build a filter that grows as it fills (as\n"
         "                        create --grow; also --grow=chain, --grow=inplace)\n" FORCE_HELP
             KEYS_HELP WAIT_HELP HELP_HELP KEYS_RULE},
        {"info", "usage: cuckoo info FILE [--json]\n"
                 "Prints every parameter and statistic, and verifies the checksum.\n"
                 "Exit 2 when the file fails verification.\n"
                 "options:\n"
                 "  --json                print one JSON object\n" HELP_HELP},
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (strcmp(cmd, texts[i].name) == 0) fputs(texts[i].text, stdout);
}

/* ---------------------------------------------------------------- create */

static bool check_shape_opts(const files_opts *o) {
    if (!o->has_capacity && !o->has_buckets) {
        cli_error("--capacity is required");
        return false;
    }
    return true;
}

int cli_cmd_create(int argc, char **argv) {
    files_opts o;
    unsigned accepted = FILES_OPT_SHAPE | FILES_OPT_FORCE | FILES_OPT_GROW | FILES_OPT_WAIT;
    if (!files_parse(argc, argv, accepted, &o)) return CLI_ERROR;
    if (o.help) return usage("create"), CLI_OK;
    if (o.nkeys > 0) return cli_error("create: unexpected argument '%s'", o.keys[0]);
    if (!check_shape_opts(&o) || !files_may_replace(o.file, o.force)) return CLI_ERROR;
    if (o.grow) o.cfg.flags |= CF_GROW;
    cf_filter *f = files_new(&o);
    if (f == NULL) return CLI_ERROR;
    bool ok = files_replace(f, &o);
    cf_free(f);
    return ok ? CLI_OK : CLI_ERROR;
}

/* ------------------------------------------------------------ add, build */

typedef struct adder {
    cf_filter *f;
    bool unique;
    uint64_t seen, inserted, skipped;
    cf_status failure;    /* first error, CF_OK while all goes well */
    bool drain;           /* after a failure, keep counting the stream */
    bool too_many_copies; /* a key already fills both its buckets: growing cannot help */
    char where[160];      /* the failed key, for the message (files_key_where) */
} adder;

/* A batch of keys (files_for_each_batch): cf_insert_batch while all goes
 * well; with --unique, or after a failure, one key at a time.  A failure
 * keeps the key for the message; build (drain) goes on counting keys. */
static bool add_batch(void *ctx, const files_batch *b) {
    adder *a = ctx;
    size_t from = 0;
    cf_status batch = CF_OK; /* the status of key `from`, already tried */
    if (!a->unique && a->failure == CF_OK) {
        size_t done = 0;
        batch = cf_insert_batch(a->f, b->hash, b->n, &done);
        a->seen += done;
        a->inserted += done;
        if (batch == CF_OK) return true;
        from = done;
    }
    for (size_t i = from; i < b->n; i++) {
        a->seen++;
        if (a->failure != CF_OK) {
            if (!a->drain) return false;
            continue;
        }
        cf_status s = i == from && batch != CF_OK ? batch
                      : a->unique                 ? cf_insert_unique_hash(a->f, b->hash[i])
                                                  : cf_insert_hash(a->f, b->hash[i]);
        if (s == CF_E_EXISTS) {
            a->skipped++;
            continue;
        }
        if (s == CF_OK) {
            a->inserted++;
            continue;
        }
        a->failure = s;
        files_key_where_at(b->pos[i], b->key[i], b->len[i], a->where, sizeof a->where);
        if (s == CF_E_FULL) {
            cf_stats st;
            cf_get_stats(a->f, &st);
            if (cf_count_hash(a->f, b->hash[i]) >= 2 * (size_t)st.bucket_size) {
                a->too_many_copies = true;
                return false;
            }
        }
        if (!a->drain) return false;
    }
    return a->failure == CF_OK || a->drain;
}

/* The message for a failed add or build: which key, why, what to do. */
static int add_failed(const adder *a, const char *file, const char *outcome) {
    cf_stats st;
    cf_get_stats(a->f, &st);
    if (a->too_many_copies)
        return cli_error("%s: %s is stored %u times already, the most a key can be (both its "
                         "buckets of %u hold only it); %s (use --unique to skip keys present)",
                         file, a->where, 2 * st.bucket_size, st.bucket_size, outcome);
    /* A growing filter that is full hit a limit (tables, widths); more
     * growth is not the advice then. */
    if (a->failure == CF_E_FULL)
        return cli_error("%s: %s: the filter is full (%llu items, %.1f%% of its slots); %s "
                         "(rebuild with a larger --capacity%s)",
                         file, a->where, (unsigned long long)st.items, 100 * st.load_factor,
                         outcome, (st.flags & CF_GROW) ? "" : ", or 'cuckoo build --grow'");
    return cli_error("%s: %s: %s; %s", file, a->where, cf_strerror(a->failure), outcome);
}

int cli_cmd_add(int argc, char **argv) {
    files_opts o;
    if (!files_parse(argc, argv,
                     FILES_OPT_UNIQUE | FILES_OPT_GROW | FILES_OPT_KEYS | FILES_OPT_WAIT, &o))
        return CLI_ERROR;
    if (o.help) return usage("add"), CLI_OK;
    adder a = {0};
    a.unique = o.unique;
    cf_file_lock *lock = files_lock(o.file, o.wait_ms);
    if (lock == NULL) return CLI_ERROR;
    if ((a.f = files_load_locked(lock, o.file)) == NULL) return files_unlock(lock), CLI_ERROR;
    cf_stats st;
    cf_get_stats(a.f, &st);
    if (o.grow && !(st.flags & CF_GROW) && o.cfg.growth_mode == CF_GROWTH_INPLACE) {
        cf_free(a.f);
        files_unlock(lock);
        return cli_error("%s: an existing table cannot grow in place (its slots have no room "
                         "for the longer fingerprints): create it with --grow=inplace",
                         o.file);
    }
    if (o.grow && !(st.flags & CF_GROW)) {
        o.cfg.target_fpp = 0; /* the library's choice for a table made growable */
        cf_status s = cf_make_growable(&a.f, &o.cfg);
        if (s != CF_OK) {
            cf_free(a.f);
            files_unlock(lock);
            return cli_error("%s: cannot make it grow: %s", o.file, cf_strerror(s));
        }
    }
    bool read_ok = files_for_each_batch(&o, a.f, add_batch, &a);
    files_keys_done();
    int rc = CLI_OK;
    if (!read_ok) {
        rc = CLI_ERROR;
    } else if (a.failure != CF_OK) {
        rc = add_failed(&a, o.file, "file unchanged");
    } else if (!files_save_locked(a.f, lock, o.file)) {
        rc = CLI_ERROR;
    }
    files_unlock(lock);
    cf_free(a.f);
    return rc;
}

int cli_cmd_build(int argc, char **argv) {
    files_opts o;
    unsigned accepted = FILES_OPT_SHAPE | FILES_OPT_FORCE | FILES_OPT_GROW | FILES_OPT_UNIQUE |
                        FILES_OPT_KEYS | FILES_OPT_WAIT;
    if (!files_parse(argc, argv, accepted, &o)) return CLI_ERROR;
    if (o.help) return usage("build"), CLI_OK;
    if (o.nkeys > 0)
        return cli_error("build: keys come from stdin or --keys FILE, not arguments "
                         "('%s')",
                         o.keys[0]);
    if (!check_shape_opts(&o) || !files_may_replace(o.file, o.force)) return CLI_ERROR;
    adder a = {0};
    a.unique = o.unique;
    a.drain = true;
    if (o.grow) o.cfg.flags |= CF_GROW;
    if ((a.f = files_new(&o)) == NULL) return CLI_ERROR;
    bool read_ok = files_for_each_batch(&o, a.f, add_batch, &a);
    files_keys_done();

    int rc = CLI_OK;
    if (!read_ok) {
        rc = CLI_ERROR;
    } else if (a.failure == CF_E_FULL && !o.grow && !a.too_many_copies) {
        rc = cli_error("%s: the filter filled at %s: %llu of %llu keys fit; nothing written "
                       "(raise --capacity or use --grow)",
                       o.file, a.where, (unsigned long long)a.inserted, (unsigned long long)a.seen);
    } else if (a.failure != CF_OK) {
        rc = add_failed(&a, o.file, "nothing written");
    } else if (!files_replace(a.f, &o)) {
        rc = CLI_ERROR;
    }
    cf_free(a.f);
    return rc;
}

/* --------------------------------------------------------- query, count */

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
static int answer_all(const files_opts *o, bool with_counts) {
    cf_filter *f = files_map(o->file);
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

int cli_cmd_query(int argc, char **argv) {
    files_opts o;
    unsigned accepted = FILES_OPT_QUIET | FILES_OPT_KEYS | FILES_OPT_ANSWERS | FILES_OPT_JSON;
    if (!files_parse(argc, argv, accepted, &o)) return CLI_ERROR;
    if (o.help) return usage("query"), CLI_OK;
    return answer_all(&o, false);
}

int cli_cmd_count(int argc, char **argv) {
    files_opts o;
    if (!files_parse(argc, argv, FILES_OPT_KEYS | FILES_OPT_JSON, &o)) return CLI_ERROR;
    if (o.help) return usage("count"), CLI_OK;
    if (o.nkeys != 1 || o.json) return answer_all(&o, true);
    /* One key argument: the number alone, for scripts. */
    cf_filter *f = files_map(o.file);
    if (f == NULL) return CLI_ERROR;
    size_t n = cf_count(f, o.keys[0], strlen(o.keys[0]));
    cf_free(f);
    printf("%zu\n", n);
    return n > 0 ? CLI_OK : CLI_NOT_FOUND;
}

/* ---------------------------------------------------------------- delete */

typedef struct deleter {
    cf_filter *f;
    uint64_t seen, missing;
    cf_status failure;
    char where[160]; /* the failed key, for the message */
} deleter;

static bool delete_one(void *ctx, const char *key, size_t len) {
    deleter *d = ctx;
    d->seen++;
    cf_status s = cf_delete(d->f, key, len);
    if (s == CF_E_NOT_FOUND)
        d->missing++;
    else if (s != CF_OK) {
        d->failure = s;
        files_key_where(key, len, d->where, sizeof d->where);
    }
    return d->failure == CF_OK;
}

int cli_cmd_delete(int argc, char **argv) {
    files_opts o;
    if (!files_parse(argc, argv, FILES_OPT_KEYS | FILES_OPT_WAIT, &o)) return CLI_ERROR;
    if (o.help) return usage("delete"), CLI_OK;
    deleter d = {0};
    cf_file_lock *lock = files_lock(o.file, o.wait_ms);
    if (lock == NULL) return CLI_ERROR;
    if ((d.f = files_load_locked(lock, o.file)) == NULL) return files_unlock(lock), CLI_ERROR;
    bool ok = files_for_each_key(&o, delete_one, &d);
    files_keys_done();
    int rc = CLI_OK;
    if (!ok) {
        rc = CLI_ERROR;
    } else if (d.failure != CF_OK) {
        rc = cli_error("%s: %s: %s; file unchanged", o.file, d.where, cf_strerror(d.failure));
    } else if (!files_save_locked(d.f, lock, o.file)) {
        rc = CLI_ERROR;
    } else if (d.missing > 0) {
        fprintf(stderr, "cuckoo: %llu of %llu keys not found\n", (unsigned long long)d.missing,
                (unsigned long long)d.seen);
        rc = CLI_NOT_FOUND;
    }
    files_unlock(lock);
    cf_free(d.f);
    return rc;
}

/* ------------------------------------------------------------------ info */

/* A grown filter's tables (cf_table_stats), oldest first, one line each or
 * as a JSON array. */
static void print_tables(const cf_filter *f, unsigned n, bool json) {
    if (json) printf(", \"tables\": [");
    for (unsigned k = 0; k < n; k++) {
        cf_stats t;
        if (cf_table_stats(f, k, &t) != CF_OK) break;
        if (json)
            printf("%s{\"items\": %llu, \"num_buckets\": %llu, \"fingerprint_bits\": %u, "
                   "\"semi_sorted\": %s, \"load_factor\": %.6f, \"table_bytes\": %zu, "
                   "\"expected_fpp\": %.6g, \"fpp_bound\": %.6g}",
                   k ? ", " : "", (unsigned long long)t.items, (unsigned long long)t.num_buckets,
                   t.fingerprint_bits, (t.flags & CF_SEMI_SORT) ? "true" : "false", t.load_factor,
                   t.table_bytes, t.expected_fpp, t.fpp_bound);
        else
            printf("  table %-2u        %llu items, %llu buckets, %u bits%s, load %.4f, "
                   "%zu bytes, fpp %.3g (%.3g full)\n",
                   k, (unsigned long long)t.items, (unsigned long long)t.num_buckets,
                   t.fingerprint_bits, (t.flags & CF_SEMI_SORT) ? " semi-sorted" : "",
                   t.load_factor, t.table_bytes, t.expected_fpp, t.fpp_bound);
    }
    if (json) printf("]");
}

int cli_cmd_info(int argc, char **argv) {
    files_opts o;
    if (!files_parse(argc, argv, FILES_OPT_JSON, &o)) return CLI_ERROR;
    if (o.help) return usage("info"), CLI_OK;
    if (o.nkeys > 0) return cli_error("info: unexpected argument '%s'", o.keys[0]);
    cf_status verified;
    cf_filter *f = files_map_checked(o.file, &verified);
    if (f == NULL) return CLI_ERROR;
    /* A mapped file is exactly its serialized form (cf_map refuses trailing
     * bytes), so its length is asked of the handle, not of the file again. */
    unsigned long long size = cf_serialized_size(f);
    cf_stats st;
    cf_get_stats(f, &st);
    double bytes_per_item = st.items ? (double)size / (double)st.items : 0.0;
    const char *check = verified == CF_OK ? "ok" : cf_strerror(verified);

    if (o.json) {
        printf("{\"file\": ");
        files_json_string(stdout, o.file);
        printf(", \"format_version\": %u, \"file_bytes\": %llu, \"items\": %llu, "
               "\"num_buckets\": %llu, \"bucket_size\": %u, \"slots\": %llu, "
               "\"fingerprint_bits\": %u, \"semi_sorted\": %s, \"load_factor\": %.6f, "
               "\"bits_per_item\": %.4f, "
               "\"file_bytes_per_item\": %.4f, \"expected_fpp\": %.6g, \"table_bytes\": %zu, "
               "\"max_kicks\": %u, \"seed\": %llu, \"flags\": %u, \"total_kicks\": %llu, "
               "\"failed_inserts\": %llu, \"checksum_ok\": %s, \"verification\": ",
               st.format_version, size, (unsigned long long)st.items,
               (unsigned long long)st.num_buckets, st.bucket_size, (unsigned long long)st.slots,
               st.fingerprint_bits, (st.flags & CF_SEMI_SORT) ? "true" : "false", st.load_factor,
               st.bits_per_item, bytes_per_item, st.expected_fpp, st.table_bytes, st.max_kicks,
               (unsigned long long)st.seed, st.flags, (unsigned long long)st.total_kicks,
               (unsigned long long)st.failed_inserts, verified == CF_OK ? "true" : "false");
        files_json_string(stdout, check);
        if (st.flags & CF_GROW) {
            printf(", \"growth\": %u, \"max_bytes\": %llu, \"target_fpp\": %.6g, "
                   "\"fpp_bound\": %.6g, \"growth_mode\": \"%s\", \"doublings\": %llu",
                   st.growth, (unsigned long long)st.max_bytes, st.target_fpp, st.fpp_bound,
                   st.growth_mode == CF_GROWTH_INPLACE ? "inplace" : "chain",
                   (unsigned long long)st.doublings);
            print_tables(f, st.tables, true);
        }
        printf("}\n");
    } else {
        printf("file              %s\n", o.file);
        printf("format version    %u\n", st.format_version);
        printf("file bytes        %llu\n", size);
        printf("items             %llu\n", (unsigned long long)st.items);
        printf("buckets           %llu\n", (unsigned long long)st.num_buckets);
        printf("bucket size       %u\n", st.bucket_size);
        printf("slots             %llu\n", (unsigned long long)st.slots);
        printf("fingerprint bits  %u%s\n", st.fingerprint_bits,
               (st.flags & CF_SEMI_SORT) ? " (semi-sorted: one bit less each in the table)" : "");
        printf("load factor       %.4f\n", st.load_factor);
        printf("bits per item     %.2f (table), %.2f (file)\n", st.bits_per_item,
               8 * bytes_per_item);
        printf("expected fpp      %.3g (now); %.3g at full load\n", st.expected_fpp, st.fpp_bound);
        printf("table bytes       %zu\n", st.table_bytes);
        printf("max kicks         %u\n", st.max_kicks);
        printf("seed              %llu\n", (unsigned long long)st.seed);
        printf("flags             %u\n", st.flags);
        printf("total kicks       %llu\n", (unsigned long long)st.total_kicks);
        printf("failed inserts    %llu\n", (unsigned long long)st.failed_inserts);
        printf("checksum          %s\n", check);
        if (st.flags & CF_GROW && st.growth_mode == CF_GROWTH_INPLACE) {
            printf("growth            in place: %llu doublings (FPP bound %.3g < target %.3g, "
                   "max bytes %llu)\n",
                   (unsigned long long)st.doublings, st.fpp_bound, st.target_fpp,
                   (unsigned long long)st.max_bytes);
        } else if (st.flags & CF_GROW) {
            printf("tables            %u (growth %u, FPP bound %.3g < target %.3g, max bytes "
                   "%llu)\n",
                   st.tables, st.growth, st.fpp_bound, st.target_fpp,
                   (unsigned long long)st.max_bytes);
            print_tables(f, st.tables, false);
        }
    }
    cf_free(f);
    if (verified == CF_OK) return CLI_OK;
    fflush(stdout); /* the description before the error, where both reach one terminal */
    return cli_error("%s: %s", o.file, check);
}
