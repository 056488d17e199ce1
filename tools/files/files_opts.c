/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* files_opts.c -- the filter-file commands' options: one table, one parser (files_parse). */
#define _POSIX_C_SOURCE 200809L

#include "files/files.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cf_redis_dump.h" /* CFR_MAX_EXPANSION */
#include "cli/cli.h"

/* Each setter below reads one option into files_opts; the message of a bad
 * value names the option and what it wants. */

static bool set_keys(void *o, const char *v) {
    if (*v == '\0') return cli_error("--keys wants a file name, or - for stdin"), false;
    ((files_opts *)o)->keys_file = v;
    return true;
}

static bool set_capacity(void *opts, const char *v) {
    files_opts *o = opts;
    if (!cli_parse_u64(v, &o->cfg.capacity) || o->cfg.capacity == 0)
        return cli_error("--capacity wants a positive integer, not '%s'%s", v, cli_number_hint(v)),
               false;
    o->has_capacity = true;
    return true;
}

static bool set_fpp(void *opts, const char *v) {
    files_opts *o = opts;
    if (!cli_parse_double(v, &o->cfg.target_fpp) || !(o->cfg.target_fpp > 0) ||
        !(o->cfg.target_fpp < 1))
        return cli_error("--fpp wants a probability between 0 and 1 (0.001, 1e-3), not '%s'", v),
               false;
    o->has_fpp = true;
    return true;
}

/* --wait SECONDS, --no-wait: the writers' lock (files_lock.c). */
static bool set_wait(void *o, const char *v) {
    double s;
    if (!cli_parse_double(v, &s) || !(s >= 0) || s > INT_MAX / 1000)
        return cli_error("--wait wants seconds, 0 to %d, not '%s'", INT_MAX / 1000, v), false;
    ((files_opts *)o)->wait_ms =
        (int)(s * 1000 + 0.999); /* a fraction of a millisecond still waits */
    return true;
}

static bool set_no_wait(void *o, const char *v) {
    (void)v;
    ((files_opts *)o)->wait_ms = 0;
    return true;
}

/* --expire DURATION: whole seconds, or a number with s, m, h or d ("24h"). */
static bool set_expire(void *opts, const char *v) {
    files_opts *o = opts;
    size_t n = strlen(v);
    uint64_t unit = 1;
    char digits[32];
    if (n > 0 && n < sizeof digits) {
        switch (v[n - 1]) {
        case 's': unit = 1, n--; break;
        case 'm': unit = 60, n--; break;
        case 'h': unit = 3600, n--; break;
        case 'd': unit = 86400, n--; break;
        default: break;
        }
    }
    uint64_t x = 0;
    bool ok = n > 0 && n < sizeof digits;
    if (ok) {
        memcpy(digits, v, n);
        digits[n] = '\0';
        ok = cli_parse_u64(digits, &x) && x > 0 && x <= UINT64_MAX / unit;
    }
    if (!ok)
        return cli_error("--expire wants a duration: seconds, or a number with s, m, h or d "
                         "(90m, 24h, 7d), not '%s'",
                         v),
               false;
    o->cfg.expire_after = x * unit;
    return true;
}

/* --at TIME: seconds since 1970, the time an expiring filter's clock is set to. */
static bool set_at(void *opts, const char *v) {
    files_opts *o = opts;
    if (!cli_parse_u64(v, &o->at) || *v == '-')
        return cli_error("--at wants a time in seconds since 1970 (date +%%s), not '%s'", v), false;
    o->has_at = true;
    return true;
}

/* --grow, or --grow=chain / --grow=inplace. */
static bool set_grow(void *opts, const char *v) {
    files_opts *o = opts;
    if (v != NULL && strcmp(v, "chain") == 0)
        o->cfg.growth_mode = CF_GROWTH_CHAIN;
    else if (v != NULL && strcmp(v, "inplace") == 0)
        o->cfg.growth_mode = CF_GROWTH_INPLACE;
    else if (v != NULL)
        return cli_error("--grow wants 'chain' or 'inplace', not '%s'", v), false;
    o->grow = true;
    return true;
}

static bool set_expansion(void *opts, const char *v) {
    files_opts *o = opts;
    if (!cli_parse_unsigned(v, 0, CFR_MAX_EXPANSION, &o->expansion) ||
        (o->expansion & (o->expansion - 1)) != 0)
        return cli_error("--expansion wants 0 or a power of two up to %u, not '%s'",
                         CFR_MAX_EXPANSION, v),
               false;
    o->has_expansion = true;
    return true;
}

static bool set_chunk_bytes(void *opts, const char *v) {
    files_opts *o = opts;
    if (!cli_parse_u64(v, &o->chunk_bytes) || o->chunk_bytes < FILES_MIN_CHUNK ||
        o->chunk_bytes > FILES_MAX_BULK)
        return cli_error("--chunk-bytes wants a size from %d to %llu bytes, not '%s'%s",
                         FILES_MIN_CHUNK, (unsigned long long)FILES_MAX_BULK, v,
                         cli_number_hint(v)),
               false;
    return true;
}

static bool set_output(void *o, const char *v) {
    if (*v == '\0') return cli_error("--output wants a file name"), false;
    ((files_opts *)o)->output = v;
    return true;
}

/* import's --key KEY (any string: a Redis key may be empty). */
static bool set_redis_key(void *o, const char *v) {
    ((files_opts *)o)->redis_key = v;
    return true;
}

