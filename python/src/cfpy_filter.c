/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfpy_filter.c -- the CuckooFilter type: construction from keyword options
 * (cf_config's fields), the single-key calls, statistics.
 *
 * Single-key calls run with the GIL held: a call costs about as much as the
 * interpreter's own dispatch, and releasing the GIL would cost more than
 * the work.  Bulk calls and file I/O (cfpy_batch.c, cfpy_filter_io.c)
 * release it around the library's work, under the object's lock.
 */
#include "cfpy.h"

#include <math.h>

static void *raw_alloc(void *ctx, size_t size) {
    (void)ctx;
    return PyMem_RawMalloc(size);
}

static void raw_free(void *ctx, void *ptr) {
    (void)ctx;
    PyMem_RawFree(ptr);
}

static void *raw_calloc(void *ctx, size_t size) {
    (void)ctx;
    return PyMem_RawCalloc(1, size);
}

/* An in-place filter's doubling grows its table here (realloc(3) under
 * Python's default raw allocator: mremap for large blocks, no copy). */
static void *raw_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
    (void)ctx, (void)old_size;
    return PyMem_RawRealloc(ptr, new_size);
}

const cf_allocator cfpy_allocator = {raw_alloc, raw_free, NULL, raw_calloc, raw_realloc};

/* ----------------------------------------------------------------- locking */

