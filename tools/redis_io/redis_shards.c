/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * redis_shards.c -- the work of `cuckoo export --shards` and `cuckoo import
 * --shards` (their options and usage are in cmd_export.c, cmd_import.c): a
 * filter built offline, split into the S shards of a sharded filter for a
 * Redis Cluster (docs/REDIS.md, "Sharded filters"), and back.
 *
 *   cuckoo build f.cf --capacity N < keys
 *   cuckoo export f.cf NAME --shards 12 --output-dir out < keys
 *       out/shard-K.resp   DEL + CF.LOADCHUNK commands of shard K's key
 *       out/shard-K.cf     shard K as a filter file
 *       out/meta.resp      DEL + HSET of NAME's metadata (load it last)
 *       out/shards.tsv     K, slot, key, stream: which node takes which stream
 *                          (a last row "meta" for the metadata)
 *   (each shard-K.resp through `redis-cli -h <owner of its slot> --pipe`)
 *   cuckoo import --shards back DIR capture.resp       the shards as files again
 *
 * A filter holds fingerprints, not keys, and an item's shard comes from a
 * hash independent of the one that placed its fingerprint: a table cannot be
 * cut into shards by itself.  So export re-inserts the keys FILE was built
 * from, each into its shard (the routing below), after checking that FILE
 * holds it, and that the keys are as many as FILE's items: a wrong key list
 * stops the export instead of losing items.  The shards copy FILE's shape
 * (fingerprint bits, bucket size, seed, eviction budget, semi-sorting), with
 * 1/S of its buckets plus a margin of 4 standard deviations of the routing's
 * imbalance, so their FPP is FILE's.
 *
 * Routing (the one definition, also in python/cuckoofilter/redis.py):
 *   shard(item) = (XXH3-64(item, routing_seed) * S) >> 64
 * computed with the library's cf_hash on a filter whose seed is the routing
 * seed.  Shard key names: shard k is "{k.n}NAME" with n the smallest integer
 * >= 0 whose tag "k.n" hashes (CRC16, Redis Cluster's) into the k-th of S
 * equal parts of the slot space, starting at CRC16(NAME) mod 16384.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cuckoofilter.h"
#include "files/files.h"
#include "redis_io/redis_io.h"

#define SH_FORMAT "cuckoofilter.sharded"
#define SH_VERSION 1
#define SH_ROUTING "xxh3-64-mulhi"
#define SH_SLOTS 16384u
#define SH_DEFAULT_CHUNK ((uint64_t)1 << 20)

/* CRC16-CCITT (XMODEM): Redis Cluster's key hash. */
static uint16_t crc16(const char *p, size_t n) {
    uint16_t crc = 0;
    for (size_t i = 0; i < n; i++) {
        crc ^= (uint16_t)((uint8_t)p[i] << 8);
        for (int b = 0; b < 8; b++)
            crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    }
    return crc;
}

/* The cluster slot of key: its hash tag's (the bytes between the first '{'
 * and the next '}', when not empty), else the whole key's. */
static unsigned key_slot(const char *key) {
    size_t n = strlen(key);
    const char *open = strchr(key, '{');
    if (open) {
        const char *close = strchr(open + 1, '}');
        if (close && close > open + 1) key = open + 1, n = (size_t)(close - open - 1);
    }
    return crc16(key, n) % SH_SLOTS;
}

/* Shard k's key for NAME ("{k.n}NAME", malloc'd) and its slot. */
static char *shard_key(const char *name, unsigned shards, unsigned k, unsigned *slot) {
    unsigned origin = crc16(name, strlen(name)) % SH_SLOTS;
    unsigned lo = (unsigned)((uint64_t)k * SH_SLOTS / shards);
    unsigned hi = (unsigned)((uint64_t)(k + 1) * SH_SLOTS / shards);
    char tag[32];
    for (unsigned n = 0; n < SH_SLOTS * 64; n++) {
        int len = snprintf(tag, sizeof tag, "%u.%u", k, n);
        unsigned s = crc16(tag, (size_t)len) % SH_SLOTS;
        if ((s + SH_SLOTS - origin) % SH_SLOTS >= lo && (s + SH_SLOTS - origin) % SH_SLOTS < hi) {
            size_t total = (size_t)len + 2 + strlen(name) + 1;
            char *key = malloc(total);
            if (key) snprintf(key, total, "{%s}%s", tag, name);
            *slot = s;
            return key;
        }
    }
    return NULL; /* CRC16 reaches every slot long before */
}

static unsigned route(const cf_filter *router, unsigned shards, const void *key, size_t len) {
    return (unsigned)(((unsigned __int128)cf_hash(router, key, len) * shards) >> 64);
}

/* Makes dir unless it is there; *made says whether this call made it (to
 * be removed again when the command fails). */
static bool make_dir(const char *dir, bool *made) {
    *made = mkdir(dir, 0777) == 0;
    if (*made || errno == EEXIST) {
        struct stat st;
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return true;
    }
    return cli_error("%s: cannot create the directory: %s", dir, strerror(errno)), false;
}

static char *path_in(const char *dir, const char *fmt, unsigned k) {
    char name[64];
    snprintf(name, sizeof name, fmt, k);
    size_t n = strlen(dir) + 1 + strlen(name) + 1;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* ------------------------------------------------------------ RESP out */

static bool put_cmd(FILE *out, int n, const char *const *args, const size_t *lens) {
    if (fprintf(out, "*%d\r\n", n) < 0) return false;
    for (int i = 0; i < n; i++)
        if (fprintf(out, "$%zu\r\n", lens[i]) < 0 || fwrite(args[i], 1, lens[i], out) != lens[i] ||
            fputs("\r\n", out) < 0)
            return false;
    return true;
}

static bool put_del(FILE *out, const char *key) {
    const char *a[2] = {"DEL", key};
    size_t l[2] = {3, strlen(key)};
    return put_cmd(out, 2, a, l);
}

/* Metadata: field/value pairs, in the order they are written. */
typedef struct meta {
    int n;
    char *field[2 * FILES_SHARDS_MAX + 32], *value[2 * FILES_SHARDS_MAX + 32];
} meta;

static bool meta_add(meta *m, const char *field, const char *value) {
    if (m->n >= (int)(sizeof m->field / sizeof m->field[0])) return false;
    m->field[m->n] = strdup(field);
    m->value[m->n] = strdup(value);
    m->n++;
    return m->field[m->n - 1] && m->value[m->n - 1];
}

static const char *meta_get(const meta *m, const char *field) {
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->field[i], field) == 0) return m->value[i];
    return NULL;
}

