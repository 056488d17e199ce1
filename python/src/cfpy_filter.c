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

const cf_allocator cfpy_allocator = {raw_alloc, raw_free, NULL, raw_calloc};

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

int cfpy_get_uint(PyObject *obj, const char *name, unsigned long long max,
                  unsigned long long *out) {
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
        PyErr_Clear(); /* negative or beyond 64 bits: out of range below */
    } else if (v <= max) {
        *out = v;
        return 0;
    }
    PyErr_Format(PyExc_ValueError, "%s must be in 0..%llu", name, max);
    return -1;
}

PyObject *cfpy_filter_wrap(PyTypeObject *cls, cf_filter *f) {
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
    return (PyObject *)o;
}

/* The optional flags this build of the library knows; a keyword naming a
 * flag it lacks is refused rather than ignored. */
static int add_flag(bool wanted, const char *name, unsigned flag, cf_config *cfg) {
    if (!wanted) return 0;
    if (flag == 0) {
        PyErr_Format(PyExc_NotImplementedError,
                     "%s=True needs a library built with that feature; this one (%s) has none",
                     name, cf_version_string());
        return -1;
    }
    cfg->flags |= flag;
    return 0;
}

#ifdef CF_GROW
#define CFPY_GROW CF_GROW
#else
#define CFPY_GROW 0u
#endif
#ifdef CF_CONCURRENT
#define CFPY_CONCURRENT CF_CONCURRENT
#else
#define CFPY_CONCURRENT 0u
#endif

int cfpy_get_uint_options(cfpy_uint_option *opts, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (opts[i].obj != NULL &&
            cfpy_get_uint(opts[i].obj, opts[i].name, opts[i].max, &opts[i].value) < 0)
            return -1;
    return 0;
}

static PyObject *filter_new(PyTypeObject *cls, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"capacity",    "fpp",       "fingerprint_bits", "bucket_size",
                             "num_buckets", "max_kicks", "max_load",         "seed",
                             "semi_sort",   "grow",      "concurrent",       NULL};
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.allocator = &cfpy_allocator;
    cfpy_uint_option u[] = {
        {"capacity", UINT64_MAX, cfg.capacity, NULL},
        {"fingerprint_bits", UINT_MAX, cfg.fingerprint_bits, NULL},
        {"bucket_size", UINT_MAX, cfg.bucket_size, NULL},
        {"num_buckets", UINT64_MAX, cfg.num_buckets, NULL},
        {"max_kicks", UINT_MAX, cfg.max_kicks, NULL},
        {"seed", UINT64_MAX, cfg.seed, NULL},
    };
    int semi = 0, grow = 0, conc = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|Od$OOOOdOppp:CuckooFilter", kwlist, &u[0].obj,
                                     &cfg.target_fpp, &u[1].obj, &u[2].obj, &u[3].obj, &u[4].obj,
                                     &cfg.max_load, &u[5].obj, &semi, &grow, &conc) ||
        cfpy_get_uint_options(u, sizeof u / sizeof u[0]) < 0)
        return NULL;
    cfg.capacity = u[0].value;
    cfg.fingerprint_bits = (unsigned)u[1].value;
    cfg.bucket_size = (unsigned)u[2].value;
    cfg.num_buckets = u[3].value;
    cfg.max_kicks = (unsigned)u[4].value;
    cfg.seed = u[5].value;
    if (semi) cfg.flags |= CF_SEMI_SORT;
    if (add_flag(grow, "grow", CFPY_GROW, &cfg) < 0 ||
        add_flag(conc, "concurrent", CFPY_CONCURRENT, &cfg) < 0)
        return NULL;
    cf_filter *f;
    cf_status s;
    Py_BEGIN_ALLOW_THREADS /* a large table is zeroed here */
        s = cf_new(&cfg, &f);
    Py_END_ALLOW_THREADS if (s != CF_OK) {
        char detail[320];
        PyOS_snprintf(detail, sizeof detail,
                      "capacity=%llu, fpp=%g, fingerprint_bits=%u, bucket_size=%u, "
                      "num_buckets=%llu, max_kicks=%u, max_load=%g, flags=%u",
                      (unsigned long long)cfg.capacity, cfg.target_fpp, cfg.fingerprint_bits,
                      cfg.bucket_size, (unsigned long long)cfg.num_buckets, cfg.max_kicks,
                      cfg.max_load, cfg.flags);
        return cfpy_raise(s, CFPY_CREATE, detail, 0, NULL);
    }
    return cfpy_filter_wrap(cls, f);
}

