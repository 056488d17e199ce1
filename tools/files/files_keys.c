/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * files_keys.c -- where keys come from: command-line arguments, stdin or a
 * file (--keys FILE, "-" for stdin), one per line or NUL-terminated (-0).
 *
 * Lines: the "\n" ends a key and one "\r" before it is dropped (files from
 * Windows), and blank lines are skipped: a trailing blank line, or one left
 * between paragraphs, must not add the empty key by accident.  The empty
 * key stays reachable as an argument ('') or as an empty record with -0,
 * where every byte is part of the key (no "\r" rule) and each NUL ends one;
 * a last record without its NUL counts unless it is empty.
 *
 * The reader remembers where the current key came from ("line 42299"), so
 * a message about a key can name it, and shows progress on a terminal for
 * inputs of more than PROGRESS_EVERY keys.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "files/files.h"

/* Keys between progress updates: a few updates a second at typical rates. */
#define PROGRESS_EVERY 65536u

static struct {
    const char *unit;  /* "line", "record" or "argument" */
    uint64_t position; /* of the current key, counted from 1 */
    uint64_t keys;     /* keys delivered so far */
    long long size;    /* bytes of a regular input file, for a percentage; else 0 */
    bool progress;     /* stderr is a terminal */
    bool shown;        /* a progress line is on the screen */
    FILE *in;
} src = {"argument", 0, 0, 0, false, false, NULL};

static FILE *open_keys(const files_opts *o) {
    if (o->keys_file == NULL || strcmp(o->keys_file, "-") == 0) return stdin;
    FILE *fp = fopen(o->keys_file, "rb");
    if (fp == NULL) {
        cli_error("--keys %s: %s", o->keys_file, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error("--keys %s: is a directory, not a file of keys", o->keys_file);
        fclose(fp);
        return NULL;
    }
    return fp;
}

static void show_progress(void) {
    long long at = src.size > 0 ? (long long)ftello(src.in) : -1;
    if (at >= 0)
        fprintf(stderr, "\r%llu keys, %3lld%%", (unsigned long long)src.keys, at * 100 / src.size);
    else
        fprintf(stderr, "\r%llu keys", (unsigned long long)src.keys);
    src.shown = true;
}

static bool deliver(files_key_fn fn, void *ctx, const char *key, size_t len) {
    src.keys++;
    if (src.progress && src.keys % PROGRESS_EVERY == 0) show_progress();
    return fn(ctx, key, len);
}

/* Reads the stream; false from fn stops it.  Returns false on a read error. */
static bool read_stream(const files_opts *o, files_key_fn fn, void *ctx) {
    char *rec = NULL;
    size_t cap = 0;
    ssize_t n;
    int delim = o->nul ? '\0' : '\n';
    while ((n = getdelim(&rec, &cap, delim, src.in)) >= 0) {
        size_t len = (size_t)n;
        src.position++;
        bool ended = len > 0 && rec[len - 1] == (char)delim;
        if (ended) len--;
        if (!o->nul && len > 0 && rec[len - 1] == '\r') len--;
        if (len == 0 && (!o->nul || !ended))
            continue; /* blank line, or nothing after the last NUL */
        if (!deliver(fn, ctx, rec, len)) break;
    }
    bool ok = !ferror(src.in);
    if (!ok) {
        const char *name = src.in == stdin ? "stdin" : o->keys_file;
        cli_error("reading keys from %s failed: %s", name, strerror(errno));
    }
    free(rec);
    return ok;
}

/* Opens the key stream once (kept for later calls); NULL after an error. */
static FILE *stream_of(const files_opts *o) {
    if (src.in == NULL) {
        if ((src.in = open_keys(o)) == NULL) return NULL;
        src.unit = o->nul ? "record" : "line";
        src.progress = isatty(STDERR_FILENO);
        struct stat st;
        if (fstat(fileno(src.in), &st) == 0 && S_ISREG(st.st_mode)) src.size = st.st_size;
    }
    return src.in;
}

FILE *files_keys_stream(const files_opts *o, long long *size) {
    FILE *in = stream_of(o);
    *size = src.size;
    return in;
}

void files_keys_stream_error(const files_opts *o, int err) {
    const char *name = src.in == stdin ? "stdin" : o->keys_file;
    cli_error("reading keys from %s failed: %s", name, strerror(err));
}

bool files_for_each_key(const files_opts *o, files_key_fn fn, void *ctx) {
    if (o->nkeys > 0) {
        src.unit = "argument";
        for (int i = 0; i < o->nkeys; i++) {
            src.position = (uint64_t)i + 1;
            if (!deliver(fn, ctx, o->keys[i], strlen(o->keys[i]))) break;
        }
        return true;
    }
    /* Opened on the first call and kept: a caller whose fn stopped early
     * may call again to go on with the rest of the stream. */
    if (stream_of(o) == NULL) return false;
    return read_stream(o, fn, ctx);
}

void files_keys_done(void) {
    if (src.shown) fprintf(stderr, "\r%llu keys        \n", (unsigned long long)src.keys);
    src.shown = false;
    if (src.in != NULL && src.in != stdin) fclose(src.in);
    src.in = NULL;
}

void files_key_where(const char *key, size_t len, char *buf, size_t cap) {
    files_key_where_at(src.position, key, len, buf, cap);
}

void files_key_where_at(uint64_t position, const char *key, size_t len, char *buf, size_t cap) {
    /* Enough of the key to recognise it; bytes a terminal would act on are
     * escaped, so the message stays one line. */
    enum { SHOWN = 40 };
    int w = snprintf(buf, cap, "%s %llu (key '", src.unit, (unsigned long long)position);
    size_t at = w < 0 ? 0 : (size_t)w;
    for (size_t i = 0; i < len && i < SHOWN && at + 8 < cap; i++) {
        unsigned char c = (unsigned char)key[i];
        if (c == '\\' || c == '\'')
            at += (size_t)snprintf(buf + at, cap - at, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            at += (size_t)snprintf(buf + at, cap - at, "\\x%02x", c);
        else
            buf[at++] = (char)c;
    }
    snprintf(buf + at, cap - at, "%s')", len > SHOWN ? "..." : "");
}
