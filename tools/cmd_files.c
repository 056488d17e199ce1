/*
 * cmd_files.c -- `cuckoo create | add | query | delete | count | build | info`:
 * filter files from the command line.
 *
 * Exit codes: 0 success (for queries: every key found), 1 a key not found,
 * 2 an error, with one line on stderr.  Modifying commands load the file
 * (validating it), change the filter in memory and replace the file
 * atomically (cf_save), so an interrupted or failed command leaves the old
 * file as it was.  Queries map the file read-only: opening is O(1) in its
 * size and many processes share one copy in the page cache.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "files.h"

static void usage(const char *cmd) {
    static const struct {
        const char *name, *text;
    } texts[] = {
        {"create",
         "usage: cuckoo create FILE --capacity N [--fpp P | --fingerprint-bits F]\n"
         "                     [--bucket-size B] [--seed S] [--max-kicks K] [--buckets NB]\n"
         "                     [--semi-sort] [--grow] [--force]\n"
         "Creates an empty filter file sized for N items (or exactly NB buckets).\n"
         "--semi-sort stores each fingerprint in one bit less (bucket size 4, 5..16\n"
         "bits).  --grow makes a filter that adds tables as it fills (each twice\n"
         "the last), keeping the FPP of all of them under P.  --force replaces an\n"
         "existing FILE.\n"},
        {"add",
         "usage: cuckoo add FILE [--unique] [--grow] [KEY...]\n"
         "Inserts each KEY (or each line of stdin when no KEY is given).  All or\n"
         "nothing: if the filter fills, the file is left unchanged.  --unique skips\n"
         "keys the filter already reports present.  A filter created with --grow\n"
         "grows as needed; --grow makes one created without it grow from now on,\n"
         "its table kept as the first, with an FPP bound of twice that table's.\n"},
        {"query",
         "usage: cuckoo query FILE [-q] [KEY...]\n"
         "Prints 'KEY<TAB>yes' or 'KEY<TAB>no' for each KEY (or line of stdin).\n"
         "-q prints nothing.  Exit 0 when every key was found, 1 otherwise.\n"},
        {"delete",
         "usage: cuckoo delete FILE [KEY...]\n"
         "Removes one copy of each KEY (or line of stdin).  Only delete keys that\n"
         "were added.  Exit 1 when some key was not found (the others are removed).\n"},
        {"count",
         "usage: cuckoo count FILE KEY\n"
         "Prints an upper bound on the copies of KEY stored.  Exit 1 when 0.\n"},
        {"build",
         "usage: cuckoo build FILE --capacity N [--fpp P | --fingerprint-bits F]\n"
         "                    [--bucket-size B] [--seed S] [--max-kicks K] [--semi-sort]\n"
         "                    [--unique] [--grow] [--force] < keys\n"
         "Builds a filter from the lines of stdin.  If it fills before the stream\n"
         "ends, reports how many keys fit and writes nothing, unless --grow, which\n"
         "builds a filter that adds tables as it fills (as create --grow).\n"},
        {"info",
         "usage: cuckoo info FILE [--json]\n"
         "Prints every parameter and statistic, and verifies the checksum.\n"
         "Exit 2 when the file fails verification.\n"},
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

static bool refuse_existing(const files_opts *o) {
    struct stat st;
    if (!o->force && stat(o->file, &st) == 0) {
        cli_error("%s exists (use --force to replace it)", o->file);
        return true;
    }
    return false;
}

int cli_cmd_create(int argc, char **argv) {
    files_opts o;
    if (!files_parse(argc, argv, FILES_OPT_SHAPE | FILES_OPT_FORCE | FILES_OPT_GROW, &o))
        return CLI_ERROR;
    if (o.help) return usage("create"), CLI_OK;
    if (o.nkeys > 0) return cli_error("create: unexpected argument '%s'", o.keys[0]);
    if (!check_shape_opts(&o) || refuse_existing(&o)) return CLI_ERROR;
    if (o.grow) o.cfg.flags |= CF_GROW;
    cf_filter *f;
    cf_status s = cf_new(&o.cfg, &f);
    if (s != CF_OK) return cli_error("cannot create the filter: %s", cf_strerror(s));
    bool ok = files_save(f, o.file);
    cf_free(f);
    return ok ? CLI_OK : CLI_ERROR;
}

/* ------------------------------------------------------------ add, build */

