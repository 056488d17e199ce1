/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * files_batch.c -- keys in batches for the commands that take many of them
 * (build, add, query): parsing overlaps with the filter's work.
 *
 *   reader thread:  read(2) blocks ─► split into keys ─► cf_hash ─┐
 *                                                                 │ ring of
 *   command thread: cf_insert_batch / cf_contains_batch ◄─────────┘ NRING batches
 *
 * The reader owns a batch while it fills it and hands it over whole; the
 * command's thread hands it back when done.  Keys follow files_keys.c's
 * rules exactly (a "\n" or, with -0, a NUL ends a key; one "\r" before the
 * "\n" is dropped; blank lines skipped; an empty last record without its
 * NUL does not count), and every line or record counts for positions.
 *
 * Stopping early (fn returns false, e.g. a full filter in `add`): the
 * reader is told to stop and joined before the call returns, so f is never
 * used after it.  It may be blocked in read(2) on a pipe that never ends;
 * read is the one place where it accepts cancellation.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "files/files.h"

/* Bytes read per block: many keys per read(2), and the text of a batch. */
#define BLOCK_BYTES ((size_t)1 << 20)
/* Batches in flight: one being filled, one being worked on, one spare. */
#define NRING 3

typedef struct slot {
    files_batch b;
    char *text; /* the keys of b point into it */
    size_t cap;
    size_t off[FILES_BATCH_KEYS]; /* where each key starts in text, while filling */
    bool ready;                   /* filled by the reader, not yet handed back */
} slot;

typedef struct reader {
    int fd;
    int delim;
    bool nul;
    const cf_filter *f;
    slot ring[NRING];
    char *carry; /* the unfinished key at the end of the last block */
    size_t carry_len, carry_cap;
    uint64_t position; /* lines or records read */
    bool at_eof;       /* read(2) returned 0: the reader's own */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done, stop;             /* under mu: no batch will follow; the consumer quits */
    int err;                     /* errno of a failed read, else 0 */
    unsigned long long consumed; /* bytes read, for progress */
} reader;

static bool grow(char **buf, size_t *cap, size_t need) {
    if (need <= *cap) return true;
    size_t n = *cap ? *cap : BLOCK_BYTES;
    while (n < need) n *= 2;
    char *p = realloc(*buf, n);
    if (p == NULL) return false;
    *buf = p;
    *cap = n;
    return true;
}

/* Adds the key of one line or record (delimiter already removed) at
 * offset off of the slot's text: offsets, since the text may move while
 * the batch fills (realloc); pointers are set once it is full. */
static void take(reader *r, slot *s, size_t off, size_t len, bool ended) {
    const char *key = s->text + off;
    r->position++;
    if (!r->nul && len > 0 && key[len - 1] == '\r') len--;
    if (len == 0 && (!r->nul || !ended)) return; /* blank line, or nothing after the last NUL */
    files_batch *b = &s->b;
    s->off[b->n] = off;
    b->len[b->n] = len;
    b->pos[b->n] = r->position;
    b->n++;
}

/* Fills s with up to FILES_BATCH_KEYS keys: the unfinished key left by the
 * last batch, then blocks read as needed; what follows the last key taken
 * is kept for the next.  Returns false on a read error (r->err). */
static bool fill(reader *r, slot *s) {
    files_batch *b = &s->b;
    b->n = 0;
    if (!grow(&s->text, &s->cap, r->carry_len + 1)) return r->err = ENOMEM, false;
    if (r->carry_len > 0) memcpy(s->text, r->carry, r->carry_len);
    size_t len = r->carry_len, at = 0;
    r->carry_len = 0;
    for (;;) {
        while (at < len && b->n < FILES_BATCH_KEYS) {
            const char *q = memchr(s->text + at, r->delim, len - at);
            if (q == NULL) break;
            size_t end = (size_t)(q - s->text);
            take(r, s, at, end - at, true);
            at = end + 1;
        }
        if (b->n == FILES_BATCH_KEYS) break;
        if (r->at_eof) {
            if (at < len) take(r, s, at, len - at, false); /* a last key without its end */
            at = len;
            break;
        }
        /* More input: room for a block after what is there (a key longer
         * than the buffer grows it). */
        if (!grow(&s->text, &s->cap, len + BLOCK_BYTES)) return r->err = ENOMEM, false;
        ssize_t got;
        int old;
        pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
        do got = read(r->fd, s->text + len, BLOCK_BYTES);
        while (got < 0 && errno == EINTR);
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
        if (got < 0) return r->err = errno, false;
        __atomic_add_fetch(&r->consumed, (unsigned long long)got, __ATOMIC_RELAXED);
        if (got == 0) r->at_eof = true;
        len += (size_t)got;
    }
    size_t rest = len - at;
    if (rest > 0) {
        if (!grow(&r->carry, &r->carry_cap, rest)) return r->err = ENOMEM, false;
        memcpy(r->carry, s->text + at, rest);
        r->carry_len = rest;
    }
    for (size_t i = 0; i < b->n; i++) {
        b->key[i] = s->text + s->off[i];
        b->hash[i] = cf_hash(r->f, b->key[i], b->len[i]);
    }
    return true;
}

