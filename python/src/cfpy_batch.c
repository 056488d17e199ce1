/*
 * cfpy_batch.c -- update() and contains_many(): many keys per call.
 *
 * Keys are read from the iterable in chunks, with the GIL held (reading them
 * may run Python code).  Each chunk keeps its keys alive (a reference, an
 * int's 8 bytes, a buffer view), then the GIL is released while the library
 * hashes the chunk and runs its batched insert or lookup, which keeps many
 * memory reads in flight:
 *
 *   iterable ──GIL held──► [span span span ...] ──GIL released──► hashes ──► cf_*_batch
 *
 * With hashes=True the argument is a buffer of 64-bit hashes (as returned by
 * CuckooFilter.hash), handed to the library as is.
 */
#include "cfpy.h"

#include <stdint.h>
#include <string.h>

/* Keys per chunk: large enough that releasing the GIL is noise beside the
 * work, small enough that the chunk's arrays stay in cache. */
#define CFPY_CHUNK 2048

typedef struct chunk {
    size_t n;
    const void *ptr[CFPY_CHUNK];
    size_t len[CFPY_CHUNK];
    uint64_t hash[CFPY_CHUNK];
    unsigned char word[CFPY_CHUNK][8];
    PyObject *owner[CFPY_CHUNK];
    Py_buffer *views; /* allocated for the first buffer key */
    size_t nviews;
    bool found[CFPY_CHUNK];
} chunk;

static void chunk_release(chunk *c) {
    for (size_t i = 0; i < c->n; i++) Py_DECREF(c->owner[i]);
    for (size_t i = 0; i < c->nviews; i++) PyBuffer_Release(&c->views[i]);
    c->n = 0;
    c->nviews = 0;
}

static int chunk_push(chunk *c, PyObject *obj) {
    cfpy_key k;
    if (cfpy_key_get(obj, &k) < 0) return -1;
    size_t i = c->n;
    if (k.ptr == k.word) {
        memcpy(c->word[i], k.word, 8);
        k.ptr = c->word[i];
    } else if (k.view.obj != NULL) {
        if (c->views == NULL) c->views = PyMem_Malloc(CFPY_CHUNK * sizeof(Py_buffer));
        if (c->views == NULL) {
            cfpy_key_release(&k);
            PyErr_NoMemory();
            return -1;
        }
        c->views[c->nviews++] = k.view;
    }
    c->ptr[i] = k.ptr;
    c->len[i] = k.len;
    c->owner[i] = Py_NewRef(obj);
    c->n = i + 1;
    return 0;
}

/* Reads up to CFPY_CHUNK keys; returns how many, or -1 with an exception.
 * Steals nothing; c is empty on entry. */
static Py_ssize_t chunk_fill(chunk *c, PyObject *it) {
    while (c->n < CFPY_CHUNK) {
        PyObject *obj = PyIter_Next(it);
        if (obj == NULL) break;
        int r = chunk_push(c, obj);
        Py_DECREF(obj);
        if (r < 0) return -1;
    }
    if (PyErr_Occurred()) return -1;
    return (Py_ssize_t)c->n;
}

