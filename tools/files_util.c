/* files_util.c -- option parsing, key streams and file access for cmd_files.c. */
#define _POSIX_C_SOURCE 200809L

#include "files.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* "--name value" or "--name=value": the value, or NULL when a is not --name.
 * *missing is set (never cleared) when --name is last with no value. */
static const char *flag_value(int argc, char **argv, int *i, const char *name, bool *missing) {
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0) return NULL;
    if (a[n] == '=') return a + n + 1;
    if (a[n] != '\0') return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

static bool parse_shape_flag(int argc, char **argv, int *i, files_opts *o, bool *matched) {
    const char *v;
    bool missing = false;
    *matched = true;
    if ((v = flag_value(argc, argv, i, "--capacity", &missing)) != NULL) {
        if (!cli_parse_u64(v, &o->cfg.capacity) || o->cfg.capacity == 0)
            return cli_error("--capacity wants a positive integer, not '%s'", v), false;
        o->has_capacity = true;
    } else if ((v = flag_value(argc, argv, i, "--fpp", &missing)) != NULL) {
        if (!cli_parse_double(v, &o->cfg.target_fpp) || !(o->cfg.target_fpp > 0) ||
            !(o->cfg.target_fpp < 1))
            return cli_error("--fpp wants a probability in (0, 1), not '%s'", v), false;
        o->has_fpp = true;
    } else if ((v = flag_value(argc, argv, i, "--fingerprint-bits", &missing)) != NULL) {
        if (!cli_parse_unsigned(v, CF_MIN_FINGERPRINT_BITS, CF_MAX_FINGERPRINT_BITS,
                                &o->cfg.fingerprint_bits))
            return cli_error("--fingerprint-bits wants 1..32, not '%s'", v), false;
        o->has_fbits = true;
    } else if ((v = flag_value(argc, argv, i, "--bucket-size", &missing)) != NULL) {
        unsigned b;
        if (!cli_parse_unsigned(v, 1, 8, &b) || (b & (b - 1)) != 0)
            return cli_error("--bucket-size wants 1, 2, 4 or 8, not '%s'", v), false;
        o->cfg.bucket_size = b;
    } else if ((v = flag_value(argc, argv, i, "--seed", &missing)) != NULL) {
        if (!cli_parse_u64(v, &o->cfg.seed))
            return cli_error("--seed wants an unsigned 64-bit integer, not '%s'", v), false;
    } else if ((v = flag_value(argc, argv, i, "--max-kicks", &missing)) != NULL) {
        if (!cli_parse_unsigned(v, 1, CF_MAX_KICKS_LIMIT, &o->cfg.max_kicks))
            return cli_error("--max-kicks wants 1..%u, not '%s'", CF_MAX_KICKS_LIMIT, v), false;
    } else if ((v = flag_value(argc, argv, i, "--buckets", &missing)) != NULL) {
        if (!cli_parse_u64(v, &o->cfg.num_buckets) || o->cfg.num_buckets == 0)
            return cli_error("--buckets wants a positive integer, not '%s'", v), false;
        o->has_buckets = true;
    } else if (strcmp(argv[*i], "--semi-sort") == 0) {
        o->cfg.flags |= CF_SEMI_SORT;
    } else {
        *matched = missing;
        if (missing) return cli_error("%s needs a value", argv[*i]), false;
    }
    return true;
}

bool files_parse(int argc, char **argv, unsigned accepted, files_opts *o) {
    memset(o, 0, sizeof *o);
    cf_config_init(&o->cfg);
    o->wait_ms = -1;
    /* Positionals (FILE, then keys) are gathered at the front of argv, in
     * order, so options may come anywhere before a "--". */
    int npos = 0;
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        bool matched = false;
        int waits;
        if (options_done || a[0] != '-' || a[1] == '\0') {
            argv[1 + npos++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            options_done = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->help = true;
            return true;
        } else if ((accepted & FILES_OPT_SHAPE) && !parse_shape_flag(argc, argv, &i, o, &matched)) {
            return false;
        } else if (matched) {
            continue;
        } else if ((accepted & FILES_OPT_WAIT) &&
                   (waits = files_wait_flag(argc, argv, &i, &o->wait_ms)) != 0) {
            if (waits < 0) return false;
        } else if ((accepted & FILES_OPT_QUIET) && strcmp(a, "-q") == 0) {
            o->quiet = true;
        } else if ((accepted & FILES_OPT_JSON) && strcmp(a, "--json") == 0) {
            o->json = true;
        } else if ((accepted & FILES_OPT_FORCE) && strcmp(a, "--force") == 0) {
            o->force = true;
        } else if ((accepted & FILES_OPT_GROW) && strcmp(a, "--grow") == 0) {
            o->grow = true;
        } else if ((accepted & FILES_OPT_UNIQUE) && strcmp(a, "--unique") == 0) {
            o->unique = true;
        } else {
            return cli_error("%s: unknown option '%s' (see --help)", argv[0], a), false;
        }
    }
    if (npos == 0) return cli_error("%s: missing FILE (see --help)", argv[0]), false;
    o->file = argv[1];
    o->keys = argv + 2;
    o->nkeys = npos - 1;
    if (o->has_fpp && o->has_fbits)
        return cli_error("--fpp and --fingerprint-bits exclude each other"), false;
    return true;
}

bool files_for_each_key(const files_opts *o, files_key_fn fn, void *ctx) {
    if (o->nkeys > 0) {
        for (int i = 0; i < o->nkeys; i++)
            if (!fn(ctx, o->keys[i], strlen(o->keys[i]))) break;
        return true;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    bool ok = true;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        size_t len = (size_t)n;
        if (len > 0 && line[len - 1] == '\n') len--;
        if (len > 0 && line[len - 1] == '\r') len--;
        if (!fn(ctx, line, len)) break;
    }
    if (ferror(stdin)) ok = cli_error("reading keys from stdin failed") != CLI_ERROR;
    free(line);
    return ok;
}

/* The library reports CF_E_IO without errno; the system call that failed
 * usually left its reason there, which says more ("No such file ..."). */
static void open_error(const char *path, cf_status s, int err) {
    if (s == CF_E_IO && err != 0) cli_error("%s: %s", path, strerror(err));
    else cli_error("%s: %s", path, cf_strerror(s));
}

cf_filter *files_load(const char *path) {
    cf_filter *f = NULL;
    errno = 0;
    cf_status s = cf_load(path, NULL, &f);
    if (s != CF_OK) open_error(path, s, errno);
    return f;
}

cf_filter *files_map(const char *path) {
    cf_filter *f = NULL;
    errno = 0;
    cf_status s = cf_map(path, false, &f);
    if (s != CF_OK) open_error(path, s, errno);
    else files_guard_mapping(path);
    return f;
}

bool files_save(const cf_filter *f, const char *path) {
    errno = 0;
    cf_status s = cf_save(f, path);
    int err = errno;
    if (s == CF_E_IO && err != 0) cli_error("%s: cannot write: %s", path, strerror(err));
    else if (s != CF_OK) cli_error("%s: cannot write: %s", path, cf_strerror(s));
    return s == CF_OK;
}

void files_json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
        else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
        else fputc(*p, out);
    }
    fputc('"', out);
}