static void meta_free(meta *m) {
    for (int i = 0; i < m->n; i++) free(m->field[i]), free(m->value[i]);
    m->n = 0;
}

/* DEL NAME, then HSET NAME field value ...; false on a failed write (or
 * no memory), which the caller reports. */
static bool write_meta(FILE *out, const char *name, const meta *m) {
    int n = 2 + 2 * m->n;
    const char **a = malloc(sizeof *a * (size_t)n);
    size_t *l = malloc(sizeof *l * (size_t)n);
    bool ok = a && l;
    if (ok) {
        a[0] = "HSET", l[0] = 4, a[1] = name, l[1] = strlen(name);
        for (int i = 0; i < m->n; i++) {
            a[2 + 2 * i] = m->field[i], l[2 + 2 * i] = strlen(m->field[i]);
            a[3 + 2 * i] = m->value[i], l[3 + 2 * i] = strlen(m->value[i]);
        }
        ok = put_del(out, name) && put_cmd(out, n, a, l);
    }
    free(a);
    free(l);
    return ok;
}

/* The files a sharded filter's directory holds, by name pattern: K < shards
 * are this command's, the others (of a filter with more shards that was
 * there before) are to go.  The filter files take their writers' lock
 * (cuckoo add may write them); the streams are export's alone, guarded by
 * meta.resp's lock, which every export and import takes. */
static const char *const shard_patterns[] = {"shard-%u.cf", "shard-%u.resp"};

/* Names every target of dir in set: meta.resp (index *meta_at), extra
 * (when not NULL, index *extra_at), the files of the first npatterns
 * shard_patterns for K < shards (pattern p of shard K at index first +
 * K * npatterns + p), and, to be removed, the files of those patterns for
 * K >= shards that dir holds (left by a filter of more shards).  Then
 * locks them all. */