typedef struct adder {
    cf_filter *f;
    bool unique;
    uint64_t seen, inserted, skipped;
    cf_status failure;   /* first error, CF_OK while all goes well */
    bool drain;          /* after a failure, keep counting the stream */
    bool progress;       /* print progress on stderr */
    long long input_bytes; /* size of stdin when it is a file (for a percentage), else 0 */
} adder;

static bool add_one(void *ctx, const char *key, size_t len) {
    adder *a = ctx;
    a->seen++;
    if (a->progress && (a->seen & 0xffff) == 0) {
        long long at = a->input_bytes > 0 ? (long long)ftello(stdin) : -1;
        if (at >= 0)
            fprintf(stderr, "\r%llu keys, %3lld%%", (unsigned long long)a->seen,
                    at * 100 / a->input_bytes);
        else
            fprintf(stderr, "\r%llu keys", (unsigned long long)a->seen);
    }
    if (a->failure != CF_OK) return a->drain;
    uint64_t h = cf_hash(a->f, key, len);
    cf_status s = a->unique ? cf_insert_unique_hash(a->f, h) : cf_insert_hash(a->f, h);
    if (s == CF_E_EXISTS) {
        a->skipped++;
        return true;
    }
    if (s == CF_OK) {
        a->inserted++;
        return true;
    }
    a->failure = s;
    return a->drain;
}

int cli_cmd_add(int argc, char **argv) {
    files_opts o;
    if (!files_parse(argc, argv, FILES_OPT_UNIQUE | FILES_OPT_GROW, &o)) return CLI_ERROR;
    if (o.help) return usage("add"), CLI_OK;
    adder a = {0};
    a.unique = o.unique;
    if ((a.f = files_load(o.file)) == NULL) return CLI_ERROR;
    cf_stats st;
    cf_get_stats(a.f, &st);
    if (o.grow && !(st.flags & CF_GROW)) {
        o.cfg.target_fpp = 2 * st.fpp_bound;
        cf_status s = cf_make_growable(&a.f, &o.cfg);
        if (s != CF_OK) {
            cf_free(a.f);
            return cli_error("%s: cannot make it grow: %s", o.file, cf_strerror(s));
        }
    }
    bool read_ok = files_for_each_key(&o, add_one, &a);
    int rc = CLI_OK;
    if (!read_ok) {
        rc = CLI_ERROR;
    } else if (a.failure != CF_OK) {
        rc = cli_error("%s: key %llu: %s; file unchanged", o.file,
                       (unsigned long long)a.seen, cf_strerror(a.failure));
    } else if (!files_save(a.f, o.file)) {
        rc = CLI_ERROR;
    }
    cf_free(a.f);
    return rc;
}

int cli_cmd_build(int argc, char **argv) {
    files_opts o;
    unsigned accepted = FILES_OPT_SHAPE | FILES_OPT_FORCE | FILES_OPT_GROW | FILES_OPT_UNIQUE;
    if (!files_parse(argc, argv, accepted, &o)) return CLI_ERROR;
    if (o.help) return usage("build"), CLI_OK;
    if (o.nkeys > 0) return cli_error("build: keys come from stdin, not '%s'", o.keys[0]);
    if (!check_shape_opts(&o) || refuse_existing(&o)) return CLI_ERROR;
    adder a = {0};
    a.unique = o.unique;
    a.drain = true;
    a.progress = isatty(STDERR_FILENO);
    struct stat in;
    if (fstat(STDIN_FILENO, &in) == 0 && S_ISREG(in.st_mode)) a.input_bytes = in.st_size;
    if (o.grow) o.cfg.flags |= CF_GROW;
    cf_status s = cf_new(&o.cfg, &a.f);
    if (s != CF_OK) return cli_error("cannot create the filter: %s", cf_strerror(s));

    bool read_ok = files_for_each_key(&o, add_one, &a);
    if (a.progress) fprintf(stderr, "\r%llu keys        \n", (unsigned long long)a.seen);

    int rc = CLI_OK;
    if (!read_ok) {
        rc = CLI_ERROR;
    } else if (a.failure == CF_E_FULL && !o.grow) {
        rc = cli_error("filter filled: %llu of %llu keys fit; nothing written "
                       "(raise --capacity or use --grow)",
                       (unsigned long long)a.inserted, (unsigned long long)a.seen);
    } else if (a.failure != CF_OK) {
        rc = cli_error("key %llu: %s; nothing written", (unsigned long long)a.seen,
                       cf_strerror(a.failure));
    } else if (!files_save(a.f, o.file)) {
        rc = CLI_ERROR;
    }
    cf_free(a.f);
    return rc;
}

