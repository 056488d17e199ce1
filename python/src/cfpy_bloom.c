/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfpy_bloom.c -- the BloomFilter type, the library's Bloom filter kept for
 * comparisons at equal memory: add, in, update, contains_many, len, stats,
 * key=, close().  No deletes (a Bloom filter cannot clear a key's bits
 * without clearing other keys').  Bytes, files (map too), pickling, copies
 * and equality: cfpy_bloom_io.c.
 */
#include "cfpy.h"

/* An allocator that allocates as cfpy_allocator does and remembers the size
 * of the request that failed: the size a MemoryError reports is the one the
 * library asked for (nothing recomputed here). */
typedef struct failed_size {
    size_t size;
} failed_size;

static void *probe_alloc(void *ctx, size_t size) {
    void *p = PyMem_RawMalloc(size);
    if (p == NULL) ((failed_size *)ctx)->size = size;
    return p;
}

static void *probe_calloc(void *ctx, size_t size) {
    void *p = PyMem_RawCalloc(1, size);
    if (p == NULL) ((failed_size *)ctx)->size = size;
    return p;
}

static void probe_free(void *ctx, void *p) {
    (void)ctx;
    PyMem_RawFree(p);
}

/* The exception for cf_bloom_new's refusal s of cfg: the library's own
 * sentence for a refused configuration (cf_bloom_config_explain, in this
 * package's spelling of the options), the size that could not be allocated
 * for CF_E_NOMEM. */
static PyObject *bloom_refused(cf_status s, const cf_bloom_config *cfg) {
    char detail[400];
    if (s == CF_E_NOMEM) {
        failed_size fs = {0};
        cf_allocator probe = {probe_alloc, probe_free, &fs, probe_calloc, NULL};
        cf_bloom_config again = *cfg;
        again.allocator = &probe;
        cf_bloom *b = NULL;
        cf_status t;
        Py_BEGIN_ALLOW_THREADS t = cf_bloom_new(&again, &b);
        Py_END_ALLOW_THREADS if (t == CF_OK) cf_bloom_free(b); /* memory came back meanwhile */
        if (fs.size > 0)
            PyOS_snprintf(detail, sizeof detail,
                          "a Bloom filter of capacity=%llu, fpp=%g needs %zu bytes (%.4g GiB) "
                          "for its bits, which could not be allocated",
                          (unsigned long long)cfg->capacity, cfg->target_fpp, fs.size,
                          (double)fs.size / (1024.0 * 1024 * 1024));
        else
            PyOS_snprintf(detail, sizeof detail, "capacity=%llu, fpp=%g",
                          (unsigned long long)cfg->capacity, cfg->target_fpp);
    } else if (cf_bloom_config_explain(cfg, &cfpy_option_names, detail, sizeof detail, NULL) ==
               CF_OK) {
        PyOS_snprintf(detail, sizeof detail, "capacity=%llu, fpp=%g, num_bits=%llu, num_hashes=%u",
                      (unsigned long long)cfg->capacity, cfg->target_fpp,
                      (unsigned long long)cfg->num_bits, cfg->num_hashes);
    }
    return cfpy_raise(s, CFPY_CREATE, detail, 0, NULL);
}

static PyObject *bloom_new(PyTypeObject *cls, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"capacity", "fpp", "num_bits", "num_hashes", "seed", "key", NULL};
    cf_bloom_config cfg;
    cf_bloom_config_init(&cfg);
    cfg.allocator = &cfpy_allocator;
    cfpy_uint_option u[] = {
        {"capacity", UINT64_MAX, cfg.capacity, NULL},
        {"num_bits", UINT64_MAX, cfg.num_bits, NULL},
        {"num_hashes", UINT_MAX, cfg.num_hashes, NULL},
        {"seed", UINT64_MAX, cfg.seed, NULL},
    };
    PyObject *key = NULL, *key_func;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|Od$OOOO:BloomFilter", kwlist, &u[0].obj,
                                     &cfg.target_fpp, &u[1].obj, &u[2].obj, &u[3].obj, &key) ||
        cfpy_get_uint_options(u, sizeof u / sizeof u[0]) < 0 ||
        cfpy_key_func_arg(key, &key_func) < 0)
        return NULL;
    cfg.capacity = u[0].value;
    cfg.num_bits = u[1].value;
    cfg.num_hashes = (unsigned)u[2].value;
    cfg.seed = u[3].value;
    cf_bloom *b;
    cf_status s;
    Py_BEGIN_ALLOW_THREADS s = cf_bloom_new(&cfg, &b);
    Py_END_ALLOW_THREADS if (s != CF_OK) {
        Py_XDECREF(key_func);
        return bloom_refused(s, &cfg);
    }
    cfpy_bloom *self = (cfpy_bloom *)cls->tp_alloc(cls, 0);
    if (self == NULL) {
        cf_bloom_free(b);
        Py_XDECREF(key_func);
        return NULL;
    }
    self->b = b;
    self->key_func = key_func;
    return (PyObject *)self;
}

