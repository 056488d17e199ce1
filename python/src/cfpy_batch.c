/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfpy_batch.c -- update() and contains_many(): many keys per call.
 *
 * Keys are read from the iterable in chunks, with the GIL held (reading them
 * may run Python code).  Each chunk keeps its keys alive (a reference, an
 * int's 8 bytes, a buffer view), then the GIL is released while the library
 * hashes the chunk and runs its batched insert or lookup, which keeps many
 * memory reads in flight:
 *
 *   iterable ──GIL held──► [span span span ...] ──GIL released──► for each 2,048:
 *                                                                   hashes ──► cf_*_batch
 *
 * With hashes=True the argument is a buffer of 64-bit hashes (as returned by
 * CuckooFilter.hash), handed to the library as is, in runs of CFPY_RUN.
 *
 * Between chunks (and runs) the thread takes pending signals
 * (PyErr_CheckSignals), so Ctrl-C stops a long call: the keys of the
 * chunks done stay inserted, in order, a prefix of the argument.
 *
 * BloomFilter's update() and contains_many() read keys the same way but
 * keep the GIL: a Bloom filter has no lock of its own, and its adds are
 * too cheap per key for the release to pay.
 */
#include "cfpy.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

/* Keys per chunk, at most: the GIL is released once per chunk, and taking
 * it back costs up to the interpreter's switch interval (5 ms) when another
 * thread is busy, so chunks are long (2,048-key chunks made a busy thread
 * beside update() cost 3-5x).  Not longer: the keys' bytes are read twice
 * (with the GIL, then hashed without it) and must mostly still be in cache
 * (262,144-key chunks cost 20-40% more CPU per key than 65,536).  A chunk's
 * arrays take 33 bytes a key: a call with fewer keys (len() or
 * __length_hint__) gets arrays of its size, and one whose length is unknown
 * starts at CFPY_CHUNK_FIRST keys and grows 4x per chunk. */
#define CFPY_CHUNK 65536
#define CFPY_CHUNK_FIRST 4096
/* Keys per chunk, at most, once taking the GIL back after a chunk took
 * longer than CFPY_CONTENDED_NS: another thread held it, and will again.
 * Each such hand-back costs about a switch interval, so the chunks grow
 * (4x per chunk) until their work without the GIL outlasts it: with
 * 65,536 keys (2-3 ms) a thread spinning in Python code made update() 3x
 * slower, with 1,048,576 keys under 2x (docs/BENCHMARKS.md, "Python
 * package").  Not from the start: such chunks cost 20-50% more CPU per key
 * (their 33 bytes a key leave the cache), a price only paid while the GIL
 * is contended. */
#define CFPY_CHUNK_CONTENDED 1048576
#define CFPY_CONTENDED_NS 1000000
/* Keys hashed and handed to the library at a time within a chunk (with the
 * GIL released all along): their hashes stay in the L1 cache between the
 * hashing and the batched insert or lookup. */
#define CFPY_SUB 2048
/* Hashes per run with hashes=True (8 bytes each, read in place). */
#define CFPY_RUN (1u << 20)

typedef struct chunk {
    size_t n, cap;
    const void **ptr;
    size_t *len;
    uint64_t hash[CFPY_SUB]; /* of the sub-chunk being run */
    unsigned char (*word)[8];
    PyObject **owner;
    bool *found;
    Py_buffer *views; /* allocated for the first buffer key */
    size_t nviews;
} chunk;

static void chunk_release(chunk *c) {
    for (size_t i = 0; i < c->n; i++) Py_XDECREF(c->owner[i]);
    for (size_t i = 0; i < c->nviews; i++) PyBuffer_Release(&c->views[i]);
    c->n = 0;
    c->nviews = 0;
}

static void chunk_free(chunk *c) {
    PyMem_Free(c->ptr);
    PyMem_Free(c->len);
    PyMem_Free(c->word);
    PyMem_Free(c->owner);
    PyMem_Free(c->found);
    PyMem_Free(c->views);
}

/* Arrays for cap keys; 0, or -1 with MemoryError. */
static int chunk_init(chunk *c, size_t cap) {
    c->n = c->nviews = 0;
    c->ptr = NULL;
    c->len = NULL;
    c->word = NULL;
    c->owner = NULL;
    c->found = NULL;
    c->views = NULL;
    c->cap = cap;
    c->ptr = PyMem_Malloc(cap * sizeof *c->ptr);
    c->len = PyMem_Malloc(cap * sizeof *c->len);
    c->word = PyMem_Malloc(cap * sizeof *c->word);
    c->owner = PyMem_Malloc(cap * sizeof *c->owner);
    c->found = PyMem_Malloc(cap * sizeof *c->found);
    if (c->ptr && c->len && c->word && c->owner && c->found) return 0;
    chunk_free(c);
    PyErr_NoMemory();
    return -1;
}

/* Adds the key obj (after key_func, if any; obj is a new reference, which
 * this takes) to c; 0, or -1 with an exception. */
static int chunk_push(chunk *c, PyObject *key_func, PyObject *obj) {
    PyObject *key = obj;
    if (key_func != NULL) {
        key = cfpy_key_apply(key_func, obj);
        Py_DECREF(obj);
        if (key == NULL) return -1;
    }
    cfpy_key k;
    if (cfpy_key_get(key, &k) < 0) {
        Py_DECREF(key);
        return -1;
    }
    size_t i = c->n;
    if (k.ptr == k.word) {
        /* An int's 8 bytes are copied: the object can go now, while it is
         * in the cache (releasing a chunk's ints after the library's work
         * missed it: 65,536 objects spread over the heap). */
        memcpy(c->word[i], k.word, 8);
        k.ptr = c->word[i];
        Py_DECREF(key);
        key = NULL;
    } else if (k.view.obj != NULL) {
        if (c->views == NULL) c->views = PyMem_Malloc(c->cap * sizeof(Py_buffer));
        if (c->views == NULL) {
            cfpy_key_release(&k);
            Py_DECREF(key);
            PyErr_NoMemory();
            return -1;
        }
        c->views[c->nviews++] = k.view;
    }
    c->ptr[i] = k.ptr;
    c->len[i] = k.len;
    c->owner[i] = key; /* keeps the bytes alive (NULL: copied) */
    c->n = i + 1;
    return 0;
}

/* Where a call's keys come from: a list or tuple read in place by index
 * (no iterator: PyIter_Next per key was a tenth of contains_many's time
 * over 1M ints), or any other iterable's iterator. */
typedef struct source {
    PyObject *seq; /* an exact list or tuple, else NULL */
    Py_ssize_t at; /* the next index in seq */
    PyObject *it;  /* the iterator when seq is NULL */
} source;

/* The next key (a new reference), or NULL at the end or with an exception.
 * A list is read by index with its size checked each time: a key function,
 * or another thread between chunks, may change it (the list iterator does
 * the same). */
static PyObject *source_next(source *src) {
    if (src->seq == NULL) return PyIter_Next(src->it);
    if (PyList_CheckExact(src->seq)) {
        if (src->at >= PyList_GET_SIZE(src->seq)) return NULL;
        return Py_NewRef(PyList_GET_ITEM(src->seq, src->at++));
    }
    if (src->at >= PyTuple_GET_SIZE(src->seq)) return NULL;
    return Py_NewRef(PyTuple_GET_ITEM(src->seq, src->at++));
}

/* Reads up to c->cap keys; returns how many, or -1 with an exception.
 * c is empty on entry. */
static Py_ssize_t chunk_fill(chunk *c, PyObject *key_func, source *src) {
    while (c->n < c->cap) {
        PyObject *obj = source_next(src);
        if (obj == NULL) break;
        if (chunk_push(c, key_func, obj) < 0) return -1;
    }
    if (PyErr_Occurred()) return -1;
    return (Py_ssize_t)c->n;
}

/* ---------------------------------------------------------- hash buffers */

/* A buffer of uint64 hashes, 8-byte aligned (copied when it is not). */
typedef struct hashes {
    Py_buffer view;
    const uint64_t *h;
    size_t n;
    void *copy;
} hashes;

static bool is_u64_format(const Py_buffer *v) {
    const char *fmt = v->format != NULL && v->format[0] != '\0' ? v->format : "B";
    char code = fmt[strlen(fmt) - 1];
    if (v->itemsize == 1) return strchr("Bbc", code) != NULL;
    if (v->itemsize != 8) return false;
    if (fmt[0] == '>' || fmt[0] == '!') return false; /* big-endian: not the machine's order */
    return strchr("QqLlNn", code) != NULL;
}

static int hashes_get(PyObject *obj, hashes *hs) {
    hs->copy = NULL;
    if (PyObject_GetBuffer(obj, &hs->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    if (!is_u64_format(&hs->view) || hs->view.len % 8 != 0) {
        PyBuffer_Release(&hs->view);
        PyErr_SetString(PyExc_TypeError, "hashes=True needs a contiguous buffer of 64-bit integers "
                                         "(e.g. array('Q'), or bytes of a multiple of 8)");
        return -1;
    }
    hs->n = (size_t)hs->view.len / 8;
    hs->h = hs->view.buf;
    if ((uintptr_t)hs->view.buf % _Alignof(uint64_t) != 0) {
        hs->copy = PyMem_RawMalloc((size_t)hs->view.len);
        if (hs->copy == NULL) {
            PyBuffer_Release(&hs->view);
            PyErr_NoMemory();
            return -1;
        }
        memcpy(hs->copy, hs->view.buf, (size_t)hs->view.len);
        hs->h = hs->copy;
    }
    return 0;
}

static void hashes_release(hashes *hs) {
    PyMem_RawFree(hs->copy);
    PyBuffer_Release(&hs->view);
}

/* ------------------------------------------------------------ one batch */

static PyObject *raise_full(cf_status s, size_t inserted, const char *detail) {
    cfpy_raise(s, CFPY_WRITE, detail, 0, NULL);
    if (s != CF_E_FULL) return NULL;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *n = PyLong_FromSize_t(inserted);
    if (n == NULL || PyObject_SetAttrString(value, "inserted", n) < 0) {
        Py_XDECREF(n);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return NULL;
    }
    Py_DECREF(n);
    PyErr_Restore(type, value, tb);
    return NULL;
}

/* One call of update() or contains_many(), on a CuckooFilter (filter) or a
 * BloomFilter (bloom): the batched insert or lookup, run on each run of
 * hashes its argument gives (a chunk of keys, or a run of the buffer with
 * hashes=True). */
typedef struct batch {
    cfpy_filter *filter;
    cfpy_bloom *bloom;
    bool lookup;     /* contains_many(), else update() */
    size_t inserted; /* update(): the keys of this call that went in */
    /* contains_many(): every answer so far, a byte each (the list is made
     * once, at the end: appending to it run by run cost 4% of the call). */
    bool *answers;
    size_t nanswers, answers_cap;
    bool contended; /* taking the GIL back after a run waited for another thread */
} batch;

/* CLOCK_MONOTONIC in nanoseconds. */
static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Adds n lookup answers to b's. */
static int add_answers(batch *b, const bool *found, size_t n) {
    if (n == 0) return 0;
    if (n > b->answers_cap - b->nanswers) {
        size_t cap = b->answers_cap ? b->answers_cap : 1;
        while (cap - b->nanswers < n) cap *= 2;
        bool *grown = PyMem_Realloc(b->answers, cap * sizeof(bool));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        b->answers = grown;
        b->answers_cap = cap;
    }
    memcpy(b->answers + b->nanswers, found, n * sizeof(bool));
    b->nanswers += n;
    return 0;
}

/* contains_many()'s list of b's answers, and b's buffer freed (also when
 * failed is set: then NULL). */
static PyObject *answers_list(batch *b, bool failed) {
    PyObject *list = failed ? NULL : PyList_New((Py_ssize_t)b->nanswers);
    if (list != NULL)
        for (size_t i = 0; i < b->nanswers; i++)
            PyList_SET_ITEM(list, (Py_ssize_t)i, Py_NewRef(b->answers[i] ? Py_True : Py_False));
    PyMem_Free(b->answers);
    b->answers = NULL;
    return list;
}

/* The library's part of a run, with the GIL released (and, for a mapped
 * filter, under cfpy_guarded: a lookup is all a mapped filter allows). */
typedef struct run_call {
    const cf_filter *f;
    chunk *c;
    const uint64_t *h;
    size_t n;
    bool *found;
    cf_status s;
    size_t inserted;
    bool lookup;
} run_call;

static void do_run(void *p) {
    run_call *r = p;
    chunk *c = r->c;
    if (c == NULL) { /* hashes=True */
        if (r->lookup)
            cf_contains_batch(r->f, r->h, r->n, r->found);
        else
            r->s = cf_insert_batch((cf_filter *)r->f, r->h, r->n, &r->inserted);
        return;
    }
    for (size_t at = 0; at < c->n; at += CFPY_SUB) {
        size_t n = c->n - at < CFPY_SUB ? c->n - at : CFPY_SUB, done = 0;
        for (size_t i = 0; i < n; i++) c->hash[i] = cf_hash(r->f, c->ptr[at + i], c->len[at + i]);
        if (r->lookup) {
            cf_contains_batch(r->f, c->hash, n, r->found + at);
            continue;
        }
        r->s = cf_insert_batch((cf_filter *)r->f, c->hash, n, &done);
        r->inserted += done;
        if (r->s != CF_OK) return;
    }
}

/* A Bloom filter's run, with the GIL held (under cfpy_guarded_map for a
 * mapped one, whose adds the library refuses: s). */
typedef struct bloom_call {
    cf_bloom *bl;
    bool lookup;
    chunk *c;
    const uint64_t *h;
    size_t n;
    bool *found;
    cf_status s;
} bloom_call;

static void bloom_run(void *p) {
    bloom_call *r = p;
    for (size_t i = 0; i < r->n; i++) {
        uint64_t x = r->c != NULL ? cf_bloom_hash(r->bl, r->c->ptr[i], r->c->len[i]) : r->h[i];
        if (r->lookup)
            r->found[i] = cf_bloom_contains_hash(r->bl, x);
        else if ((r->s = cf_bloom_insert_hash(r->bl, x)) != CF_OK)
            return;
    }
}

/* Runs b on c's n keys (c not NULL), or on the hashes h[0..n), then
 * records the outcome; found has room for n answers when b is a lookup.  Returns 0, or -1 with an exception (FilterFullError carrying
 * b->inserted; OSError for a mapped file that shrank). */
static int batch_run(batch *b, chunk *c, const uint64_t *h, size_t n, bool *found) {
    if (b->bloom != NULL) {
        cfpy_bloom *bloom = b->bloom;
        if (cfpy_bloom_check_open(bloom) < 0) return -1; /* a key function may have closed it */
        bloom_call r = {bloom->b, b->lookup, c, h, n, found, CF_OK};
        if (cfpy_guarded_map(bloom->mapped, bloom_run, &r) < 0) {
            cfpy_raise_sigbus_map(bloom->mapped);
            return -1;
        }
        if (r.s != CF_OK) {
            cfpy_raise(r.s, CFPY_WRITE, NULL, 0, NULL);
            return -1;
        }
        return b->lookup ? add_answers(b, found, n) : 0;
    }
    cfpy_filter *self = b->filter;
    run_call r = {.c = c, .h = h, .n = n, .found = found, .s = CF_OK, .lookup = b->lookup};
    int bad = 0;
    cfpy_lock_begin(self);
    if (self->f == NULL) { /* closed while this thread waited for the lock */
        cfpy_lock_end(self);
        return cfpy_check_open(self);
    }
    r.f = self->f;
    uint64_t asked = 0;
    Py_BEGIN_ALLOW_THREADS bad = cfpy_guarded(self, do_run, &r);
    asked = now_ns();
    Py_END_ALLOW_THREADS if (now_ns() - asked > CFPY_CONTENDED_NS) b->contended = true;
    /* Why the run stopped, read while the filter is still this thread's:
     * the failing key is the run's r.inserted-th (a chunk hashes its keys
     * CFPY_SUB at a time, and every sub-run before the failing one went in
     * whole). */
    char buf[256];
    const char *detail = NULL;
    if (!bad && r.s == CF_E_FULL) {
        uint64_t failed = c != NULL ? c->hash[r.inserted % CFPY_SUB] : h[r.inserted];
        detail = cfpy_full_detail(self->f, failed, buf, sizeof buf);
    }
    cfpy_lock_end(self);
    if (bad) {
        cfpy_raise_sigbus(self);
        return -1;
    }
    if (b->lookup) return add_answers(b, found, n);
    b->inserted += r.inserted;
    if (r.s != CF_OK) {
        raise_full(r.s, b->inserted, detail);
        return -1;
    }
    return 0;
}

/* hashes=True: the buffer, in runs of CFPY_RUN, with signals taken between. */
static int batch_hashes(batch *b, PyObject *obj) {
    hashes hs;
    if (hashes_get(obj, &hs) < 0) return -1;
    bool *found = NULL;
    int r = 0;
    size_t most = hs.n < CFPY_RUN ? hs.n : CFPY_RUN;
    if (b->lookup && (found = PyMem_RawMalloc(most ? most * sizeof(bool) : 1)) == NULL) {
        PyErr_NoMemory();
        r = -1;
    }
    size_t at = 0;
    if (r == 0) do { /* once at least: an empty buffer still gives [] */
            size_t n = hs.n - at < most ? hs.n - at : most;
            r = batch_run(b, NULL, hs.h + at, n, found);
            at += n;
            if (r == 0 && at < hs.n) r = PyErr_CheckSignals();
        } while (r == 0 && at < hs.n);
    PyMem_RawFree(found);
    hashes_release(&hs);
    return r;
}

/* Keys: each chunk read from iterable is a run.  A str or bytes-like
 * argument is refused rather than iterated: it is one key (or a buffer of
 * hashes without hashes=True), not characters or ints. */
static int batch_keys(batch *b, PyObject *iterable, PyObject *key_func) {
    if (PyUnicode_Check(iterable) || PyBytes_Check(iterable) || PyByteArray_Check(iterable) ||
        PyMemoryView_Check(iterable)) {
        PyErr_Format(PyExc_TypeError,
                     "expected an iterable of keys, not %.100s (one key: add() or `in`; "
                     "a buffer of hashes: hashes=True)",
                     Py_TYPE(iterable)->tp_name);
        return -1;
    }
    Py_ssize_t hint = PyObject_LengthHint(iterable, CFPY_CHUNK_FIRST);
    if (hint < 0) return -1;
    source src = {NULL, 0, NULL};
    if (PyList_CheckExact(iterable) || PyTuple_CheckExact(iterable))
        src.seq = Py_NewRef(iterable);
    else if ((src.it = PyObject_GetIter(iterable)) == NULL)
        return -1;
    PyObject *it = src.seq != NULL ? src.seq : src.it; /* the reference to drop */
    chunk c;
    if (chunk_init(&c, hint < 16 ? 16 : hint < CFPY_CHUNK ? (size_t)hint : CFPY_CHUNK) < 0) {
        Py_DECREF(it);
        return -1;
    }
    int r = 0;
    for (;;) {
        Py_ssize_t n = chunk_fill(&c, key_func, &src);
        if (n > 0) r = batch_run(b, &c, NULL, c.n, c.found);
        chunk_release(&c);
        if (n < 0) r = -1;
        if (r < 0 || (size_t)n < c.cap) break;
        if (PyErr_CheckSignals() < 0) { /* Ctrl-C: the chunks so far stay inserted */
            r = -1;
            break;
        }
        /* More keys than the hint said, or a contended GIL: longer chunks. */
        size_t most = b->contended ? CFPY_CHUNK_CONTENDED : CFPY_CHUNK;
        if (c.cap < most) {
            size_t cap = c.cap * 4 < most ? c.cap * 4 : most;
            chunk_free(&c);
            if (chunk_init(&c, cap) < 0) {
                Py_DECREF(it);
                return -1;
            }
        }
    }
    chunk_free(&c);
    Py_DECREF(it);
    return r;
}

/* update() and contains_many(): (keys, /, *, hashes=False), format naming
 * the method.  Returns 0, or -1 with an exception. */
static int batch_call(cfpy_filter *self, PyObject *args, PyObject *kw, const char *format,
                      batch *b) {
    static char *kwlist[] = {"", "hashes", NULL};
    PyObject *keys;
    int use_hashes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, format, kwlist, &keys, &use_hashes)) return -1;
    if (cfpy_check_open(self) < 0 || cfpy_clock_sync(self) < 0) return -1;
    b->filter = self;
    return use_hashes ? batch_hashes(b, keys) : batch_keys(b, keys, self->key_func);
}

/* ----------------------------------------------------------------- update */

const char cfpy_doc_update[] =
    "update($self, keys, /, *, hashes=False)\n--\n\n"
    "Add every key of the iterable keys, in order (like add() on each).\n\n"
    "The GIL is released while the library hashes and inserts each chunk of\n"
    "keys (up to 65,536; up to 1,048,576 once another thread was seen waiting\n"
    "for the GIL), with its batched insert.  If the filter fills,\n"
    "FilterFullError is raised: its `inserted` attribute counts the keys of\n"
    "this call that went in (all those before the failing key), and the\n"
    "failing key and later ones were not inserted.  A key of the wrong type\n"
    "raises TypeError; the keys before its chunk were inserted.  A str or\n"
    "bytes argument is refused (it is one key, not an iterable of keys).\n\n"
    "Interrupted (Ctrl-C: KeyboardInterrupt, or another signal handler's\n"
    "exception, taken between chunks), the keys before some point stay\n"
    "inserted: a prefix of keys, in order, and none after it.\n\n"
    "hashes=True: keys is a buffer of 64-bit hashes (array('Q'), bytes, ...)\n"
    "as returned by hash(), inserted as they are.";

PyObject *cfpy_filter_update(cfpy_filter *self, PyObject *args, PyObject *kw) {
    batch b = {.lookup = false};
    if (batch_call(self, args, kw, "O|$p:update", &b) < 0) return NULL;
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------- contains_many */

const char cfpy_doc_contains_many[] =
    "contains_many($self, keys, /, *, hashes=False)\n--\n\n"
    "[key in self for key in keys], computed with the library's batched lookup\n"
    "(many memory reads in flight) while the GIL is released.  Ctrl-C is taken\n"
    "between chunks.\n\n"
    "hashes=True: keys is a buffer of 64-bit hashes (array('Q'), bytes, ...)\n"
    "as returned by hash(); lets one hashing serve several filters sharing a\n"
    "seed.";

PyObject *cfpy_filter_contains_many(cfpy_filter *self, PyObject *args, PyObject *kw) {
    batch b = {.lookup = true};
    int r = batch_call(self, args, kw, "O|$p:contains_many", &b);
    return answers_list(&b, r < 0);
}

/* ------------------------------------------------------------ BloomFilter */

const char cfpy_doc_bloom_update[] =
    "update($self, keys, /)\n--\n\n"
    "Add every key of the iterable keys, in order (like add() on each).  Runs\n"
    "with the GIL held; Ctrl-C is taken between chunks of keys (the keys before\n"
    "stay added).  Raises ReadOnlyError on a mapped filter.";

PyObject *cfpy_bloom_update(cfpy_bloom *self, PyObject *keys) {
    batch b = {.bloom = self, .lookup = false};
    if (cfpy_bloom_check_open(self) < 0 || batch_keys(&b, keys, self->key_func) < 0) return NULL;
    Py_RETURN_NONE;
}

const char cfpy_doc_bloom_contains_many[] = "contains_many($self, keys, /)\n--\n\n"
                                            "[key in self for key in keys], with the GIL held.";

PyObject *cfpy_bloom_contains_many(cfpy_bloom *self, PyObject *keys) {
    batch b = {.bloom = self, .lookup = true};
    int r = cfpy_bloom_check_open(self) < 0 ? -1 : batch_keys(&b, keys, self->key_func);
    return answers_list(&b, r < 0);
}
