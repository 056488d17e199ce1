/* files_util.c -- option parsing and file access for the filter-file commands. */
#define _POSIX_C_SOURCE 200809L

#include "files.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cf_redis_dump.h" /* CFR_MAX_EXPANSION */
#include "cli.h"

static bool parse_keys_flag(int argc, char **argv, int *i, files_opts *o, bool *matched) {
    bool missing = false;
    const char *v = cli_flag_value(argc, argv, i, "--keys", &missing);
    *matched = true;
    if (v != NULL) {
        if (*v == '\0') return cli_error("--keys wants a file name, or - for stdin"), false;
        o->keys_file = v;
    } else if (strcmp(argv[*i], "-0") == 0) {
        o->nul = true;
    } else {
        *matched = missing;
        if (missing) return cli_error("%s needs a value", argv[*i]), false;
    }
    return true;
}

/* create's and build's shape: the sizing options, then the table's (cli_opts.c). */
static bool parse_shape_flag(int argc, char **argv, int *i, files_opts *o, bool *matched) {
    const char *v;
    bool missing = false;
    *matched = true;
    if ((v = cli_flag_value(argc, argv, i, "--capacity", &missing)) != NULL) {
        if (!cli_parse_u64(v, &o->cfg.capacity) || o->cfg.capacity == 0)
            return cli_error("--capacity wants a positive integer, not '%s'%s", v,
                             cli_number_hint(v)),
                   false;
        o->has_capacity = true;
    } else if ((v = cli_flag_value(argc, argv, i, "--fpp", &missing)) != NULL) {
        if (!cli_parse_double(v, &o->cfg.target_fpp) || !(o->cfg.target_fpp > 0) ||
            !(o->cfg.target_fpp < 1))
            return cli_error("--fpp wants a probability between 0 and 1 (0.001, 1e-3), not '%s'",
                             v),
                   false;
        o->has_fpp = true;
    } else if (!cli_table_flag(argc, argv, i, &o->cfg, matched)) {
        return false;
    } else if (!*matched) {
        *matched = missing;
        if (missing) return cli_error("%s needs a value", argv[*i]), false;
    }
    return true;
}

/* --wait SECONDS, --no-wait: the writers' lock (files_lock.c). */
static bool parse_wait_flag(int argc, char **argv, int *i, files_opts *o, bool *matched) {
    bool missing = false;
    const char *v = cli_flag_value(argc, argv, i, "--wait", &missing);
    *matched = true;
    if (v != NULL) {
        double s;
        if (!cli_parse_double(v, &s) || !(s >= 0) || s > INT_MAX / 1000)
            return cli_error("--wait wants seconds, 0 to %d, not '%s'", INT_MAX / 1000, v), false;
        o->wait_ms = (int)(s * 1000 + 0.999); /* a fraction of a millisecond still waits */
    } else if (strcmp(argv[*i], "--no-wait") == 0) {
        o->wait_ms = 0;
    } else {
        *matched = missing;
        if (missing) return cli_error("%s needs a value", argv[*i]), false;
    }
    return true;
}

/* export's --expansion, --chunk-bytes, --output. */
static bool parse_export_flag(int argc, char **argv, int *i, files_opts *o, bool *matched) {
    const char *v;
    bool missing = false;
    *matched = true;
    if ((v = cli_flag_value(argc, argv, i, "--expansion", &missing)) != NULL) {
        if (!cli_parse_unsigned(v, 0, CFR_MAX_EXPANSION, &o->expansion) ||
            (o->expansion & (o->expansion - 1)) != 0)
            return cli_error("--expansion wants 0 or a power of two up to %u, not '%s'",
                             CFR_MAX_EXPANSION, v),
                   false;
        o->has_expansion = true;
    } else if ((v = cli_flag_value(argc, argv, i, "--chunk-bytes", &missing)) != NULL) {
        if (!cli_parse_u64(v, &o->chunk_bytes) || o->chunk_bytes < FILES_MIN_CHUNK ||
            o->chunk_bytes > FILES_MAX_BULK)
            return cli_error("--chunk-bytes wants a size from %d to %llu bytes, not '%s'%s",
                             FILES_MIN_CHUNK, (unsigned long long)FILES_MAX_BULK, v,
                             cli_number_hint(v)),
                   false;
    } else if ((v = cli_flag_value(argc, argv, i, "--output", &missing)) != NULL) {
        if (*v == '\0') return cli_error("--output wants a file name"), false;
        o->output = v;
    } else {
        *matched = missing;
        if (missing) return cli_error("%s needs a value", argv[*i]), false;
    }
    return true;
}