static void *reader_main(void *arg) {
    reader *r = arg;
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    for (unsigned k = 0;; k = (k + 1) % NRING) {
        slot *s = &r->ring[k];
        pthread_mutex_lock(&r->mu);
        while (s->ready && !r->stop) pthread_cond_wait(&r->cv, &r->mu);
        bool stop = r->stop;
        pthread_mutex_unlock(&r->mu);
        if (stop) return NULL;
        bool ok = fill(r, s);
        bool last = !ok || (r->at_eof && r->carry_len == 0);
        pthread_mutex_lock(&r->mu);
        s->ready = ok && s->b.n > 0;
        if (last) r->done = true;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        if (last) return NULL;
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Progress on a terminal: shown once the input has taken a second. */
typedef struct progress {
    bool on, shown;
    double start, last;
    long long size;
} progress;

static void progress_show(progress *p, uint64_t keys, unsigned long long bytes, bool final) {
    double t = now_s();
    if (!p->on || (!final && (t - p->start < 1.0 || t - p->last < 0.25))) return;
    if (final && !p->shown) return;
    p->last = t;
    p->shown = true;
    double rate = (double)keys / (t - p->start > 0 ? t - p->start : 1e-9);
    char n[32];
    cli_thousands(keys, n, sizeof n);
    if (final) {
        fprintf(stderr, "\r%s keys in %.1f s, %.2fM keys/s\033[K\n", n, t - p->start, rate / 1e6);
    } else if (p->size > 0 && bytes > 0 && bytes <= (unsigned long long)p->size) {
        double left =
            (t - p->start) * (double)((unsigned long long)p->size - bytes) / (double)bytes;
        fprintf(stderr, "\r%s keys, %.2fM keys/s, %3d%%, ETA %.0f s\033[K", n, rate / 1e6,
                (int)(100.0 * (double)bytes / (double)p->size), left);
    } else {
        fprintf(stderr, "\r%s keys, %.2fM keys/s\033[K", n, rate / 1e6);
    }
}

/* Keys given as arguments: batches made here, no thread. */
static bool argument_batches(const files_opts *o, const cf_filter *f, files_batch_fn fn,
                             void *ctx) {
    files_batch *b = malloc(sizeof *b);
    if (b == NULL) return cli_error("out of memory"), false;
    bool go = true;
    for (int i = 0; i < o->nkeys && go;) {
        b->n = 0;
        for (; i < o->nkeys && b->n < FILES_BATCH_KEYS; i++) {
            b->key[b->n] = o->keys[i];
            b->len[b->n] = strlen(o->keys[i]);
            b->hash[b->n] = cf_hash(f, b->key[b->n], b->len[b->n]);
            b->pos[b->n] = (uint64_t)i + 1;
            b->n++;
        }
        go = fn(ctx, b);
    }
    free(b);
    return true;
}

static void reader_free(reader *r) {
    for (unsigned k = 0; k < NRING; k++) free(r->ring[k].text);
    free(r->carry);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    free(r);
}

bool files_for_each_batch(const files_opts *o, const cf_filter *f, files_batch_fn fn, void *ctx) {
    if (o->nkeys > 0) return argument_batches(o, f, fn, ctx);
    long long size;
    FILE *in = files_keys_stream(o, &size);
    if (in == NULL) return false;
    reader *r = calloc(1, sizeof *r);
    if (r == NULL) return cli_error("out of memory"), false;
    r->fd = fileno(in);
    r->nul = o->nul;
    r->delim = o->nul ? '\0' : '\n';
    r->f = f;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    pthread_t th;
    if (pthread_create(&th, NULL, reader_main, r) != 0) {
        reader_free(r);
        return cli_error("cannot start the key reader thread"), false;
    }
    progress pr = {isatty(STDERR_FILENO), false, now_s(), 0, size};
    uint64_t keys = 0;
    bool go = true;
    for (unsigned k = 0; go; k = (k + 1) % NRING) {
        slot *s = &r->ring[k];
        pthread_mutex_lock(&r->mu);
        while (!s->ready && !r->done) pthread_cond_wait(&r->cv, &r->mu);
        bool ready = s->ready;
        pthread_mutex_unlock(&r->mu);
        if (!ready) break; /* the end (or a read error) */
        go = fn(ctx, &s->b);
        keys += s->b.n;
        progress_show(&pr, keys, __atomic_load_n(&r->consumed, __ATOMIC_RELAXED), false);
        pthread_mutex_lock(&r->mu);
        s->ready = false;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
    }
    /* Stopped early or done: the reader ends before f can go away. */
    pthread_mutex_lock(&r->mu);
    r->stop = true;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    if (!go) pthread_cancel(th); /* it may be blocked in read(2) on a pipe */
    pthread_join(th, NULL);
    progress_show(&pr, keys, 0, true);
    int err = r->err;
    reader_free(r);
    if (err != 0 && go) {
        files_keys_stream_error(o, err);
        return false;
    }
    return true;
}