static void filter_dealloc(cfpy_filter *self) {
    cf_free(self->f);
    if (self->lock != NULL) PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* -------------------------------------------------------------- single keys */

/* The key's bytes, after any bulk call on this filter has ended. */
static int begin_key(cfpy_filter *self, PyObject *key, cfpy_key *k) {
    if (cfpy_key_get(key, k) < 0) return -1;
    cfpy_wait_idle(self);
    return 0;
}

static PyObject *filter_add(cfpy_filter *self, PyObject *key) {
    cfpy_key k;
    if (begin_key(self, key, &k) < 0) return NULL;
    cf_status s = cf_insert(self->f, k.ptr, k.len);
    cfpy_key_release(&k);
    if (s != CF_OK) return cfpy_raise(s, CFPY_WRITE, NULL, 0, NULL);
    Py_RETURN_NONE;
}

static PyObject *filter_add_unique(cfpy_filter *self, PyObject *key) {
    cfpy_key k;
    if (begin_key(self, key, &k) < 0) return NULL;
    cf_status s = cf_insert_unique(self->f, k.ptr, k.len);
    cfpy_key_release(&k);
    if (s == CF_E_EXISTS) Py_RETURN_FALSE;
    if (s != CF_OK) return cfpy_raise(s, CFPY_WRITE, NULL, 0, NULL);
    Py_RETURN_TRUE;
}

static int filter_contains(cfpy_filter *self, PyObject *key) {
    cfpy_key k;
    if (begin_key(self, key, &k) < 0) return -1;
    bool in = cf_contains(self->f, k.ptr, k.len);
    cfpy_key_release(&k);
    return in;
}

static PyObject *filter_count(cfpy_filter *self, PyObject *key) {
    cfpy_key k;
    if (begin_key(self, key, &k) < 0) return NULL;
    size_t n = cf_count(self->f, k.ptr, k.len);
    cfpy_key_release(&k);
    return PyLong_FromSize_t(n);
}

/* Deletes one copy; returns the status (CF_E_NOT_FOUND included), or 1
 * when the key could not be read (exception set). */
static int delete_key(cfpy_filter *self, PyObject *key) {
    cfpy_key k;
    if (begin_key(self, key, &k) < 0) return 1;
    cf_status s = cf_delete(self->f, k.ptr, k.len);
    cfpy_key_release(&k);
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

static PyObject *filter_discard(cfpy_filter *self, PyObject *key) {
    int s = delete_key(self, key);
    if (s == 1) return NULL;
    if (s == CF_E_NOT_FOUND) Py_RETURN_FALSE;
    if (s != CF_OK) return cfpy_raise(s, CFPY_WRITE, NULL, 0, NULL);
    Py_RETURN_TRUE;
}

static PyObject *filter_hash(cfpy_filter *self, PyObject *key) {
    cfpy_key k;
    if (cfpy_key_get(key, &k) < 0) return NULL;
    uint64_t h = cf_hash(self->f, k.ptr, k.len); /* reads only the seed: no wait */
    cfpy_key_release(&k);
    return PyLong_FromUnsignedLongLong(h);
}

static PyObject *filter_clear(cfpy_filter *self, PyObject *unused) {
    (void)unused;
    cfpy_wait_idle(self);
    cf_status s = cf_clear(self->f);
    if (s != CF_OK) return cfpy_raise(s, CFPY_WRITE, NULL, 0, NULL);
    Py_RETURN_NONE;
}

static Py_ssize_t filter_len(cfpy_filter *self) {
    cfpy_wait_idle(self);
    cf_stats st;
    cf_get_stats(self->f, &st);
    return (Py_ssize_t)st.items;
}

static PyObject *filter_stats(cfpy_filter *self, void *closure) {
    (void)closure;
    cfpy_wait_idle(self);
    cf_stats st;
    cf_get_stats(self->f, &st);
    return cfpy_stats_new(&st);
}

static PyObject *filter_read_only(cfpy_filter *self, void *closure) {
    (void)closure;
    cfpy_wait_idle(self);
    cf_stats st;
    cf_get_stats(self->f, &st);
    return PyBool_FromLong(st.read_only);
}

static PyObject *filter_repr(cfpy_filter *self) {
    cfpy_wait_idle(self);
    cf_stats st;
    cf_get_stats(self->f, &st);
    return PyUnicode_FromFormat("<%s items=%llu slots=%llu fingerprint_bits=%u bucket_size=%u%s>",
                                Py_TYPE(self)->tp_name, (unsigned long long)st.items,
                                (unsigned long long)st.slots, st.fingerprint_bits, st.bucket_size,
                                st.read_only ? " read-only" : "");
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
PyDoc_STRVAR(discard_doc,
             "discard($self, key, /)\n--\n\n"
             "Like remove(), but returns True if a copy was removed and False if none\n"
             "was found, never raising KeyError.  The same caution applies.");
PyDoc_STRVAR(hash_doc, "hash($self, key, /)\n--\n\n"
                       "The 64-bit XXH3 hash of key with the filter's seed: what the library, the\n"
                       "cuckoo CLI and contains_many(..., hashes=True) work on.");
PyDoc_STRVAR(clear_doc, "clear($self)\n--\n\nRemove every item; the parameters and memory stay.");
PyDoc_STRVAR(bytes_doc, "__bytes__($self)\n--\n\nThe same as to_bytes().");
PyDoc_STRVAR(reduce_doc, "__reduce__($self)\n--\n\nPickles as from_bytes(to_bytes()).");
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
    {"from_bytes", (PyCFunction)cfpy_filter_from_bytes, METH_O | METH_CLASS, cfpy_doc_from_bytes},
    {"__reduce__", (PyCFunction)cfpy_filter_reduce, METH_NOARGS, reduce_doc},
    {"__copy__", (PyCFunction)cfpy_filter_copy, METH_NOARGS, copy_doc},
    {"__deepcopy__", (PyCFunction)cfpy_filter_deepcopy, METH_O, deepcopy_doc},
    {"__sizeof__", (PyCFunction)filter_sizeof, METH_NOARGS, sizeof_doc},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef filter_getset[] = {
    {"stats", (getter)filter_stats, NULL, stats_doc, NULL},
    {"read_only", (getter)filter_read_only, NULL, read_only_doc, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods filter_as_sequence = {
    .sq_length = (lenfunc)filter_len,
    .sq_contains = (objobjproc)filter_contains,
};

PyDoc_STRVAR(filter_doc,
             "CuckooFilter(capacity=0, fpp=0.001, *, fingerprint_bits=0, bucket_size=4,\n"
             "             num_buckets=0, max_kicks=500, max_load=0.0, seed=0,\n"
             "             semi_sort=False, grow=False, concurrent=False)\n"
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
             "  num_buckets       0 = derived from capacity; else exactly this many\n"
             "  max_kicks         eviction budget per insert, 1..65535\n"
             "  max_load          load factor used for sizing, in (0, 1]; 0 =\n"
             "                    default_max_load(bucket_size)\n"
             "  seed              hash seed (stored in files)\n"
             "  semi_sort         semi-sorted buckets: one bit less per item at the same\n"
             "                    FPP (bucket_size 4, 5..16-bit fingerprints)\n"
             "  grow, concurrent  the library's CF_GROW / CF_CONCURRENT flags; builds\n"
             "                    whose library lacks them raise NotImplementedError\n\n"
             "Bad options raise ValueError or TypeError with the library's reason.\n\n"
             "Guarantees: an added key is always found until removed; a failed add\n"
             "(FilterFullError) changes nothing; the same key can be stored up to\n"
             "2 * bucket_size times; same options and operations give the same bytes.\n\n"
             "Threads: single-key calls run under the GIL; update, contains_many and the\n"
             "file calls release it while the library works, and exclude other calls on\n"
             "the same filter meanwhile.");

PyTypeObject cfpy_FilterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cuckoofilter.CuckooFilter",
    .tp_basicsize = sizeof(cfpy_filter),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = filter_doc,
    .tp_new = filter_new,
    .tp_dealloc = (destructor)filter_dealloc,
    .tp_repr = (reprfunc)filter_repr,
    .tp_as_sequence = &filter_as_sequence,
    .tp_richcompare = cfpy_filter_richcompare,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_methods = filter_methods,
    .tp_getset = filter_getset,
};