/* import's --key KEY (any string: a Redis key may be empty). */
static bool parse_import_flag(int argc, char **argv, int *i, files_opts *o, bool *matched) {
    bool missing = false;
    const char *v = cli_flag_value(argc, argv, i, "--key", &missing);
    *matched = v != NULL || missing;
    if (missing) return cli_error("%s needs a value", argv[*i]), false;
    if (v != NULL) o->redis_key = v;
    return true;
}

/* The options that take values, in groups; each parser sets *matched when
 * argv[*i] is one of its options, and returns false after an error. */
static const struct {
    unsigned bit;
    bool (*parse)(int argc, char **argv, int *i, files_opts *o, bool *matched);
} value_flags[] = {
    {FILES_OPT_SHAPE, parse_shape_flag},   {FILES_OPT_KEYS, parse_keys_flag},
    {FILES_OPT_WAIT, parse_wait_flag},     {FILES_OPT_EXPORT, parse_export_flag},
    {FILES_OPT_IMPORT, parse_import_flag},
};

/* Tries every accepted group on argv[*i]: false after an error, else
 * *matched says whether one took it. */
static bool parse_value_flag(int argc, char **argv, int *i, unsigned accepted, files_opts *o,
                             bool *matched) {
    *matched = false;
    for (size_t g = 0; g < sizeof value_flags / sizeof value_flags[0] && !*matched; g++)
        if ((accepted & value_flags[g].bit) && !value_flags[g].parse(argc, argv, i, o, matched))
            return false;
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
        if (options_done || a[0] != '-' || a[1] == '\0') {
            argv[1 + npos++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            options_done = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->help = true;
            return true;
        } else if (!parse_value_flag(argc, argv, &i, accepted, o, &matched)) {
            return false;
        } else if (matched) {
            continue;
        } else if ((accepted & FILES_OPT_ANSWERS) && strcmp(a, "--summary") == 0) {
            o->summary = true;
        } else if ((accepted & FILES_OPT_ANSWERS) && strcmp(a, "--found") == 0) {
            o->found_only = true;
        } else if ((accepted & FILES_OPT_ANSWERS) && strcmp(a, "--missing") == 0) {
            o->missing_only = true;
        } else if ((accepted & FILES_OPT_QUIET) && strcmp(a, "-q") == 0) {
            o->quiet = true;
        } else if ((accepted & FILES_OPT_JSON) && strcmp(a, "--json") == 0) {
            o->json = true;
        } else if ((accepted & FILES_OPT_FORCE) && strcmp(a, "--force") == 0) {
            o->force = true;
        } else if ((accepted & FILES_OPT_GROW) && strcmp(a, "--grow") == 0) {
            o->grow = true;
        } else if ((accepted & FILES_OPT_GROW) && strncmp(a, "--grow=", 7) == 0) {
            if (strcmp(a + 7, "chain") == 0)
                o->cfg.growth_mode = CF_GROWTH_CHAIN;
            else if (strcmp(a + 7, "inplace") == 0)
                o->cfg.growth_mode = CF_GROWTH_INPLACE;
            else
                return cli_error("%s: --grow=%s: the growth mode is 'chain' or 'inplace'", argv[0],
                                 a + 7),
                       false;
            o->grow = true;
        } else if ((accepted & FILES_OPT_UNIQUE) && strcmp(a, "--unique") == 0) {
            o->unique = true;
        } else {
            return cli_error("%s: unknown option '%s' (see --help)", argv[0], a), false;
        }
    }
    /* 0 is cf_config_init's value for both and one neither option takes. */
    o->has_fbits = o->cfg.fingerprint_bits != 0;
    o->has_buckets = o->cfg.num_buckets != 0;
    if (npos == 0) return cli_error("%s: missing FILE (see --help)", argv[0]), false;
    o->file = argv[1];
    o->keys = argv + 2;
    o->nkeys = npos - 1;
    if (o->has_fpp && o->has_fbits)
        return cli_error("--fpp and --fingerprint-bits exclude each other (the width sets the "
                         "false-positive rate)"),
               false;
    if (o->keys_file != NULL && o->nkeys > 0)
        return cli_error("%s: keys come from --keys %s or from arguments, not both ('%s')", argv[0],
                         o->keys_file, o->keys[0]),
               false;
    if (o->found_only && o->missing_only)
        return cli_error("--found and --missing exclude each other (neither prints every key)"),
               false;
    return true;
}