static int name_targets(files_set *set, const char *dir, unsigned shards, size_t npatterns,
                        int *meta_at, int *first, const char *extra, int *extra_at) {
    char *mp = path_in(dir, "meta.resp", 0);
    *meta_at = mp ? files_set_add(set, mp) : -1;
    free(mp);
    if (*meta_at < 0) return CLI_ERROR;
    if (extra) {
        char *ep = path_in(dir, extra, 0);
        *extra_at = ep ? files_set_add_stream(set, ep) : -1;
        free(ep);
        if (*extra_at < 0) return CLI_ERROR;
    }
    *first = -1;
    for (unsigned k = 0; k < shards; k++)
        for (size_t p = 0; p < npatterns; p++) {
            char *path = path_in(dir, shard_patterns[p], k);
            int i = !path    ? -1
                    : p == 0 ? files_set_add(set, path)
                             : files_set_add_stream(set, path);
            free(path);
            if (i < 0) return CLI_ERROR;
            if (*first < 0) *first = i;
        }
    DIR *d = opendir(dir);
    if (!d) return cli_error("%s: cannot read the directory: %s", dir, strerror(errno));
    int rc = CLI_OK;
    for (struct dirent *ent; rc == CLI_OK && (ent = readdir(d)) != NULL;)
        for (size_t p = 0; p < npatterns; p++) {
            unsigned k;
            char back[64];
            if (sscanf(ent->d_name, p == 0 ? "shard-%u.cf" : "shard-%u.resp", &k) != 1) continue;
            snprintf(back, sizeof back, shard_patterns[p], k);
            if (strcmp(back, ent->d_name) != 0 || k < shards) continue;
            char *path = path_in(dir, shard_patterns[p], k);
            if (!path || !files_set_remove(set, path)) rc = CLI_ERROR;
            free(path);
        }
    closedir(d);
    if (rc == CLI_OK && !files_set_lock(set)) rc = CLI_ERROR;
    return rc;
}

/* ------------------------------------------------------------ export */

typedef struct splitter {
    const cf_filter *file, *router;
    cf_filter **shards;
    unsigned n;
    uint64_t keys;
    int rc;
} splitter;

static bool split_key(void *ctx, const char *key, size_t len) {
    splitter *sp = ctx;
    char where[160];
    if (!cf_contains(sp->file, key, len)) {
        files_key_where(key, len, where, sizeof where);
        sp->rc =
            cli_error("export: %s is not in the filter: give the keys it was built from", where);
        return false;
    }
    unsigned k = route(sp->router, sp->n, key, len);
    cf_status s = cf_insert(sp->shards[k], key, len);
    if (s != CF_OK) {
        files_key_where(key, len, where, sizeof where);
        sp->rc = cli_error("export: shard %u refused %s: %s", k, where, cf_strerror(s));
        return false;
    }
    sp->keys++;
    return true;
}

/* The shards' shape: FILE's, with 1/S of its buckets plus 4 standard
 * deviations of a shard's share of the items. */
static bool shard_config(const cf_stats *st, unsigned shards, cf_config *cfg) {
    cf_config_init(cfg);
    cfg->fingerprint_bits = st->fingerprint_bits;
    cfg->bucket_size = st->bucket_size;
    cfg->seed = st->seed;
    cfg->max_kicks = st->max_kicks;
    cfg->flags = st->flags & CF_SEMI_SORT;
    double per = (double)st->items / shards;
    cfg->num_buckets = (st->num_buckets + shards - 1) / shards +
                       (uint64_t)ceil(4 * sqrt(per > 1 ? per : 1) / st->bucket_size) + 1;
    return true;
}

/* Writes every file of the export into set (named by name_targets with
 * both patterns and shards.tsv): shard K's stream and file, shards.tsv,
 * then meta.resp, whose fields gain each shard's key. */