/* --------------------------------------------------------- query, count */

typedef struct querier {
    const cf_filter *f;
    bool quiet;
    uint64_t missing;
} querier;

static bool query_one(void *ctx, const char *key, size_t len) {
    querier *q = ctx;
    bool found = cf_contains(q->f, key, len);
    q->missing += !found;
    if (!q->quiet) {
        fwrite(key, 1, len, stdout);
        fputs(found ? "\tyes\n" : "\tno\n", stdout);
    }
    return true;
}

int cli_cmd_query(int argc, char **argv) {
    files_opts o;
    if (!files_parse(argc, argv, FILES_OPT_QUIET, &o)) return CLI_ERROR;
    if (o.help) return usage("query"), CLI_OK;
    querier q = {NULL, o.quiet, 0};
    cf_filter *f = files_map(o.file);
    if (f == NULL) return CLI_ERROR;
    q.f = f;
    bool ok = files_for_each_key(&o, query_one, &q);
    cf_free(f);
    if (fflush(stdout) != 0 || !ok) return CLI_ERROR;
    return q.missing == 0 ? CLI_OK : CLI_NOT_FOUND;
}

int cli_cmd_count(int argc, char **argv) {
    files_opts o;
    if (!files_parse(argc, argv, 0, &o)) return CLI_ERROR;
    if (o.help) return usage("count"), CLI_OK;
    if (o.nkeys != 1) return cli_error("count: wants exactly one KEY");
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
} deleter;

static bool delete_one(void *ctx, const char *key, size_t len) {
    deleter *d = ctx;
    d->seen++;
    cf_status s = cf_delete(d->f, key, len);
    if (s == CF_E_NOT_FOUND) d->missing++;
    else if (s != CF_OK) d->failure = s;
    return d->failure == CF_OK;
}

int cli_cmd_delete(int argc, char **argv) {
    files_opts o;
    if (!files_parse(argc, argv, 0, &o)) return CLI_ERROR;
    if (o.help) return usage("delete"), CLI_OK;
    deleter d = {0};
    if ((d.f = files_load(o.file)) == NULL) return CLI_ERROR;
    bool ok = files_for_each_key(&o, delete_one, &d);
    int rc = CLI_OK;
    if (!ok) {
        rc = CLI_ERROR;
    } else if (d.failure != CF_OK) {
        rc = cli_error("%s: %s; file unchanged", o.file, cf_strerror(d.failure));
    } else if (!files_save(d.f, o.file)) {
        rc = CLI_ERROR;
    } else if (d.missing > 0) {
        fprintf(stderr, "cuckoo: %llu of %llu keys not found\n", (unsigned long long)d.missing,
                (unsigned long long)d.seen);
        rc = CLI_NOT_FOUND;
    }
    cf_free(d.f);
    return rc;
}

/* ------------------------------------------------------------------ info */

/* The format version, read from the file itself (bytes 8-9, little-endian,
 * docs/FORMAT.md): the library does not report it. */
