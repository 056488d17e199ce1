/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * redis_io.c -- what `cuckoo export | import` (cmd_export.c, cmd_import.c)
 * share: filter files to and from the
 * Redis module's dump stream (redis/dump/cf_redis_dump.h), so a filter built
 * offline can be served by Redis and a key can come back as a file.
 *
 *   cuckoo export f.cf KEY | redis-cli --pipe      file  -> CF.LOADCHUNK commands
 *   cuckoo import f.cf < stream                      CF.LOADCHUNK commands -> file
 *
 * The stream is Redis protocol (RESP): one `CF.LOADCHUNK key iterator bytes`
 * command per chunk, the header first, exactly what the module's AOF rewrite
 * writes and what a client replaying CF.SCANDUMP's replies sends.  export
 * reads the table in chunks (cf_serialize_range) and never holds a second
 * copy; import validates the header before trusting a size, grows its buffer
 * with the bytes that actually arrive, and validates the filter
 * (cf_deserialize) before writing the file atomically (cf_save).
 *
 * A key is one filter, grown or not, as a file is (dump version 2): both
 * directions carry it whole.  Only dumps of earlier modules (version 1) can
 * hold several sub-filters; import refuses those.  The key's own fields
 * (EXPANSION, items deleted, the exhausted mark) have no place in a file;
 * export writes EXPANSION as given (default 1; a grown file's own growth,
 * 2 for one that grows in place, which the module loads as a GROWTH
 * INPLACE key) and none deleted.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cf_redis_dump.h"
#include "cli/cli.h"
#include "cuckoofilter.h"
#include "files/files.h"
#include "redis_io/redis_io.h"

#define IO_MAX_BODY ((uint64_t)1 << 39)

/* ---------------------------------------------------------------- export */

static bool put_bulk(FILE *out, const void *p, size_t n) {
    return fprintf(out, "$%zu\r\n", n) > 0 && fwrite(p, 1, n, out) == n && fputs("\r\n", out) >= 0;
}

/* One `CF.LOADCHUNK key it bytes` command. */
static bool put_loadchunk(FILE *out, const char *key, long long it, const void *p, size_t n) {
    char num[24];
    int k = snprintf(num, sizeof num, "%lld", it);
    return fputs("*4\r\n", out) >= 0 && put_bulk(out, "CF.LOADCHUNK", 12) &&
           put_bulk(out, key, strlen(key)) && put_bulk(out, num, (size_t)k) && put_bulk(out, p, n);
}

/* Writes f's dump to out.  A failed write stops it and stays in out's error
 * flag, for one message from the caller (the --output check, or cli_finish
 * for stdout). */
int redis_io_export_filter(const cf_filter *f, const char *key, uint32_t expansion, size_t chunk,
                           FILE *out) {
    uint64_t len = cf_serialized_size(f), flags = 0;
    cf_stats first;
    cf_table_stats(f, 0, &first);
    cfr_dump_fields d = {1, expansion, 0, first.slots, 0, 0, CFR_DUMP_VERSION};
    uint8_t header[CFR_DUMP_FIXED + CFR_DUMP_PER_SUB + 8];
    cfr_dump_header_write(header, &d, &len, &flags);
    if (!put_loadchunk(out, key, cfr_iter_tag(0, 1), header, sizeof header)) return CLI_ERROR;
    uint8_t *buf = malloc(chunk);
    if (!buf) return cli_error("export: out of memory");
    uint64_t at = 0;
    while (at < len) {
        size_t n = len - at < chunk ? (size_t)(len - at) : chunk;
        cf_status s = cf_serialize_range(f, at, buf, n);
        if (s != CF_OK) {
            free(buf);
            return cli_error("export: %s", cf_strerror(s));
        }
        if (!put_loadchunk(out, key, cfr_iter_tag(0, 1 + at + n), buf, n)) break;
        at += n;
    }
    free(buf);
    return at == len ? CLI_OK : CLI_ERROR;
}

/* ---------------------------------------------------------------- import */

/* Reads "<c><decimal>\r\n"; false on anything else. */
bool redis_io_read_prefixed(FILE *in, char c, uint64_t *out) {
    int ch = fgetc(in);
    if (ch != c) return false;
    uint64_t v = 0;
    int digits = 0;
    while ((ch = fgetc(in)) >= '0' && ch <= '9' && digits < 19) {
        v = v * 10 + (uint64_t)(ch - '0');
        digits++;
    }
    if (digits == 0 || ch != '\r' || fgetc(in) != '\n') return false;
    *out = v;
    return true;
}

/* One bulk string, into a new buffer (free it). */
uint8_t *redis_io_read_bulk(FILE *in, size_t *len) {
    uint64_t n;
    if (!redis_io_read_prefixed(in, '$', &n) || n > FILES_MAX_BULK) return NULL;
    uint8_t *p = malloc(n + 1);
    if (!p) return NULL;
    if (fread(p, 1, n, in) != n || fgetc(in) != '\r' || fgetc(in) != '\n') {
        free(p);
        return NULL;
    }
    p[n] = 0;
    *len = (size_t)n;
    return p;
}

typedef struct importer {
    const char *want_key; /* --key, or NULL: the first LOADCHUNK's key */
    char *key;            /* the key being assembled */
    bool have_header;
    uint32_t gen;
    uint64_t body_len;
    uint8_t *body;
    size_t received, cap;
} importer;