static int write_shards(files_set *set, const char *name, cf_filter *const *sh, const files_opts *o,
                        meta *m, int meta_at, int first, int tsv_at) {
    FILE *tsv = files_set_open(set, tsv_at);
    if (!tsv) return CLI_ERROR;
    int rc = CLI_OK;
    uint32_t expansion = o->has_expansion ? o->expansion : 1;
    size_t chunk = (size_t)(o->chunk_bytes ? o->chunk_bytes : SH_DEFAULT_CHUNK);
    for (unsigned k = 0; k < o->shards && rc == CLI_OK; k++) {
        unsigned slot;
        char field[32];
        int cf_at = first + 2 * (int)k, resp_at = cf_at + 1;
        char *key = shard_key(name, o->shards, k, &slot);
        FILE *out = key ? files_set_open(set, resp_at) : NULL;
        if (!key || !out) {
            rc = key ? CLI_ERROR : cli_error("export: out of memory");
        } else {
            rc = put_del(out, key) ? redis_io_export_filter(sh[k], key, expansion, chunk, out)
                                   : CLI_ERROR;
            if (!files_set_close(set, resp_at, out)) rc = CLI_ERROR;
            if (rc == CLI_OK && !files_set_save(set, cf_at, sh[k])) rc = CLI_ERROR;
            snprintf(field, sizeof field, "key.%u", k);
            if (rc == CLI_OK && !meta_add(m, field, key)) rc = cli_error("export: out of memory");
            fprintf(tsv, "%u\t%u\t%s\tshard-%u.resp\n", k, slot, key, k);
        }
        free(key);
    }
    /* The metadata's row last: it is loaded after every shard. */
    fprintf(tsv, "meta\t%u\t%s\tmeta.resp\n", key_slot(name), name);
    if (!files_set_close(set, tsv_at, tsv)) rc = CLI_ERROR;
    FILE *mo = rc == CLI_OK ? files_set_open(set, meta_at) : NULL;
    if (rc == CLI_OK && !mo) rc = CLI_ERROR;
    if (mo) {
        bool ok = write_meta(mo, name, m);
        if (!files_set_close(set, meta_at, mo) || !ok) rc = CLI_ERROR;
    }
    return rc;
}

