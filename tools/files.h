/*
 * files.h -- what the filter-file subcommands (cmd_files.c) share: option
 * parsing, key streams, and opening and saving a filter file with one-line
 * error messages.
 */
#ifndef CF_FILES_H
#define CF_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuckoofilter.h"

/* Everything a subcommand may be given; each command accepts a subset. */
typedef struct files_opts {
    const char *file;
    char **keys; /* positional keys after FILE (argv slice) */
    int nkeys;
    bool has_capacity, has_fpp, has_fbits, has_buckets;
    cf_config cfg;
    bool quiet, json, force, grow, unique, help;
} files_opts;

/* Which options a command accepts (bit set). */
enum {
    FILES_OPT_SHAPE = 1,  /* --capacity --fpp --fingerprint-bits --bucket-size --seed ... */
    FILES_OPT_QUIET = 2,  /* -q */
    FILES_OPT_JSON = 4,   /* --json */
    FILES_OPT_FORCE = 8,  /* --force */
    FILES_OPT_GROW = 16,  /* --grow */
    FILES_OPT_UNIQUE = 32 /* --unique */
};

/* Parses argv (argv[0] = command name).  Returns true, or false after
 * printing a one-line error.  "--" ends the options. */
bool files_parse(int argc, char **argv, unsigned accepted, files_opts *o);

/* Calls fn for each key: the command-line keys if any, else each line of
 * stdin (without its "\n" or "\r\n").  Stops early when fn returns false.
 * Returns false on a read error (after printing it). */
typedef bool (*files_key_fn)(void *ctx, const char *key, size_t len);
bool files_for_each_key(const files_opts *o, files_key_fn fn, void *ctx);

/* Loads (writable) or maps (read-only) o->file; prints the error and
 * returns NULL on failure. */
cf_filter *files_load(const char *path);
cf_filter *files_map(const char *path);

/* Saves atomically; prints the error and returns false on failure. */
bool files_save(const cf_filter *f, const char *path);

/* Prints s as a JSON string literal. */
void files_json_string(FILE *out, const char *s);

#endif /* CF_FILES_H */