static int bloom_traverse(cfpy_bloom *self, visitproc visit, void *arg) {
    Py_VISIT(self->key_func);
    return 0;
}

static int bloom_clear_refs(cfpy_bloom *self) {
    Py_CLEAR(self->key_func);
    return 0;
}

static void bloom_dealloc(cfpy_bloom *self) {
    PyObject_GC_UnTrack(self);
    if (self->weakrefs != NULL) PyObject_ClearWeakRefs((PyObject *)self);
    cf_bloom_free(self->b);
    Py_CLEAR(self->key_func);
    Py_CLEAR(self->mapped);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

int cfpy_bloom_check_open(cfpy_bloom *o) {
    if (o->b != NULL) return 0;
    PyErr_SetString(PyExc_ValueError, "operation on a closed filter (close(), or the end of "
                                      "a `with` block on it, released its table)");
    return -1;
}

/* A lookup of a mapped filter runs under cfpy_guarded_map. */
typedef struct lookup_call {
    const cf_bloom *b;
    const void *key;
    size_t len;
    bool in;
} lookup_call;

static void do_lookup(void *p) {
    lookup_call *c = p;
    c->in = cf_bloom_contains(c->b, c->key, c->len);
}

/* Adds key (lookup false) or looks it up into *in, after the key
 * function; 0, or -1 with an exception. */
static int with_key(cfpy_bloom *self, PyObject *key, bool lookup, bool *in) {
    if (cfpy_bloom_check_open(self) < 0) return -1;
    PyObject *obj = cfpy_key_apply(self->key_func, key);
    if (obj == NULL) return -1;
    cfpy_key k;
    if (cfpy_key_get(obj, &k) < 0) {
        Py_DECREF(obj);
        return -1;
    }
    int r = cfpy_bloom_check_open(self); /* the key function may have closed it */
    if (r == 0 && lookup) {
        lookup_call c = {self->b, k.ptr, k.len, false};
        if (cfpy_guarded_map(self->mapped, do_lookup, &c) < 0) {
            cfpy_raise_sigbus_map(self->mapped);
            r = -1;
        }
        *in = c.in;
    } else if (r == 0) {
        cf_status s = cf_bloom_insert(self->b, k.ptr, k.len);
        if (s != CF_OK) {
            cfpy_raise(s, CFPY_WRITE, NULL, 0, NULL);
            r = -1;
        }
    }
    cfpy_key_release(&k);
    Py_DECREF(obj);
    return r;
}

static PyObject *bloom_add(cfpy_bloom *self, PyObject *key) {
    if (with_key(self, key, false, NULL) < 0) return NULL;
    Py_RETURN_NONE;
}

static int bloom_contains(cfpy_bloom *self, PyObject *key) {
    bool in = false;
    if (with_key(self, key, true, &in) < 0) return -1;
    return in;
}

/* clear(), merge(other), |, |=: the library's cf_bloom_clear and
 * cf_bloom_merge. */
static PyObject *bloom_clear(cfpy_bloom *self, PyObject *unused) {
    (void)unused;
    if (cfpy_bloom_check_open(self) < 0) return NULL;
    cf_status s = cf_bloom_clear(self->b);
    if (s != CF_OK) return cfpy_raise(s, CFPY_WRITE, NULL, 0, NULL);
    Py_RETURN_NONE;
}

static PyObject *bloom_merge(cfpy_bloom *self, PyObject *other) {
    if (!PyObject_TypeCheck(other, &cfpy_BloomType))
        return PyErr_Format(PyExc_TypeError, "merge() takes a BloomFilter, not %.100s",
                            Py_TYPE(other)->tp_name);
    cfpy_bloom *o = (cfpy_bloom *)other;
    if (cfpy_bloom_check_open(self) < 0 || cfpy_bloom_check_open(o) < 0) return NULL;
    /* A mapped source is merged from a copy: its pages are read under the
     * SIGBUS guard, which cf_bloom_merge is not. */
    PyObject *copy = NULL;
    const cf_bloom *src = o->b;
    if (o->mapped != NULL) {
        if ((copy = cfpy_bloom_copy(o, NULL)) == NULL) return NULL;
        src = ((cfpy_bloom *)copy)->b;
    }
    cf_status s = cf_bloom_merge(self->b, src);
    PyObject *r = NULL;
    if (s == CF_E_PARAM && self->b == src) {
        PyErr_SetString(PyExc_ValueError, "merge() of a filter into itself");
    } else if (s == CF_E_PARAM) {
        cf_bloom_stats a, b;
        cf_bloom_get_stats(self->b, &a);
        cf_bloom_get_stats(src, &b);
        PyErr_Format(PyExc_ValueError,
                     "the filters do not share their bits: merge needs the same num_bits "
                     "(%llu vs %llu), num_hashes (%u vs %u) and seed; make both with the same "
                     "options",
                     (unsigned long long)a.num_bits, (unsigned long long)b.num_bits, a.num_hashes,
                     b.num_hashes);
    } else if (s != CF_OK) {
        cfpy_raise(s, CFPY_WRITE, NULL, 0, NULL);
    } else {
        r = Py_NewRef(Py_None);
    }
    Py_XDECREF(copy);
    return r;
}

static PyObject *bloom_or(PyObject *a, PyObject *b) {
    if (!PyObject_TypeCheck(a, &cfpy_BloomType) || !PyObject_TypeCheck(b, &cfpy_BloomType))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *r = cfpy_bloom_copy((cfpy_bloom *)a, NULL);
    if (r == NULL) return NULL;
    PyObject *m = bloom_merge((cfpy_bloom *)r, b);
    if (m == NULL) {
        Py_DECREF(r);
        return NULL;
    }
    Py_DECREF(m);
    return r;
}

static PyObject *bloom_ior(PyObject *a, PyObject *b) {
    if (!PyObject_TypeCheck(a, &cfpy_BloomType) || !PyObject_TypeCheck(b, &cfpy_BloomType))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *m = bloom_merge((cfpy_bloom *)a, b);
    if (m == NULL) return NULL;
    Py_DECREF(m);
    return Py_NewRef(a);
}

static PyNumberMethods bloom_as_number = {
    .nb_or = bloom_or,
    .nb_inplace_or = bloom_ior,
};

static PyObject *bloom_key(cfpy_bloom *self, void *closure) {
    (void)closure;
    return Py_NewRef(self->key_func != NULL ? self->key_func : Py_None);
}

static Py_ssize_t bloom_len(cfpy_bloom *self) {
    if (cfpy_bloom_check_open(self) < 0) return -1;
    cf_bloom_stats st;
    cf_bloom_get_stats(self->b, &st);
    return (Py_ssize_t)st.items;
}

static PyObject *bloom_stats(cfpy_bloom *self, void *closure) {
    (void)closure;
    if (cfpy_bloom_check_open(self) < 0) return NULL;
    cf_bloom_stats st;
    cf_bloom_get_stats(self->b, &st); /* the handle's fields: no page of a mapping is read */
    return cfpy_bloom_stats_new(&st);
}

static PyObject *bloom_read_only(cfpy_bloom *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(self->mapped != NULL);
}

static PyObject *bloom_closed(cfpy_bloom *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(self->b == NULL);
}

static PyObject *bloom_close(cfpy_bloom *self, PyObject *unused) {
    (void)unused;
    /* cf_bloom has no lock and every call keeps the GIL: no call is using b. */
    cf_bloom_free(self->b);
    self->b = NULL;
    Py_RETURN_NONE;
}

static PyObject *bloom_enter(cfpy_bloom *self, PyObject *unused) {
    (void)unused;
    if (cfpy_bloom_check_open(self) < 0) return NULL;
    return Py_NewRef(self);
}

static PyObject *bloom_exit(cfpy_bloom *self, PyObject *args) {
    (void)args;
    return bloom_close(self, NULL);
}

static PyObject *bloom_repr(cfpy_bloom *self) {
    if (self->b == NULL) return PyUnicode_FromFormat("<%s closed>", Py_TYPE(self)->tp_name);
    cf_bloom_stats st;
    cf_bloom_get_stats(self->b, &st);
    return PyUnicode_FromFormat("<%s items=%llu num_bits=%llu num_hashes=%u%s>",
                                Py_TYPE(self)->tp_name, (unsigned long long)st.items,
                                (unsigned long long)st.num_bits, st.num_hashes,
                                self->mapped != NULL ? " read-only" : "");
}

PyDoc_STRVAR(bloom_add_doc, "add($self, key, /)\n--\n\n"
                            "Set key's k bits.  Raises ReadOnlyError on a mapped filter.");
PyDoc_STRVAR(bloom_close_doc,
             "close($self)\n--\n\n"
             "Release the bits now (unmap a mapped filter's file); later calls raise\n"
             "ValueError.  Also what the end of a `with` block on the filter does,\n"
             "mapped or in memory.  Closing twice is fine.");
PyDoc_STRVAR(bloom_enter_doc, "__enter__($self)\n--\n\nReturns self.");
PyDoc_STRVAR(bloom_exit_doc, "__exit__($self, exc_type, exc_value, traceback, /)\n--\n\n"
                             "Calls close(), for an in-memory filter too (as io.BytesIO's does).");
PyDoc_STRVAR(bloom_bytes_doc, "__bytes__($self)\n--\n\nThe same as to_bytes().");
PyDoc_STRVAR(bloom_reduce_doc,
             "__reduce__($self)\n--\n\n"
             "Pickles as from_bytes(to_bytes()), with the key function as state.");
PyDoc_STRVAR(bloom_setstate_doc,
             "__setstate__($self, key, /)\n--\n\nSets the key function (unpickling).");
PyDoc_STRVAR(bloom_copy_doc, "copy($self)\n--\n\n"
                             "An independent filter with the same bits, counts and key function.");
PyDoc_STRVAR(bloom_deepcopy_doc, "__deepcopy__($self, memo, /)\n--\n\nThe same as copy().");
PyDoc_STRVAR(bloom_stats_doc, "A BloomStats named tuple: every field of cf_bloom_stats.");

static PyMethodDef bloom_methods[] = {
    {"add", (PyCFunction)bloom_add, METH_O, bloom_add_doc},
    {"clear", (PyCFunction)bloom_clear, METH_NOARGS,
     "clear($self, /)\n--\n\nRemove every key: all bits 0, len() 0 (the library's "
     "cf_bloom_clear)."},
    {"merge", (PyCFunction)bloom_merge, METH_O,
     "merge($self, other, /)\n--\n\nAdd every key of other (the union: bits OR'ed, len() summed;\n"
     "the library's cf_bloom_merge).  Both need the same num_bits, num_hashes and seed\n"
     "(ValueError otherwise).  b1 | b2 and b1 |= b2 do the same."},
    {"update", (PyCFunction)cfpy_bloom_update, METH_O, cfpy_doc_bloom_update},
    {"contains_many", (PyCFunction)cfpy_bloom_contains_many, METH_O, cfpy_doc_bloom_contains_many},
    {"save", (PyCFunction)(void (*)(void))cfpy_bloom_save, METH_VARARGS | METH_KEYWORDS,
     cfpy_doc_bloom_save},
    {"load", (PyCFunction)(void (*)(void))cfpy_bloom_load,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS, cfpy_doc_bloom_load},
    {"map", (PyCFunction)(void (*)(void))cfpy_bloom_map, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     cfpy_doc_bloom_map},
    {"close", (PyCFunction)bloom_close, METH_NOARGS, bloom_close_doc},
    {"__enter__", (PyCFunction)bloom_enter, METH_NOARGS, bloom_enter_doc},
    {"__exit__", (PyCFunction)bloom_exit, METH_VARARGS, bloom_exit_doc},
    {"to_bytes", (PyCFunction)cfpy_bloom_to_bytes, METH_NOARGS, cfpy_doc_bloom_to_bytes},
    {"__bytes__", (PyCFunction)cfpy_bloom_to_bytes, METH_NOARGS, bloom_bytes_doc},
    {"from_bytes", (PyCFunction)(void (*)(void))cfpy_bloom_from_bytes,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS, cfpy_doc_bloom_from_bytes},
    {"__setstate__", (PyCFunction)cfpy_bloom_setstate, METH_O, bloom_setstate_doc},
    {"__reduce__", (PyCFunction)cfpy_bloom_reduce, METH_NOARGS, bloom_reduce_doc},
    /* CuckooFilter[str] in annotations: the stubs make the types generic in
     * their key type. */
    {"__class_getitem__", Py_GenericAlias, METH_O | METH_CLASS,
     "See PEP 585 (the type of key the filter takes, for annotations)."},
    {"copy", (PyCFunction)cfpy_bloom_copy, METH_NOARGS, bloom_copy_doc},
    {"__copy__", (PyCFunction)cfpy_bloom_copy, METH_NOARGS, bloom_copy_doc},
    {"__deepcopy__", (PyCFunction)cfpy_bloom_deepcopy, METH_O, bloom_deepcopy_doc},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef bloom_getset[] = {
    {"stats", (getter)bloom_stats, NULL, bloom_stats_doc, NULL},
    {"key", (getter)bloom_key, NULL, "The key= function (None: keys as they are).", NULL},
    {"read_only", (getter)bloom_read_only, NULL, "True for a filter opened with BloomFilter.map.",
     NULL},
    {"closed", (getter)bloom_closed, NULL, "True once close() has run.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods bloom_as_sequence = {
    .sq_length = (lenfunc)bloom_len,
    .sq_contains = (objobjproc)bloom_contains,
};

PyDoc_STRVAR(bloom_doc,
             "BloomFilter(capacity=0, fpp=0.01, *, num_bits=0, num_hashes=0, seed=0,\n"
             "            key=None)\n"
             "--\n\n"
             "A Bloom filter, for comparing with CuckooFilter at equal memory.  Keys as\n"
             "for CuckooFilter.  k bit positions per key come from one 64-bit XXH3 hash\n"
             "by double hashing.\n\n"
             "  capacity    items; required unless num_bits is given\n"
             "  fpp         false-positive probability wanted at capacity, in (0, 1)\n"
             "  num_bits    0 = ceil(-capacity * ln(fpp) / ln(2)**2); else exactly this\n"
             "  num_hashes  0 = the optimal k for num_bits and capacity; else 1..64\n"
             "  seed        hash seed\n"
             "  key         a function applied to every key (as CuckooFilter's key=)\n\n"
             "len() counts adds, duplicates again (a Bloom filter cannot tell a key\n"
             "it holds from a new one): not the number of distinct keys, and\n"
             "stats.expected_fpp, computed from it, overstates the FPP after\n"
             "duplicates.  `with b:` closes b at the end of the block, in memory\n"
             "or mapped: later calls raise ValueError.  to_bytes()/from_bytes(),\n"
             "save()/load() (paths or file objects), pickling and copy() keep the\n"
             "bits, k, the seed and the count (docs/FORMAT.md, \"Bloom filters\").\n"
             "map() uses a file's pages in place, read-only.\n\n"
             "b1 == b2 means the same bytes (to_bytes()): same num_bits, k, seed, bits\n"
             "and add count.  The same keys added in another order compare equal (the\n"
             "bits are an OR); the same keys added a different number of times do not\n"
             "(the count differs).  Not hashable.");

PyTypeObject cfpy_BloomType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cuckoofilter.BloomFilter",
    .tp_basicsize = sizeof(cfpy_bloom),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = bloom_doc,
    .tp_new = bloom_new,
    .tp_dealloc = (destructor)bloom_dealloc,
    .tp_traverse = (traverseproc)bloom_traverse,
    .tp_clear = (inquiry)bloom_clear_refs,
    .tp_weaklistoffset = offsetof(cfpy_bloom, weakrefs),
    .tp_repr = (reprfunc)bloom_repr,
    .tp_as_sequence = &bloom_as_sequence,
    .tp_as_number = &bloom_as_number,
    .tp_methods = bloom_methods,
    .tp_getset = bloom_getset,
    .tp_richcompare = cfpy_bloom_richcompare,
    .tp_hash = PyObject_HashNotImplemented,
};