static void chunk_hash(const cf_filter *f, chunk *c) {
    for (size_t i = 0; i < c->n; i++) c->hash[i] = cf_hash(f, c->ptr[i], c->len[i]);
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

static PyObject *raise_full(cf_status s, size_t inserted) {
    cfpy_raise(s, CFPY_WRITE, NULL, 0, NULL);
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

/* One call of update() or contains_many(): the library's batched insert or
 * lookup, run on each run of hashes its argument gives (a chunk of keys,
 * or the whole buffer with hashes=True). */
typedef struct batch {
    bool lookup;       /* contains_many(), else update() */
    size_t inserted;   /* update(): the keys of this call that went in */
    PyObject *answers; /* contains_many(): the list so far; NULL before the first run */
} batch;

/* Adds n lookup answers to b's list (made by the first run, of its size). */
static int add_answers(batch *b, const bool *found, size_t n) {
    if (b->answers == NULL) {
        b->answers = PyList_New((Py_ssize_t)n);
        if (b->answers == NULL) return -1;
        for (size_t i = 0; i < n; i++)
            PyList_SET_ITEM(b->answers, (Py_ssize_t)i, Py_NewRef(found[i] ? Py_True : Py_False));
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        if (PyList_Append(b->answers, found[i] ? Py_True : Py_False) < 0) return -1;
    return 0;
}

/* Runs b on h[0..n) (after hashing c's keys into h, when c is not NULL)
 * with the filter locked and the GIL released, then records the outcome;
 * found has room for n answers when b is a lookup.  Returns 0, or -1 with
 * an exception (FilterFullError carrying b->inserted). */
static int batch_run(cfpy_filter *self, batch *b, chunk *c, const uint64_t *h, size_t n,
                     bool *found) {
    size_t inserted = 0;
    cf_status s = CF_OK;
    cfpy_lock_begin(self);
    Py_BEGIN_ALLOW_THREADS if (c != NULL) chunk_hash(self->f, c);
    if (b->lookup)
        cf_contains_batch(self->f, h, n, found);
    else
        s = cf_insert_batch(self->f, h, n, &inserted);
    Py_END_ALLOW_THREADS cfpy_lock_end(self);
    if (b->lookup) return add_answers(b, found, n);
    b->inserted += inserted;
    if (s != CF_OK) {
        raise_full(s, b->inserted);
        return -1;
    }
    return 0;
}

/* hashes=True: the buffer is one run. */
static int batch_hashes(cfpy_filter *self, batch *b, PyObject *obj) {
    hashes hs;
    if (hashes_get(obj, &hs) < 0) return -1;
    bool *found = NULL;
    int r = -1;
    if (b->lookup && (found = PyMem_RawMalloc(hs.n ? hs.n * sizeof(bool) : 1)) == NULL)
        PyErr_NoMemory();
    else
        r = batch_run(self, b, NULL, hs.h, hs.n, found);
    PyMem_RawFree(found);
    hashes_release(&hs);
    return r;
}

/* Keys: each chunk read from iterable is a run.  A str or bytes-like
 * argument is refused rather than iterated: it is one key (or a buffer of
 * hashes without hashes=True), not characters or ints. */
static int batch_keys(cfpy_filter *self, batch *b, PyObject *iterable) {
    if (PyUnicode_Check(iterable) || PyBytes_Check(iterable) || PyByteArray_Check(iterable) ||
        PyMemoryView_Check(iterable)) {
        PyErr_Format(PyExc_TypeError,
                     "expected an iterable of keys, not %.100s (one key: add() or `in`; "
                     "a buffer of hashes: hashes=True)",
                     Py_TYPE(iterable)->tp_name);
        return -1;
    }
    PyObject *it = PyObject_GetIter(iterable);
    if (it == NULL) return -1;
    chunk *c = PyMem_Malloc(sizeof *c);
    if (c == NULL) {
        Py_DECREF(it);
        PyErr_NoMemory();
        return -1;
    }
    c->n = 0;
    c->nviews = 0;
    c->views = NULL;
    int r = 0;
    for (;;) {
        Py_ssize_t n = chunk_fill(c, it);
        if (n > 0) r = batch_run(self, b, c, c->hash, c->n, c->found);
        chunk_release(c);
        if (n < 0) r = -1;
        if (r < 0 || n < CFPY_CHUNK) break;
    }
    PyMem_Free(c->views);
    PyMem_Free(c);
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
    return use_hashes ? batch_hashes(self, b, keys) : batch_keys(self, b, keys);
}

/* ----------------------------------------------------------------- update */

const char cfpy_doc_update[] =
    "update($self, keys, /, *, hashes=False)\n--\n\n"
    "Add every key of the iterable keys, in order (like add() on each).\n\n"
    "The GIL is released while the library hashes and inserts each chunk of\n"
    "keys, with its batched insert.  If the filter fills, FilterFullError is\n"
    "raised: its `inserted` attribute counts the keys of this call that went\n"
    "in (all those before the failing key), and the failing key and later ones\n"
    "were not inserted.  A key of the wrong type raises TypeError; the keys\n"
    "before its chunk were inserted.  A str or bytes argument is refused (it\n"
    "is one key, not an iterable of keys).\n\n"
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
    "(many memory reads in flight) while the GIL is released.\n\n"
    "hashes=True: keys is a buffer of 64-bit hashes (array('Q'), bytes, ...)\n"
    "as returned by hash(); lets one hashing serve several filters sharing a\n"
    "seed.";

PyObject *cfpy_filter_contains_many(cfpy_filter *self, PyObject *args, PyObject *kw) {
    batch b = {.lookup = true};
    if (batch_call(self, args, kw, "O|$p:contains_many", &b) < 0) {
        Py_XDECREF(b.answers);
        return NULL;
    }
    return b.answers != NULL ? b.answers : PyList_New(0);
}