void cfpy_lock_begin(cfpy_filter *o) {
    if (!PyThread_acquire_lock(o->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(o->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
    o->busy = 1;
}

void cfpy_lock_end(cfpy_filter *o) {
    o->busy = 0;
    PyThread_release_lock(o->lock);
}

void cfpy_wait_idle(cfpy_filter *o) {
    /* A loop: another section may begin while this thread waits for the GIL. */
    while (o->busy) {
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(o->lock, WAIT_LOCK);
        PyThread_release_lock(o->lock);
        Py_END_ALLOW_THREADS
    }
}

/* ------------------------------------------------------------ construction */

int cfpy_check_open(cfpy_filter *o) {
    if (o->f != NULL) return 0;
    PyErr_SetString(PyExc_ValueError, "operation on a closed filter (close(), or the end of "
                                      "a `with` block on it, released its table)");
    return -1;
}

PyObject *cfpy_filter_wrap(PyTypeObject *cls, cf_filter *f, PyObject *key_func, PyObject *mapped) {
    cfpy_filter *o = (cfpy_filter *)cls->tp_alloc(cls, 0);
    if (o == NULL) {
        cf_free(f);
        return NULL;
    }
    o->lock = PyThread_allocate_lock();
    if (o->lock == NULL) {
        cf_free(f);
        Py_DECREF(o);
        return PyErr_NoMemory();
    }
    o->f = f;
    o->key_func = Py_XNewRef(key_func);
    o->mapped = Py_XNewRef(mapped);
    cfpy_clock_adopt(o);
    return (PyObject *)o;
}

static PyObject *filter_new(PyTypeObject *cls, PyObject *args, PyObject *kw) {
    PyObject *key_func, *clock;
    cf_filter *f = cfpy_filter_create(args, kw, &key_func, &clock);
    if (f == NULL) return NULL;
    PyObject *o = cfpy_filter_wrap(cls, f, key_func, NULL);
    Py_XDECREF(key_func);
    if (o != NULL) {
        ((cfpy_filter *)o)->clock = clock; /* its reference */
        clock = NULL;
        /* An expiring filter's clock starts now (the CLI's create does too). */
        if (cfpy_clock_sync((cfpy_filter *)o) < 0) Py_CLEAR(o);
    }
    Py_XDECREF(clock);
    return o;
}

static int filter_traverse(cfpy_filter *self, visitproc visit, void *arg) {
    Py_VISIT(self->key_func);
    Py_VISIT(self->clock);
    return 0;
}

static int filter_clear_refs(cfpy_filter *self) {
    Py_CLEAR(self->key_func);
    Py_CLEAR(self->clock);
    return 0;
}

static void filter_dealloc(cfpy_filter *self) {
    PyTypeObject *type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (self->weakrefs != NULL) PyObject_ClearWeakRefs((PyObject *)self);
    cf_free(self->f);
    if (self->lock != NULL) PyThread_free_lock(self->lock);
    Py_CLEAR(self->key_func);
    Py_CLEAR(self->clock);
    Py_CLEAR(self->mapped);
    type->tp_free((PyObject *)self);
}

/* ------------------------------------------------------ reads, guarded */

/* The reads of a mapped filter run under cfpy_guarded (cfpy_guard.c); one
 * struct carries any of them. */
typedef struct read_call {
    const cf_filter *f;
    const void *key;
    size_t len;
    bool in;
    size_t count;
    cf_stats *stats;
} read_call;

static void do_contains(void *p) {
    read_call *r = p;
    r->in = cf_contains(r->f, r->key, r->len);
}

static void do_count(void *p) {
    read_call *r = p;
    r->count = cf_count(r->f, r->key, r->len);
}

static void do_stats(void *p) {
    read_call *r = p;
    cf_get_stats(r->f, r->stats);
}

/* cf_get_stats after any bulk call; 0, or -1 with an exception (closed, or
 * a mapped file that shrank). */
static int get_stats(cfpy_filter *self, cf_stats *st) {
    if (cfpy_check_open(self) < 0 || cfpy_clock_sync(self) < 0) return -1;
    cfpy_wait_idle(self);
    if (cfpy_check_open(self) < 0) return -1;
    read_call r = {.f = self->f, .stats = st};
    if (cfpy_guarded(self, do_stats, &r) < 0) {
        cfpy_raise_sigbus(self);
        return -1;
    }
    return 0;
}

/* -------------------------------------------------------------- single keys */

/* A key as the library sees it: the key= function's result (or the key
 * itself) and its bytes. */
typedef struct one_key {
    PyObject *obj;
    cfpy_key k;
} one_key;

/* The key's bytes, after any bulk call on this filter has ended; 0, or -1
 * with an exception (a bad key, a closed filter). */
static int begin_key(cfpy_filter *self, PyObject *key, one_key *o) {
    if (cfpy_check_open(self) < 0 || cfpy_clock_sync(self) < 0) return -1;
    o->obj = cfpy_key_apply(self->key_func, key);
    if (o->obj == NULL) return -1;
    if (cfpy_key_get(o->obj, &o->k) < 0) {
        Py_DECREF(o->obj);
        return -1;
    }
    cfpy_wait_idle(self);
    if (cfpy_check_open(self) < 0) { /* the key function (or a wait) may have closed it */
        cfpy_key_release(&o->k);
        Py_DECREF(o->obj);
        return -1;
    }
    return 0;
}

static void end_key(one_key *o) {
    cfpy_key_release(&o->k);
    Py_DECREF(o->obj);
}

/* The exception for a failed single-key insert of o (still held). */
static PyObject *raise_insert(cfpy_filter *self, cf_status s, const one_key *o) {
    char buf[256];
    const char *detail =
        s == CF_E_FULL
            ? cfpy_full_detail(self->f, cf_hash(self->f, o->k.ptr, o->k.len), buf, sizeof buf)
            : NULL;
    return cfpy_raise(s, CFPY_WRITE, detail, 0, NULL);
}

static PyObject *filter_add(cfpy_filter *self, PyObject *key) {
    one_key o;
    if (begin_key(self, key, &o) < 0) return NULL;
    cf_status s = cf_insert(self->f, o.k.ptr, o.k.len);
    PyObject *r = s == CF_OK ? NULL : raise_insert(self, s, &o);
    end_key(&o);
    if (s != CF_OK) return r;
    Py_RETURN_NONE;
}

static PyObject *filter_add_unique(cfpy_filter *self, PyObject *key) {
    one_key o;
    if (begin_key(self, key, &o) < 0) return NULL;
    cf_status s = cf_insert_unique(self->f, o.k.ptr, o.k.len);
    PyObject *r = s == CF_OK || s == CF_E_EXISTS ? NULL : raise_insert(self, s, &o);
    end_key(&o);
    if (s == CF_E_EXISTS) Py_RETURN_FALSE;
    if (s != CF_OK) return r;
    Py_RETURN_TRUE;
}

static int filter_contains(cfpy_filter *self, PyObject *key) {
    one_key o;
    if (begin_key(self, key, &o) < 0) return -1;
    read_call r = {.f = self->f, .key = o.k.ptr, .len = o.k.len};
    int bad = cfpy_guarded(self, do_contains, &r);
    end_key(&o);
    if (bad) {
        cfpy_raise_sigbus(self);
        return -1;
    }
    return r.in;
}

static PyObject *filter_count(cfpy_filter *self, PyObject *key) {
    one_key o;
    if (begin_key(self, key, &o) < 0) return NULL;
    read_call r = {.f = self->f, .key = o.k.ptr, .len = o.k.len};
    int bad = cfpy_guarded(self, do_count, &r);
    end_key(&o);
    if (bad) return cfpy_raise_sigbus(self);
    return PyLong_FromSize_t(r.count);
}

/* Deletes one copy; returns the status (CF_E_NOT_FOUND included), or 1
 * when the key could not be read (exception set). */
static int delete_key(cfpy_filter *self, PyObject *key) {
    one_key o;
    if (begin_key(self, key, &o) < 0) return 1;
    cf_status s = cf_delete(self->f, o.k.ptr, o.k.len);
    end_key(&o);
    return s;
}

static PyObject *filter_remove(cfpy_filter *self, PyObject *key) {
    int s = delete_key(self, key);
    if (s == 1) return NULL;
    if (s == CF_E_NOT_FOUND) {
        PyErr_SetObject(PyExc_KeyError, key);
        return NULL;
    }
    if (s != CF_OK) return cfpy_raise(s, CFPY_WRITE, NULL, 0, NULL);
    Py_RETURN_NONE;
}

static PyObject *filter_unsafe_discard(cfpy_filter *self, PyObject *key) {
    int s = delete_key(self, key);
    if (s == 1) return NULL;
    if (s == CF_E_NOT_FOUND) Py_RETURN_FALSE;
    if (s != CF_OK) return cfpy_raise(s, CFPY_WRITE, NULL, 0, NULL);
    Py_RETURN_TRUE;
}

static PyObject *filter_discard(cfpy_filter *self, PyObject *key) {
    if (PyErr_WarnEx(PyExc_DeprecationWarning,
                     "CuckooFilter.discard() is not set.discard(): discarding a key that was never "
                     "added can delete another key's fingerprint (a false negative).  Call "
                     "unsafe_discard() if every key you discard was added, else keep the keys "
                     "elsewhere and remove() only those (see help(CuckooFilter.unsafe_discard))",
                     1) < 0)
        return NULL;
    return filter_unsafe_discard(self, key);
}

static PyObject *filter_hash(cfpy_filter *self, PyObject *key) {
    if (cfpy_check_open(self) < 0) return NULL;
    PyObject *obj = cfpy_key_apply(self->key_func, key);
    if (obj == NULL) return NULL;
    cfpy_key k;
    if (cfpy_key_get(obj, &k) < 0 || cfpy_check_open(self) < 0) {
        Py_DECREF(obj);
        return NULL;
    }
    uint64_t h = cf_hash(self->f, k.ptr, k.len); /* reads only the seed: no wait */
    cfpy_key_release(&k);
    Py_DECREF(obj);
    return PyLong_FromUnsignedLongLong(h);
}

static PyObject *filter_clear(cfpy_filter *self, PyObject *unused) {
    (void)unused;
    if (cfpy_check_open(self) < 0) return NULL;
    cfpy_wait_idle(self);
    if (cfpy_check_open(self) < 0) return NULL;
    cf_status s = cf_clear(self->f);
    if (s != CF_OK) return cfpy_raise(s, CFPY_WRITE, NULL, 0, NULL);
    Py_RETURN_NONE;
}

static Py_ssize_t filter_len(cfpy_filter *self) {
    cf_stats st;
    if (get_stats(self, &st) < 0) return -1;
    return (Py_ssize_t)st.items;
}

static PyObject *filter_stats(cfpy_filter *self, void *closure) {
    (void)closure;
    cf_stats st;
    if (get_stats(self, &st) < 0) return NULL;
    return cfpy_stats_new(&st);
}

static PyObject *filter_read_only(cfpy_filter *self, void *closure) {
    (void)closure;
    cf_stats st;
    if (get_stats(self, &st) < 0) return NULL;
    return PyBool_FromLong(st.read_only);
}

static PyObject *filter_capacity(cfpy_filter *self, void *closure) {
    (void)closure;
    cf_stats st;
    if (get_stats(self, &st) < 0) return NULL;
    return PyLong_FromUnsignedLongLong(
        (unsigned long long)floor((double)st.slots * cf_default_max_load(st.bucket_size)));
}

static PyObject *filter_fpp(cfpy_filter *self, void *closure) {
    (void)closure;
    cf_stats st;
    if (get_stats(self, &st) < 0) return NULL;
    return PyFloat_FromDouble(st.fpp_bound);
}

static PyObject *filter_key(cfpy_filter *self, void *closure) {
    (void)closure;
    return Py_NewRef(self->key_func != NULL ? self->key_func : Py_None);
}

static PyObject *filter_clock(cfpy_filter *self, void *closure) {
    (void)closure;
    return Py_NewRef(self->clock != NULL ? self->clock : Py_None);
}

static int filter_set_clock(cfpy_filter *self, PyObject *value, void *closure) {
    (void)closure;
    if (value == NULL || (value != Py_None && !PyCallable_Check(value))) {
        PyErr_SetString(PyExc_TypeError,
                        "clock must be a function of no arguments returning seconds, or None "
                        "(the wall clock)");
        return -1;
    }
    if (!self->expiring && value != Py_None) {
        PyErr_SetString(PyExc_ValueError,
                        "clock is for a filter whose items expire (CuckooFilter(expire=...))");
        return -1;
    }
    Py_XSETREF(self->clock, value == Py_None ? NULL : Py_NewRef(value));
    return 0;
}

static const char clock_doc[] =
    "An expiring filter's clock: the now= function (seconds since 1970) that\n"
    "every call reads first, or None for the wall clock.  Settable, e.g. on a\n"
    "loaded filter in a test or a simulation; a clock that goes back raises\n"
    "ValueError at the next call.";

static PyObject *filter_closed(cfpy_filter *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(self->f == NULL);
}

static PyObject *filter_close(cfpy_filter *self, PyObject *unused) {
    (void)unused;
    cfpy_wait_idle(self); /* with the GIL held after it, nobody else is using f */
    cf_free(self->f);
    self->f = NULL;
    Py_RETURN_NONE;
}

static PyObject *filter_enter(cfpy_filter *self, PyObject *unused) {
    (void)unused;
    if (cfpy_check_open(self) < 0) return NULL;
    return Py_NewRef(self);
}

static PyObject *filter_exit(cfpy_filter *self, PyObject *args) {
    (void)args;
    return filter_close(self, NULL);
}

static PyObject *filter_repr(cfpy_filter *self) {
    if (self->f == NULL) return PyUnicode_FromFormat("<%s closed>", Py_TYPE(self)->tp_name);
    cf_stats st;
    if (get_stats(self, &st) < 0) return NULL;
    char expiry[64] = "";
    if (st.expire_after != 0)
        PyOS_snprintf(expiry, sizeof expiry, " expire=%llus clock=%llu",
                      (unsigned long long)st.expire_after, (unsigned long long)st.now);
    return PyUnicode_FromFormat("<%s items=%llu slots=%llu fingerprint_bits=%u bucket_size=%u%s%s>",
                                Py_TYPE(self)->tp_name, (unsigned long long)st.items,
                                (unsigned long long)st.slots, st.fingerprint_bits, st.bucket_size,
                                expiry, st.read_only ? " read-only" : "");
}

static PyObject *filter_sizeof(cfpy_filter *self, PyObject *unused) {
    (void)unused;
    cfpy_wait_idle(self); /* an insert may be allocating its eviction scratch */
    return PyLong_FromSize_t((size_t)Py_TYPE(self)->tp_basicsize + cf_memory_usage(self->f));
}

/* ------------------------------------------------------------------- type */

PyDoc_STRVAR(add_doc,
             "add($self, key, /)\n--\n\n"
             "Insert one copy of key.\n\n"
             "Raises FilterFullError when no free slot is reachable within max_kicks, or\n"
             "2 * bucket_size copies of the key already fill both its buckets; the filter\n"
             "is then exactly as before.  Raises ReadOnlyError on a mapped filter.");
PyDoc_STRVAR(add_unique_doc,
             "add_unique($self, key, /)\n--\n\n"
             "Insert key unless the filter already answers that it may be present.\n\n"
             "Returns True if inserted, False if not (a false positive also gives False).\n"
             "Raises like add().");
PyDoc_STRVAR(count_doc, "count($self, key, /)\n--\n\n"
                        "An upper bound on the copies of key stored: the slots of its two buckets\n"
                        "holding its fingerprint (fingerprint collisions add to it).");
PyDoc_STRVAR(remove_doc,
             "remove($self, key, /)\n--\n\n"
             "Remove one copy of key; KeyError if its fingerprint is in neither bucket.\n\n"
             "Only remove keys you know were added: a never-added key whose fingerprint\n"
             "and buckets collide with a stored key's removes that key's fingerprint,\n"
             "creating a false negative.");
PyDoc_STRVAR(unsafe_discard_doc,
             "unsafe_discard($self, key, /)\n--\n\n"
             "Remove one copy of key if its fingerprint is found: True if a copy was\n"
             "removed, False if none was.  Never raises KeyError.\n\n"
             "UNSAFE unless key was added: this is not set.discard().  A filter stores\n"
             "fingerprints, not keys, so discarding a never-added key whose fingerprint\n"
             "and buckets collide with a stored key's deletes THAT key's fingerprint,\n"
             "which then becomes a false negative (the one error a filter must not\n"
             "make).  Discarding keys that may never have been added does this at a\n"
             "rate of about the filter's FPP per call.\n\n"
             "The safe pattern: keep the keys you added in your own store (a database,\n"
             "a set) and remove() only keys found there; a `key in f` test first does\n"
             "not help (a false positive passes it).");
PyDoc_STRVAR(discard_doc,
             "discard($self, key, /)\n--\n\n"
             "Deprecated: unsafe_discard() under its old name, with a DeprecationWarning.\n"
             "It is not set.discard(); see unsafe_discard() for why.");
PyDoc_STRVAR(hash_doc, "hash($self, key, /)\n--\n\n"
                       "The 64-bit XXH3 hash of key with the filter's seed: what the library, the\n"
                       "cuckoo CLI and contains_many(..., hashes=True) work on.");
PyDoc_STRVAR(copy_method_doc,
             "copy($self)\n--\n\n"
             "An independent in-memory filter with the same bytes and key function\n"
             "(writable, also when self is mapped).");
PyDoc_STRVAR(close_doc, "close($self)\n--\n\n"
                        "Release the table now (unmap a mapped filter's file); later calls raise\n"
                        "ValueError.  Also what the end of a `with` block on the filter does,\n"
                        "mapped or in memory.  Closing twice is fine.");
PyDoc_STRVAR(enter_doc, "__enter__($self)\n--\n\nReturns self.");
PyDoc_STRVAR(exit_doc, "__exit__($self, exc_type, exc_value, traceback, /)\n--\n\n"
                       "Calls close(), for an in-memory filter too (as io.BytesIO's does): its\n"
                       "table is released and later calls raise ValueError.  `with` frees a\n"
                       "filter's memory at the end of a block; a filter used afterwards is\n"
                       "not opened with it.");
PyDoc_STRVAR(capacity_doc, "The items the table holds at the default load for its bucket size:\n"
                           "floor(slots * default_max_load(bucket_size)); at least the capacity\n"
                           "it was created with (default max_load).  Derived from the table, so\n"
                           "the same after save/load, pickling and copies.");
PyDoc_STRVAR(fpp_doc, "The false-positive probability the filter has when full (every slot\n"
                      "used): at most the fpp it was created with.  With grow=True, the bound\n"
                      "of all its tables together.  The FPP now is stats.expected_fpp.");
PyDoc_STRVAR(key_doc, "The key= function (None: keys are bytes, str or int as they are).");
PyDoc_STRVAR(closed_doc, "True once close() has run.");
PyDoc_STRVAR(clear_doc, "clear($self)\n--\n\nRemove every item; the parameters and memory stay.");
PyDoc_STRVAR(bytes_doc, "__bytes__($self)\n--\n\nThe same as to_bytes().");
PyDoc_STRVAR(reduce_doc, "__reduce__($self)\n--\n\n"
                         "Pickles as from_bytes(to_bytes()), with the key function as state.");
PyDoc_STRVAR(setstate_doc,
             "__setstate__($self, key, /)\n--\n\nSets the key function (unpickling).");
PyDoc_STRVAR(copy_doc, "__copy__($self)\n--\n\n"
                       "An independent in-memory filter with the same bytes (writable, also when\n"
                       "self is mapped).");
PyDoc_STRVAR(deepcopy_doc, "__deepcopy__($self, memo, /)\n--\n\nThe same as __copy__().");
PyDoc_STRVAR(sizeof_doc, "__sizeof__($self)\n--\n\nBytes of the object and its table.");
PyDoc_STRVAR(stats_doc, "A Stats named tuple: every field of the C library's cf_stats.");
PyDoc_STRVAR(read_only_doc, "True for a filter opened with CuckooFilter.map.");

static PyMethodDef filter_methods[] = {
    {"add", (PyCFunction)filter_add, METH_O, add_doc},
    {"add_unique", (PyCFunction)filter_add_unique, METH_O, add_unique_doc},
    {"count", (PyCFunction)filter_count, METH_O, count_doc},
    {"remove", (PyCFunction)filter_remove, METH_O, remove_doc},
    {"unsafe_discard", (PyCFunction)filter_unsafe_discard, METH_O, unsafe_discard_doc},
    {"discard", (PyCFunction)filter_discard, METH_O, discard_doc},
    {"hash", (PyCFunction)filter_hash, METH_O, hash_doc},
    {"clear", (PyCFunction)filter_clear, METH_NOARGS, clear_doc},
    {"update", (PyCFunction)(void (*)(void))cfpy_filter_update, METH_VARARGS | METH_KEYWORDS,
     cfpy_doc_update},
    {"contains_many", (PyCFunction)(void (*)(void))cfpy_filter_contains_many,
     METH_VARARGS | METH_KEYWORDS, cfpy_doc_contains_many},
    {"save", (PyCFunction)(void (*)(void))cfpy_filter_save, METH_VARARGS | METH_KEYWORDS,
     cfpy_doc_save},
    {"load", (PyCFunction)(void (*)(void))cfpy_filter_load,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS, cfpy_doc_load},
    {"map", (PyCFunction)(void (*)(void))cfpy_filter_map, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     cfpy_doc_map},
    {"to_bytes", (PyCFunction)cfpy_filter_to_bytes, METH_NOARGS, cfpy_doc_to_bytes},
    {"__bytes__", (PyCFunction)cfpy_filter_to_bytes, METH_NOARGS, bytes_doc},
    {"from_bytes", (PyCFunction)(void (*)(void))cfpy_filter_from_bytes,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS, cfpy_doc_from_bytes},
    {"__setstate__", (PyCFunction)cfpy_filter_setstate, METH_O, setstate_doc},
    {"__reduce__", (PyCFunction)cfpy_filter_reduce, METH_NOARGS, reduce_doc},
    {"__copy__", (PyCFunction)cfpy_filter_copy, METH_NOARGS, copy_doc},
    {"copy", (PyCFunction)cfpy_filter_copy, METH_NOARGS, copy_method_doc},
    {"merge", (PyCFunction)cfpy_filter_merge, METH_O, cfpy_doc_merge},
    {"close", (PyCFunction)filter_close, METH_NOARGS, close_doc},
    {"__enter__", (PyCFunction)filter_enter, METH_NOARGS, enter_doc},
    {"__exit__", (PyCFunction)filter_exit, METH_VARARGS, exit_doc},
    {"__deepcopy__", (PyCFunction)cfpy_filter_deepcopy, METH_O, deepcopy_doc},
    {"__sizeof__", (PyCFunction)filter_sizeof, METH_NOARGS, sizeof_doc},
    /* CuckooFilter[str] in annotations: the stubs make the types generic in
     * their key type. */
    {"__class_getitem__", Py_GenericAlias, METH_O | METH_CLASS,
     "See PEP 585 (the type of key the filter takes, for annotations)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef filter_getset[] = {
    {"stats", (getter)filter_stats, NULL, stats_doc, NULL},
    {"read_only", (getter)filter_read_only, NULL, read_only_doc, NULL},
    {"capacity", (getter)filter_capacity, NULL, capacity_doc, NULL},
    {"fpp", (getter)filter_fpp, NULL, fpp_doc, NULL},
    {"key", (getter)filter_key, NULL, key_doc, NULL},
    {"closed", (getter)filter_closed, NULL, closed_doc, NULL},
    {"clock", (getter)filter_clock, (setter)filter_set_clock, clock_doc, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyNumberMethods filter_as_number = {
    .nb_or = cfpy_filter_or,
    .nb_inplace_or = cfpy_filter_ior,
};

static PySequenceMethods filter_as_sequence = {
    .sq_length = (lenfunc)filter_len,
    .sq_contains = (objobjproc)filter_contains,
};

PyDoc_STRVAR(filter_doc,
             "CuckooFilter(capacity=0, fpp=0.001, *, fingerprint_bits=0, bucket_size=4,\n"
             "             num_buckets=0, max_kicks=500, max_load=0.0, seed=0,\n"
             "             semi_sort=False, grow=False, growth_mode=None, concurrent=False,\n"
             "             key=None)\n"
             "--\n\n"
             "A cuckoo filter: a set of keys that answers \"may be present\" or \"certainly\n"
             "not\", with no false negatives, a tunable false-positive probability (FPP),\n"
             "and deletion.  Keys are bytes, bytearray, memoryview, str (UTF-8) or int\n"
             "(8 bytes little-endian, -2**63 <= key < 2**64); a key hashes as in the C\n"
             "library and the cuckoo CLI, so their files answer the same here.\n\n"
             "The options are the C library's cf_config:\n"
             "  capacity          items the filter must hold (required unless num_buckets)\n"
             "  fpp               false-positive probability wanted at full load, in (0, 1);\n"
             "                    chooses fingerprint_bits when that is 0\n"
             "  fingerprint_bits  0 = derived from fpp (widened if the table needs it);\n"
             "                    else 1..32\n"
             "  bucket_size       slots per bucket: 1, 2, 4 or 8\n"
             "  num_buckets       0 = derived from capacity; else exactly this many (a\n"
             "                    capacity given too must fit in its slots)\n"
             "  max_kicks         eviction budget per insert, 1..65535\n"
             "  max_load          load factor used for sizing, in (0, 1]; 0 =\n"
             "                    default_max_load(bucket_size)\n"
             "  seed              hash seed (stored in files)\n"
             "  semi_sort         semi-sorted buckets: one bit less per item at the same\n"
             "                    FPP (bucket_size 4, 5..16-bit fingerprints)\n"
             "  grow              the library's CF_GROW: True or 'chain' adds tables as\n"
             "                    it fills (lookups probe each one); 'inplace'\n"
             "                    (CF_GROWTH_INPLACE) doubles one table in place, so\n"
             "                    lookups stay at two buckets (bucket_size 4, 16- or\n"
             "                    32-bit slots, no semi_sort).\n"
             "                    stats.growth_mode and stats.doublings say which\n"
             "  growth_mode       cf_config.growth_mode: cf.GROWTH_CHAIN or\n"
             "                    cf.GROWTH_INPLACE (or 'chain', 'inplace'); implies\n"
             "                    grow=True, as grow='inplace' does\n"
             "  concurrent        the library's CF_CONCURRENT; builds whose library\n"
             "                    lacks either flag raise NotImplementedError\n"
             "  key               a function applied to every key before hashing (add,\n"
             "                    in, update, ...): it returns bytes, str or int, and\n"
             "                    lets keys of any type in, e.g. key=pickle.dumps or\n"
             "                    key=lambda p: f\"{p.x},{p.y}\".  Not stored in files:\n"
             "                    give it again to load/map/from_bytes.\n\n"
             "Bad options raise ValueError naming the option and why, or TypeError.\n\n"
             "Guarantees: an added key is always found until removed; a failed add\n"
             "(FilterFullError) changes nothing; the same key can be stored up to\n"
             "2 * bucket_size times; same options and operations give the same bytes.\n\n"
             "len(f) counts the copies stored: add(k) twice stores two (len grows by\n"
             "2, count(k) >= 2, remove(k) takes one); add_unique(k) adds k only when\n"
             "it is not found, so a false positive is not added.  len() is not the\n"
             "number of distinct keys.\n\n"
             "`with f:` closes f at the end of the block (close()), in memory or\n"
             "mapped (map()): later calls raise ValueError.\n\n"
             "f == g is True when their bytes are equal (to_bytes(): same parameters,\n"
             "seed, table and statistics).  Filters holding the same keys added in\n"
             "another order can differ (evictions moved other fingerprints), and then\n"
             "compare unequal although they answer alike.\n\n"
             "f | g, f |= g and f.merge(g) combine filters of the same shape (the\n"
             "library's cf_merge): the result holds the keys of both.\n\n"
             "Threads: single-key calls run under the GIL; update, contains_many and the\n"
             "file calls release it while the library works, and exclude other calls on\n"
             "the same filter meanwhile.  Weak references are supported.");

PyTypeObject cfpy_FilterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cuckoofilter.CuckooFilter",
    .tp_basicsize = sizeof(cfpy_filter),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = filter_doc,
    .tp_new = filter_new,
    .tp_dealloc = (destructor)filter_dealloc,
    .tp_traverse = (traverseproc)filter_traverse,
    .tp_clear = (inquiry)filter_clear_refs,
    .tp_weaklistoffset = offsetof(cfpy_filter, weakrefs),
    .tp_repr = (reprfunc)filter_repr,
    .tp_as_number = &filter_as_number,
    .tp_as_sequence = &filter_as_sequence,
    .tp_richcompare = cfpy_filter_richcompare,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_methods = filter_methods,
    .tp_getset = filter_getset,
};