/* export --shards S, --routing-seed N (any base strtoull reads: 0x...). */
static bool set_shards(void *o, const char *v) {
    if (cli_parse_unsigned(v, 1, FILES_SHARDS_MAX, &((files_opts *)o)->shards)) return true;
    return cli_error("--shards wants a number of shards from 1 to %u, not '%s'", FILES_SHARDS_MAX,
                     v),
           false;
}

static bool set_routing_seed(void *opts, const char *v) {
    files_opts *o = opts;
    char *end;
    errno = 0;
    o->routing_seed = strtoull(v, &end, 0);
    if (*v == '\0' || *end || errno || *v == '-')
        return cli_error("--routing-seed wants a 64-bit unsigned integer, not '%s'", v), false;
    o->has_routing_seed = true;
    return true;
}

static bool set_output_dir(void *o, const char *v) {
    ((files_opts *)o)->output_dir = v;
    return true;
}

static bool set_shards_dir(void *o, const char *v) {
    (void)v;
    ((files_opts *)o)->shards = 1;
    return true;
}

#define FLAG(name, field) \
    { name, CLI_SWITCH, cli_set_flag, offsetof(files_opts, field) }

/* Every option of the filter-file commands, with the group (FILES_OPT_*)
 * that a command accepts to take it.  The table's shape options
 * (cli_table_options) come with FILES_OPT_SHAPE. */
static const struct {
    unsigned group;
    cli_option opt;
} options[] = {
    {FILES_OPT_SHAPE, {"--capacity", CLI_VALUE, set_capacity, 0}},
    {FILES_OPT_SHAPE, {"--fpp", CLI_VALUE, set_fpp, 0}},
    {FILES_OPT_KEYS, {"--keys", CLI_VALUE, set_keys, 0}},
    {FILES_OPT_KEYS, FLAG("-0", nul)},
    {FILES_OPT_WAIT, {"--wait", CLI_VALUE, set_wait, 0}},
    {FILES_OPT_WAIT, {"--no-wait", CLI_SWITCH, set_no_wait, 0}},
    {FILES_OPT_EXPORT, {"--expansion", CLI_VALUE, set_expansion, 0}},
    {FILES_OPT_EXPORT, {"--chunk-bytes", CLI_VALUE, set_chunk_bytes, 0}},
    {FILES_OPT_EXPORT, {"--output", CLI_VALUE, set_output, 0}},
    {FILES_OPT_IMPORT, {"--key", CLI_VALUE, set_redis_key, 0}},
    {FILES_OPT_SHARDS, {"--shards", CLI_VALUE, set_shards, 0}},
    {FILES_OPT_SHARDS, {"--output-dir", CLI_VALUE, set_output_dir, 0}},
    {FILES_OPT_SHARDS, {"--routing-seed", CLI_VALUE, set_routing_seed, 0}},
    {FILES_OPT_SHARDS_DIR, {"--shards", CLI_SWITCH, set_shards_dir, 0}},
    {FILES_OPT_ANSWERS, FLAG("--summary", summary)},
    {FILES_OPT_ANSWERS, FLAG("--found", found_only)},
    {FILES_OPT_ANSWERS, FLAG("--missing", missing_only)},
    {FILES_OPT_QUIET, FLAG("-q", quiet)},
    {FILES_OPT_JSON, FLAG("--json", json)},
    {FILES_OPT_FORCE, FLAG("--force", force)},
    {FILES_OPT_GROW, {"--grow", CLI_EQUALS, set_grow, 0}},
    {FILES_OPT_UNIQUE, FLAG("--unique", unique)},
    {FILES_OPT_EXPIRE, {"--expire", CLI_VALUE, set_expire, 0}},
    {FILES_OPT_AT, {"--at", CLI_VALUE, set_at, 0}},
};
enum { NOPTIONS = sizeof options / sizeof options[0] };

bool files_parse(int argc, char **argv, unsigned accepted, files_opts *o) {
    memset(o, 0, sizeof *o);
    cf_config_init(&o->cfg);
    o->wait_ms = -1;
    cli_option mine[NOPTIONS];
    size_t n = 0;
    for (size_t k = 0; k < NOPTIONS; k++)
        if (accepted & options[k].group) mine[n++] = options[k].opt;
    cli_options tables[2] = {{mine, n, o}, cli_table_options(&o->cfg)};
    int npos;
    if (!cli_parse(argc, argv, tables, (accepted & FILES_OPT_SHAPE) ? 2 : 1, &npos, &o->help))
        return false;
    if (o->help) return true;
    /* 0 is cf_config_init's value for both and one neither option takes. */
    o->has_fbits = o->cfg.fingerprint_bits != 0;
    o->has_buckets = o->cfg.num_buckets != 0;
    if (npos == 0) return cli_error("%s: missing FILE (see --help)", argv[0]), false;
    o->file = argv[1];
    o->keys = argv + 2;
    o->nkeys = npos - 1;
    /* A filter grown in place takes both: the slot width, and the bound
     * every doubling keeps. */
    if (o->has_fpp && o->has_fbits && o->cfg.growth_mode != CF_GROWTH_INPLACE)
        return cli_error("--fpp and --fingerprint-bits exclude each other (the width sets the "
                         "false-positive rate; with --grow=inplace they go together)"),
               false;
    /* export --shards takes FILE and NAME; NAME is no key. */
    int named = (accepted & FILES_OPT_SHARDS) ? 1 : 0;
    if (o->keys_file != NULL && o->nkeys > named)
        return cli_error("%s: keys come from --keys %s or from arguments, not both ('%s')", argv[0],
                         o->keys_file, o->keys[named]),
               false;
    if (o->found_only && o->missing_only)
        return cli_error("--found and --missing exclude each other (neither prints every key)"),
               false;
    return true;
}