int redis_shards_export(const files_opts *o, const cf_filter *f) {
    uint64_t routing_seed = o->has_routing_seed ? o->routing_seed : REDIS_SHARDS_ROUTING_SEED;
    const char *name = o->keys[0];
    cf_stats st;
    cf_get_stats(f, &st);
    if (st.flags & CF_GROW)
        return cli_error("export: %s grows (CF_GROW); --shards splits single-table filters",
                         o->file);
    if (st.seed == routing_seed)
        return cli_error("export: the routing seed equals %s's seed (%#" PRIx64 "): shards and "
                         "routing would hash alike; choose another --routing-seed",
                         o->file, st.seed);
    cf_config cfg, rcfg;
    shard_config(&st, o->shards, &cfg);
    cf_config_init(&rcfg);
    rcfg.capacity = 1;
    rcfg.seed = routing_seed;
    cf_filter *router = NULL, **sh = calloc(o->shards, sizeof *sh);
    cf_status s = sh ? cf_new(&rcfg, &router) : CF_E_NOMEM;
    for (unsigned k = 0; k < o->shards && s == CF_OK; k++) s = cf_new(&cfg, &sh[k]);
    splitter sp = {f, router, sh, o->shards, 0, CLI_OK};
    int rc = s == CF_OK ? CLI_OK : cli_error("export: cannot make the shards: %s", cf_strerror(s));
    if (rc == CLI_OK) {
        files_opts ko = *o;
        ko.nkeys = 0; /* NAME is not a key: the keys come from --keys or stdin */
        if (!files_for_each_key(&ko, split_key, &sp)) rc = CLI_ERROR;
        files_keys_done();
        if (rc == CLI_OK) rc = sp.rc;
    }
    if (rc == CLI_OK && sp.keys != st.items)
        rc = cli_error("export: %s holds %" PRIu64 " items but %" PRIu64 " keys were given: give "
                       "exactly the keys it was built from",
                       o->file, st.items, sp.keys);
    meta m = {0};
    bool made = false;
    files_set *set = NULL;
    if (rc == CLI_OK && !make_dir(o->output_dir, &made)) rc = CLI_ERROR;
    if (rc == CLI_OK && !(set = files_set_new(o->force, o->wait_ms))) rc = CLI_ERROR;
    int meta_at = -1, first = -1, tsv_at = -1;
    if (rc == CLI_OK)
        rc =
            name_targets(set, o->output_dir, o->shards, 2, &meta_at, &first, "shards.tsv", &tsv_at);
    if (rc == CLI_OK) {
        cf_stats s0;
        cf_get_stats(sh[0], &s0);
        uint64_t per = (uint64_t)((double)s0.slots * cf_default_max_load(s0.bucket_size));
        char buf[8][48];
        snprintf(buf[0], sizeof buf[0], "%d", SH_VERSION);
        snprintf(buf[1], sizeof buf[1], "%u", o->shards);
        snprintf(buf[2], sizeof buf[2], "%" PRIu64, routing_seed);
        snprintf(buf[3], sizeof buf[3], "%" PRIu64, per * o->shards);
        snprintf(buf[4], sizeof buf[4], "%" PRIu64, per);
        snprintf(buf[5], sizeof buf[5], "%.17g", s0.fpp_bound);
        snprintf(buf[6], sizeof buf[6], "%u", s0.bucket_size);
        snprintf(buf[7], sizeof buf[7], "%u", o->has_expansion ? o->expansion : 1);
        const char *fields[] = {"format",       "version",  "shards",         "routing",
                                "routing_seed", "capacity", "shard_capacity", "fpp",
                                "bucket_size",  "expansion"};
        const char *values[] = {SH_FORMAT, buf[0], buf[1], SH_ROUTING, buf[2],
                                buf[3],    buf[4], buf[5], buf[6],     buf[7]};
        for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
            if (!meta_add(&m, fields[i], values[i])) rc = cli_error("export: out of memory");
        if (rc == CLI_OK) rc = write_shards(set, name, sh, o, &m, meta_at, first, tsv_at);
        if (rc == CLI_OK && !files_set_commit(set)) rc = CLI_ERROR;
    }
    files_set_free(set);
    if (rc != CLI_OK && made) rmdir(o->output_dir); /* as it was: absent */
    meta_free(&m);
    for (unsigned k = 0; sh && k < o->shards; k++) cf_free(sh[k]);
    free(sh);
    cf_free(router);
    return rc;
}

/* ------------------------------------------------------------ import */

/* Calls fn for every HSET / HMSET command of in (a rewritten AOF splits a
 * large hash over several HMSETs) with its key and text field/value pairs;
 * other commands, and pairs with NUL bytes, are skipped.  fn returns
 * CLI_OK to go on, 1 to stop, or CLI_ERROR. */
typedef int (*hset_fn)(void *ctx, const char *key, char **pairs, uint64_t npairs);

static int for_each_hset(FILE *in, hset_fn fn, void *ctx) {
    int ch;
    while ((ch = fgetc(in)) != EOF) {
        ungetc(ch, in);
        uint64_t nargs;
        if (!redis_io_read_prefixed(in, '*', &nargs) || nargs == 0 || nargs > 65536)
            return cli_error("import: the input is not a stream of Redis commands");
        char **a = calloc(nargs, sizeof *a);
        if (!a) return cli_error("import: out of memory");
        bool ok = true, text = true;
        for (uint64_t i = 0; i < nargs && ok; i++) {
            size_t n;
            a[i] = (char *)redis_io_read_bulk(in, &n);
            ok = a[i] != NULL;
            text = text && ok && strlen(a[i]) == n;
        }
        int rc = ok ? CLI_OK : cli_error("import: truncated or malformed command");
        if (ok && text && nargs >= 4 && nargs % 2 == 0 &&
            (strcasecmp(a[0], "HSET") == 0 || strcasecmp(a[0], "HMSET") == 0))
            rc = fn(ctx, a[1], a + 2, (nargs - 2) / 2);
        for (uint64_t i = 0; i < nargs; i++) free(a[i]);
        free(a);
        if (rc != CLI_OK) return rc;
    }
    return CLI_OK;
}