const char *files_not_regular(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode)) return NULL;
    if (S_ISDIR(st.st_mode)) return "is a directory";
    if (S_ISCHR(st.st_mode)) return "is a character device";
    if (S_ISBLK(st.st_mode)) return "is a block device";
    if (S_ISFIFO(st.st_mode)) return "is a FIFO";
    if (S_ISSOCK(st.st_mode)) return "is a socket";
    return "is not a regular file";
}

/* The library reports CF_E_IO without errno; the system call that failed
 * usually left its reason there, which says more ("No such file ...").  A
 * directory or a device fails in ways ("input/output error", "truncated")
 * that hide the real mistake, so that is named first. */
static void open_error(const char *path, const char *shown, cf_status s, int err) {
    const char *what = files_not_regular(path);
    if (what != NULL)
        cli_error("%s %s, not a regular file (not a filter file)", shown, what);
    else if (s == CF_E_IO && err != 0)
        cli_error("%s: %s", shown, strerror(err));
    else
        cli_error("%s: %s", shown, cf_strerror(s));
}

static cf_filter *load_as(const char *path, const char *shown) {
    cf_filter *f = NULL;
    errno = 0;
    cf_status s = cf_load(path, NULL, &f);
    if (s != CF_OK) open_error(path, shown, s, errno);
    return f;
}

cf_filter *files_load(const char *path) {
    return load_as(path, path);
}

cf_filter *files_load_locked(const cf_file_lock *l, const char *shown) {
    return load_as(cf_file_lock_path(l), shown);
}

cf_filter *files_map(const char *path) {
    cf_filter *f = NULL;
    errno = 0;
    cf_status s = cf_map(path, false, &f);
    if (s != CF_OK)
        open_error(path, path, s, errno);
    else
        files_guard_mapping(path);
    return f;
}

cf_filter *files_map_checked(const char *path, cf_status *verified) {
    cf_filter *f = NULL;
    *verified = cf_map(path, true, &f);
    if (*verified == CF_OK) {
        files_guard_mapping(path);
        return f;
    }
    /* The public API verifies only while mapping: a file that fails is
     * mapped again with the header checks alone, so that a damaged table
     * can still be described (and one that cannot be mapped is reported). */
    return files_map(path);
}

/* cf_save, or with l cf_save_locked, with the error printed naming shown. */
static bool save_as(const cf_filter *f, const cf_file_lock *l, const char *path,
                    const char *shown) {
    const char *what = files_not_regular(path);
    if (what != NULL)
        return cli_error("%s %s, not a regular file; nothing written", shown, what), false;
    errno = 0;
    cf_status s = l != NULL ? cf_save_locked(f, l) : cf_save(f, path);
    int err = errno;
    if (s == CF_E_LOCKED && l != NULL)
        cli_error("%s: its lock file was removed or replaced while this command held it "
                  "(another writer may be saving); nothing written: run the command again",
                  shown);
    else if (s == CF_E_IO && err != 0)
        cli_error("%s: cannot write: %s", shown, strerror(err));
    else if (s != CF_OK)
        cli_error("%s: cannot write: %s", shown, cf_strerror(s));
    return s == CF_OK;
}

bool files_save(const cf_filter *f, const char *path) {
    return save_as(f, NULL, path, path);
}

bool files_save_locked(const cf_filter *f, const cf_file_lock *l, const char *shown) {
    return save_as(f, l, cf_file_lock_path(l), shown);
}

void files_json_bytes(FILE *out, const char *s, size_t len) {
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

void files_json_string(FILE *out, const char *s) {
    files_json_bytes(out, s, strlen(s));
}