static int file_version(const char *path, long long *size) {
    FILE *fp = fopen(path, "rb");
    unsigned char b[10];
    int v = -1;
    if (fp != NULL) {
        if (fread(b, 1, sizeof b, fp) == sizeof b) v = b[8] | b[9] << 8;
        if (fseek(fp, 0, SEEK_END) == 0) *size = ftell(fp);
        fclose(fp);
    }
    return v;
}

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
                   t.fingerprint_bits, (t.flags & CF_SEMI_SORT) ? "true" : "false",
                   t.load_factor, t.table_bytes, t.expected_fpp, t.fpp_bound);
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
    /* Map first (header checks only) so a damaged table can still be described. */
    cf_filter *f = files_map(o.file);
    if (f == NULL) return CLI_ERROR;
    cf_filter *v = NULL;
    cf_status verified = cf_map(o.file, true, &v);
    cf_free(v);
    long long size = -1;
    int version = file_version(o.file, &size);
    cf_stats st;
    cf_get_stats(f, &st);
    double bytes_per_item = st.items ? (double)size / (double)st.items : 0.0;
    const char *check = verified == CF_OK ? "ok" : cf_strerror(verified);

    if (o.json) {
        printf("{\"file\": ");
        files_json_string(stdout, o.file);
        printf(", \"format_version\": %d, \"file_bytes\": %lld, \"items\": %llu, "
               "\"num_buckets\": %llu, \"bucket_size\": %u, \"slots\": %llu, "
               "\"fingerprint_bits\": %u, \"semi_sorted\": %s, \"load_factor\": %.6f, \"bits_per_item\": %.4f, "
               "\"file_bytes_per_item\": %.4f, \"expected_fpp\": %.6g, \"table_bytes\": %zu, "
               "\"max_kicks\": %u, \"seed\": %llu, \"flags\": %u, \"total_kicks\": %llu, "
               "\"failed_inserts\": %llu, \"checksum_ok\": %s, \"verification\": ",
               version, size, (unsigned long long)st.items, (unsigned long long)st.num_buckets,
               st.bucket_size, (unsigned long long)st.slots, st.fingerprint_bits,
               (st.flags & CF_SEMI_SORT) ? "true" : "false", st.load_factor, st.bits_per_item, bytes_per_item, st.expected_fpp,
               st.table_bytes, st.max_kicks, (unsigned long long)st.seed, st.flags,
               (unsigned long long)st.total_kicks, (unsigned long long)st.failed_inserts,
               verified == CF_OK ? "true" : "false");
        files_json_string(stdout, check);
        if (st.flags & CF_GROW) {
            printf(", \"growth\": %u, \"max_bytes\": %llu, \"target_fpp\": %.6g, "
                   "\"fpp_bound\": %.6g", st.growth, (unsigned long long)st.max_bytes,
                   st.target_fpp, st.fpp_bound);
            print_tables(f, st.tables, true);
        }
        printf("}\n");
    } else {
        printf("file              %s\n", o.file);
        printf("format version    %d\n", version);
        printf("file bytes        %lld\n", size);
        printf("items             %llu\n", (unsigned long long)st.items);
        printf("buckets           %llu\n", (unsigned long long)st.num_buckets);
        printf("bucket size       %u\n", st.bucket_size);
        printf("slots             %llu\n", (unsigned long long)st.slots);
        printf("fingerprint bits  %u%s\n", st.fingerprint_bits,
               (st.flags & CF_SEMI_SORT) ? " (semi-sorted: one bit less each in the table)" : "");
        printf("load factor       %.4f\n", st.load_factor);
        printf("bits per item     %.2f (table), %.2f (file)\n", st.bits_per_item,
               8 * bytes_per_item);
        printf("expected fpp      %.3g (now); %.3g at full load\n", st.expected_fpp,
               st.fpp_bound);
        printf("table bytes       %zu\n", st.table_bytes);
        printf("max kicks         %u\n", st.max_kicks);
        printf("seed              %llu\n", (unsigned long long)st.seed);
        printf("flags             %u\n", st.flags);
        printf("total kicks       %llu\n", (unsigned long long)st.total_kicks);
        printf("failed inserts    %llu\n", (unsigned long long)st.failed_inserts);
        printf("checksum          %s\n", check);
        if (st.flags & CF_GROW) {
            printf("tables            %u (growth %u, FPP bound %.3g < target %.3g, max bytes "
                   "%llu)\n", st.tables, st.growth, st.fpp_bound, st.target_fpp,
                   (unsigned long long)st.max_bytes);
            print_tables(f, st.tables, false);
        }
    }
    cf_free(f);
    if (fflush(stdout) != 0) return CLI_ERROR;
    if (verified != CF_OK) return cli_error("%s: %s", o.file, check);
    return CLI_OK;
}