/* The first key given the field format = cuckoofilter.sharded. */
static int find_name(void *ctx, const char *key, char **pairs, uint64_t npairs) {
    for (uint64_t i = 0; i < npairs; i++)
        if (strcmp(pairs[2 * i], "format") == 0 && strcmp(pairs[2 * i + 1], SH_FORMAT) == 0) {
            *(char **)ctx = strdup(key);
            return *(char **)ctx ? 1 : cli_error("import: out of memory");
        }
    return CLI_OK;
}

typedef struct meta_reader {
    const char *name;
    meta *m;
} meta_reader;

static int collect_meta(void *ctx, const char *key, char **pairs, uint64_t npairs) {
    meta_reader *r = ctx;
    if (strcmp(key, r->name) != 0) return CLI_OK;
    for (uint64_t i = 0; i < npairs; i++)
        if (!meta_add(r->m, pairs[2 * i], pairs[2 * i + 1]))
            return cli_error("import: '%s' has too many metadata fields", key);
    return CLI_OK;
}

/* Reads the metadata of the sharded filter want (or of the first one in the
 * stream) into m, and its name into *name (free it). */
static int read_meta(FILE *in, const char *want, char **name, meta *m) {
    *name = want ? strdup(want) : NULL;
    int rc = want ? (*name ? CLI_OK : cli_error("import: out of memory"))
                  : for_each_hset(in, find_name, name);
    if (rc == CLI_ERROR) return rc;
    if (*name == NULL)
        return cli_error("import: no sharded filter's metadata (HSET NAME format " SH_FORMAT
                         " ...) in the stream");
    rewind(in);
    meta_reader r = {*name, m};
    rc = for_each_hset(in, collect_meta, &r);
    if (rc == CLI_OK && !(meta_get(m, "format") && strcmp(meta_get(m, "format"), SH_FORMAT) == 0))
        rc = cli_error("import: no metadata of the sharded filter '%s' in the stream", *name);
    return rc;
}

int redis_shards_import(const files_opts *o, FILE *in) {
    meta m = {0};
    char *name = NULL;
    int rc = read_meta(in, o->redis_key, &name, &m);
    const char *v = meta_get(&m, "version"), *r = meta_get(&m, "routing"),
               *n = meta_get(&m, "shards");
    unsigned shards = 0;
    if (rc == CLI_OK && (!v || strcmp(v, "1") != 0 || !r || strcmp(r, SH_ROUTING) != 0 || !n ||
                         !cli_parse_unsigned(n, 1, FILES_SHARDS_MAX, &shards)))
        rc = cli_error("import: '%s': an unknown version, routing or shard count", name);
    /* Every file is written under a temporary name and put in place only
     * when all are: a DIR that holds another import keeps it whole when
     * this one is refused or fails. */
    bool made = false;
    files_set *set = NULL;
    if (rc == CLI_OK && !make_dir(o->file, &made)) rc = CLI_ERROR;
    if (rc == CLI_OK && !(set = files_set_new(o->force, o->wait_ms))) rc = CLI_ERROR;
    int meta_at = -1, first = -1;
    if (rc == CLI_OK) rc = name_targets(set, o->file, shards, 1, &meta_at, &first, NULL, NULL);
    for (unsigned k = 0; k < shards && rc == CLI_OK; k++) {
        char field[32];
        snprintf(field, sizeof field, "key.%u", k);
        const char *key = meta_get(&m, field);
        cf_filter *f = NULL;
        if (!key) {
            rc = cli_error("import: '%s' has no %s", name, field);
        } else {
            rewind(in);
            rc = redis_io_read_key(in, key, &f);
        }
        if (rc == CLI_OK && !files_set_save(set, first + (int)k, f)) rc = CLI_ERROR;
        cf_free(f);
    }
    FILE *mo = rc == CLI_OK ? files_set_open(set, meta_at) : NULL;
    if (rc == CLI_OK && !mo) rc = CLI_ERROR;
    if (mo) {
        bool ok = write_meta(mo, name, &m);
        if (!files_set_close(set, meta_at, mo) || !ok) rc = CLI_ERROR;
    }
    if (rc == CLI_OK && !files_set_commit(set)) rc = CLI_ERROR;
    files_set_free(set);
    if (rc != CLI_OK && made) rmdir(o->file); /* as it was: absent */
    free(name);
    meta_free(&m);
    return rc;
}