/* Appends a body chunk that must end at stream position pos (the header
 * came first: take_chunk checks). */
static int take_body(importer *im, uint64_t pos, const uint8_t *p, size_t n) {
    if (pos - 1 != im->received + n || n > im->body_len - im->received)
        return cli_error("import: chunk out of order at position %llu", (unsigned long long)pos);
    if (im->received + n > im->cap) {
        size_t cap = im->cap ? im->cap : 4096;
        while (cap < im->received + n) cap *= 2;
        if (cap > im->body_len) cap = (size_t)im->body_len;
        uint8_t *b = realloc(im->body, cap);
        if (!b) return cli_error("import: out of memory");
        im->body = b;
        im->cap = cap;
    }
    memcpy(im->body + im->received, p, n);
    im->received += n;
    return CLI_OK;
}

static int take_chunk(importer *im, const char *key, long long it, const uint8_t *p, size_t n) {
    if (im->want_key ? strcmp(key, im->want_key) != 0 : im->key && strcmp(key, im->key) != 0) {
        if (im->want_key) return CLI_OK;
        return cli_error(
            "import: the stream holds several keys ('%s', '%s'); choose one with --key", im->key,
            key);
    }
    if (!im->key && !(im->key = strdup(key))) return cli_error("import: out of memory");
    uint64_t pos = cfr_iter_pos(it);
    if (pos != 1) {
        if (!im->have_header)
            return cli_error("import: a body chunk for '%s' before its header", key);
        if (cfr_iter_gen(it) != im->gen)
            return cli_error("import: the dump was read across a write");
        return take_body(im, pos, p, n);
    }
    if (im->have_header) return cli_error("import: a second header for '%s'", key);
    cfr_dump_fields d;
    if (!cfr_dump_header_read(p, n, IO_MAX_BODY, &d))
        return cli_error("import: '%s' does not start with a valid dump header", key);
    if (d.nsubs != 1)
        return cli_error("import: key '%s' holds %u sub-filters; a file holds one", key, d.nsubs);
    im->have_header = true;
    im->gen = cfr_iter_gen(it);
    im->body_len = d.body_len;
    return CLI_OK;
}

/* Reads every command of the stream, keeping the LOADCHUNK chunks of the key. */
static int read_stream(FILE *in, importer *im) {
    int ch;
    while ((ch = fgetc(in)) != EOF) {
        ungetc(ch, in);
        uint64_t nargs;
        if (!redis_io_read_prefixed(in, '*', &nargs) || nargs == 0 || nargs > 65536)
            return cli_error("import: the input is not a stream of Redis commands");
        uint8_t *args[4] = {NULL, NULL, NULL, NULL};
        size_t lens[4] = {0, 0, 0, 0};
        bool ok = true;
        for (uint64_t i = 0; i < nargs && ok; i++) {
            size_t n;
            uint8_t *a = redis_io_read_bulk(in, &n);
            ok = a != NULL;
            if (ok && i < 4) {
                args[i] = a;
                lens[i] = n;
            } else {
                free(a);
            }
        }
        int rc = ok ? CLI_OK : cli_error("import: truncated or malformed command");
        if (ok && nargs == 4 && strcasecmp((char *)args[0], "CF.LOADCHUNK") == 0) {
            char *end;
            long long it = strtoll((char *)args[2], &end, 10);
            rc = *end || it < 1 || strlen((char *)args[1]) != lens[1]
                     ? cli_error("import: a malformed CF.LOADCHUNK")
                     : take_chunk(im, (char *)args[1], it, args[3], lens[3]);
        }
        for (int i = 0; i < 4; i++) free(args[i]);
        if (rc != CLI_OK) return rc;
    }
    return CLI_OK;
}

/* The key's filter, validated, from the chunks read. */
static int import_filter(const importer *im, cf_filter **out) {
    if (!im->have_header) return cli_error("import: no CF.LOADCHUNK header in the input");
    if (im->received != im->body_len)
        return cli_error("import: the dump ends after %zu of %llu bytes", im->received,
                         (unsigned long long)im->body_len);
    cf_status s = cf_deserialize(im->body, im->received, NULL, out);
    if (s != CF_OK) return cli_error("import: the key's filter is invalid: %s", cf_strerror(s));
    /* A key's clock counts milliseconds and a file's seconds, and a window's
     * stamps do not rescale exactly (a span is the window over the stamps,
     * rounded up, in each unit): refused rather than answered wrongly. */
    cf_stats st;
    if (cf_get_stats(*out, &st) == CF_OK && st.expire_after != 0) {
        cf_free(*out);
        *out = NULL;
        return cli_error("import: the key expires its items in milliseconds, and files count "
                         "seconds: an expiring key cannot become a file yet");
    }
    return CLI_OK;
}

int redis_io_read_key(FILE *in, const char *key, cf_filter **out) {
    importer im = {0};
    im.want_key = key;
    *out = NULL;
    int rc = read_stream(in, &im);
    if (rc == CLI_OK) rc = import_filter(&im, out);
    free(im.key);
    free(im.body);
    return rc;
}

int redis_io_import_key(FILE *in, const char *key, const files_opts *o) {
    cf_filter *f;
    int rc = redis_io_read_key(in, key, &f);
    if (rc == CLI_OK && !files_replace(f, o)) rc = CLI_ERROR; /* locked, checked, as create */
    cf_free(f);
    return rc;
}
