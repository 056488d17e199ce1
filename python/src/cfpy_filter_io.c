/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfpy_filter_io.c -- CuckooFilter in files and bytes: save, load, map,
 * to_bytes/from_bytes, pickling, copies and equality.  All of them speak the
 * library's file format (docs/FORMAT.md), so a file written here is read by
 * the C library and the cuckoo CLI and the other way round.
 *
 * The GIL is released around file I/O and (de)serialization of immutable
 * input.  Paths are str, bytes or os.PathLike (os.fsencode's rules); save
 * and load also take file objects (anything with write() / read()).
 *
 * A mapped filter's table is its file's pages: reading them runs under
 * cfpy_guarded (a file truncated meanwhile raises OSError), and calls that
 * would hand the mapping to a longer library call (save, merge) work on an
 * in-memory copy made that way first.
 */
#include "cfpy.h"

#include <errno.h>
#include <string.h>

/* Path → encoded bytes (PyUnicode_FSConverter); NULL with an exception. */
static PyObject *encode_path(PyObject *path) {
    PyObject *enc = NULL;
    if (!PyUnicode_FSConverter(path, &enc)) return NULL;
    return enc;
}

/* True for a file object (write()/read() method, attr) rather than a path. */
static bool is_file_object(PyObject *obj, const char *attr) {
    if (PyUnicode_Check(obj) || PyBytes_Check(obj) || PyObject_HasAttrString(obj, "__fspath__"))
        return false;
    return PyObject_HasAttrString(obj, attr);
}

/* cf_save to path, or cf_save_locked to the file `lock` covers. */
static PyObject *save_path(cfpy_filter *self, PyObject *path, const cf_file_lock *lock) {
    PyObject *enc = encode_path(path);
    if (enc == NULL) return NULL;
    /* A mapped filter is saved from a copy: cf_save must not be abandoned
     * midway (its temporary file) by a SIGBUS. */
    cf_filter *copy = NULL;
    if (self->mapped != NULL && (copy = cfpy_filter_clone(self)) == NULL) {
        Py_DECREF(enc);
        return NULL;
    }
    cf_status s;
    int err;
    cfpy_lock_begin(self);
    if (self->f == NULL) { /* closed while this thread waited */
        cfpy_lock_end(self);
        Py_DECREF(enc);
        cf_free(copy);
        cfpy_check_open(self);
        return NULL;
    }
    const cf_filter *src = copy != NULL ? copy : self->f;
    Py_BEGIN_ALLOW_THREADS errno = 0;
    s = lock != NULL ? cf_save_locked(src, lock) : cf_save(src, PyBytes_AS_STRING(enc));
    err = errno;
    Py_END_ALLOW_THREADS cfpy_lock_end(self);
    Py_DECREF(enc);
    cf_free(copy);
    if (s != CF_OK) return cfpy_raise(s, CFPY_WRITE, NULL, err, path);
    Py_RETURN_NONE;
}

const char cfpy_doc_save[] =
    "save($self, file)\n--\n\n"
    "Write the filter to file: a path (str, bytes, os.PathLike), written\n"
    "atomically (temporary file in the same directory, fsync, rename, fsync of\n"
    "the directory: on failure the old file, if any, is untouched), or a\n"
    "binary file object (its write() gets to_bytes()).  Raises OSError.\n\n"
    "Not a lock: two programs that each load, change and save one file\n"
    "lose one's changes (the last rename wins).  Writers that share a file\n"
    "-- this package, the cuckoo command, C programs -- use\n"
    "cuckoofilter.locked(path), which holds the lock they all take.";

PyObject *cfpy_filter_save(cfpy_filter *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"file", NULL};
    PyObject *path;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O:save", kwlist, &path)) return NULL;
    if (cfpy_check_open(self) < 0 || cfpy_clock_sync(self) < 0) return NULL;
    if (is_file_object(path, "write")) {
        PyObject *data = cfpy_filter_to_bytes(self, NULL);
        if (data == NULL) return NULL;
        PyObject *r = PyObject_CallMethod(path, "write", "O", data);
        Py_DECREF(data);
        if (r == NULL) return NULL;
        Py_DECREF(r);
        Py_RETURN_NONE;
    }
    return save_path(self, path, NULL);
}

PyObject *cfpy_filter_save_locked(cfpy_filter *self, const cf_file_lock *lock, PyObject *path) {
    if (cfpy_check_open(self) < 0 || cfpy_clock_sync(self) < 0) return NULL;
    return save_path(self, path, lock);
}

/* cf_deserialize_prefix for cfpy_read_one and
 * cfpy_raise_corrupt_file (out NULL: the filter is freed). */
static cf_status read_prefix(const void *src, size_t len, void **out, size_t *used) {
    cf_filter *f = NULL;
    cf_status s = cf_deserialize_prefix(src, len, &cfpy_allocator, &f, used);
    if (out != NULL)
        *out = f;
    else
        cf_free(f);
    return s;
}

/* Opens with cf_load or cf_map (verify >= 0), outside the GIL. */
static PyObject *open_file(PyObject *cls, PyObject *path, int verify, PyObject *key_func) {
    PyObject *enc = encode_path(path);
    if (enc == NULL) return NULL;
    if (verify >= 0 && cfpy_guard_install() < 0) {
        Py_DECREF(enc);
        return NULL;
    }
    cf_filter *f = NULL;
    cf_status s;
    int err;
    Py_BEGIN_ALLOW_THREADS errno = 0;
    s = verify < 0 ? cf_load(PyBytes_AS_STRING(enc), &cfpy_allocator, &f)
                   : cf_map(PyBytes_AS_STRING(enc), NULL, verify != 0, &f);
    err = errno;
    Py_END_ALLOW_THREADS Py_DECREF(enc);
    if (s == CF_E_CORRUPT) return cfpy_raise_corrupt_file(path, read_prefix, "CuckooFilter", NULL);
    if (s != CF_OK) return cfpy_raise(s, CFPY_READ, NULL, err, path);
    return cfpy_filter_wrap((PyTypeObject *)cls, f, key_func, verify >= 0 ? path : NULL);
}

/* Makes the filter just loaded thread-safe (the library's CF_CONCURRENT,
 * which files never carry); ValueError for one that cannot be (grown or
 * semi-sorted). */
static PyObject *make_concurrent(PyObject *filter) {
    if (filter == NULL) return NULL;
    cf_status s = cf_make_concurrent(((cfpy_filter *)filter)->f);
    if (s == CF_OK) return filter;
    Py_DECREF(filter);
    return cfpy_raise(s, CFPY_READ, NULL, 0, NULL);
}

const char cfpy_doc_load[] =
    "load($type, file, *, concurrent=False, key=None)\n--\n\n"
    "Read and validate a filter (every field, the table's invariants and the\n"
    "checksum) into memory, from a path or a binary file object.  From a file\n"
    "object it reads one filter and nothing after it (read() calls for the\n"
    "lengths the library asks), so filters saved one after another to one\n"
    "file come back in turn; EOFError when the file object is at its end.\n"
    "Raises OSError, or FormatError naming what is wrong (truncated,\n"
    "corrupt, bad magic, unknown version, bad checksum).\n"
    "concurrent=True makes the loaded filter thread-safe, as\n"
    "CuckooFilter(concurrent=True) is (files do not record it); ValueError for\n"
    "a growing or semi-sorted filter.  key: the key= function (files do not\n"
    "record it either).";

PyObject *cfpy_filter_load(PyObject *cls, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"file", "concurrent", "key", NULL};
    PyObject *path, *key = NULL, *key_func;
    int concurrent = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$pO:load", kwlist, &path, &concurrent, &key) ||
        cfpy_key_func_arg(key, &key_func) < 0)
        return NULL;
    PyObject *f;
    if (is_file_object(path, "read")) {
        void *out;
        cf_status s;
        size_t got;
        if (cfpy_read_one(path, read_prefix, &out, &s, &got) < 0)
            f = NULL;
        else if (s != CF_OK)
            f = cfpy_raise_read_one(s, got, NULL);
        else
            f = cfpy_filter_wrap((PyTypeObject *)cls, out, key_func, NULL);
    } else {
        f = open_file(cls, path, -1, key_func);
    }
    Py_XDECREF(key_func);
    return concurrent ? make_concurrent(f) : f;
}

const char cfpy_doc_map[] =
    "map($type, path, verify=False, *, key=None)\n--\n\n"
    "Map a filter file read-only and use its table in place: O(1) in the file's\n"
    "size after validating the header, and processes share one copy in the\n"
    "page cache.  verify=True also checks the checksum and the table's\n"
    "invariants (reads the whole file).  Lookups work; writes raise\n"
    "ReadOnlyError.  close() (or the end of a `with` block) unmaps the file;\n"
    "else it is unmapped when the object is collected.\n\n"
    "Replacing the file (save(), the cuckoo CLI) leaves the mapping intact.  If\n"
    "another program truncates the file in place, calls that read the lost\n"
    "pages raise OSError instead of killing the interpreter with SIGBUS; use\n"
    "load() for files others may rewrite in place.  (verify=True's read\n"
    "during map() itself is not guarded: a truncation at that moment still\n"
    "raises SIGBUS.)";

PyObject *cfpy_filter_map(PyObject *cls, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"path", "verify", "key", NULL};
    PyObject *path, *key = NULL, *key_func;
    int verify = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|p$O:map", kwlist, &path, &verify, &key) ||
        cfpy_key_func_arg(key, &key_func) < 0)
        return NULL;
    PyObject *f = open_file(cls, path, verify, key_func);
    Py_XDECREF(key_func);
    return f;
}

/* ----------------------------------------------------------------- bytes */

typedef struct serialize_call {
    const cf_filter *f;
    void *dst;
    size_t size;
    cf_status s;
} serialize_call;

static void do_serialize(void *p) {
    serialize_call *c = p;
    c->s = cf_serialize(c->f, c->dst, c->size, NULL);
}

const char cfpy_doc_to_bytes[] =
    "to_bytes($self)\n--\n\n"
    "The filter in the library's file format (what save() writes).  bytes(f)\n"
    "is the same.";

PyObject *cfpy_filter_to_bytes(cfpy_filter *self, PyObject *unused) {
    (void)unused;
    if (cfpy_check_open(self) < 0 || cfpy_clock_sync(self) < 0) return NULL;
    for (;;) {
        if (cfpy_check_open(self) < 0) return NULL;
        cfpy_wait_idle(self);
        if (cfpy_check_open(self) < 0) return NULL;
        size_t size = cf_serialized_size(self->f);
        if (size > (size_t)PY_SSIZE_T_MAX) return PyErr_NoMemory();
        PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
        if (out == NULL) return NULL;
        cfpy_lock_begin(self);
        /* Another thread may have run while this one waited for the lock
         * (the GIL was released): a grown filter's size changes. */
        if (self->f == NULL || cf_serialized_size(self->f) != size) {
            cfpy_lock_end(self);
            Py_DECREF(out);
            continue;
        }
        serialize_call c = {self->f, PyBytes_AS_STRING(out), size, CF_OK};
        int bad;
        Py_BEGIN_ALLOW_THREADS bad = cfpy_guarded(self, do_serialize, &c);
        Py_END_ALLOW_THREADS cfpy_lock_end(self);
        if (bad || c.s != CF_OK) {
            Py_DECREF(out);
            return bad ? cfpy_raise_sigbus(self) : cfpy_raise(c.s, CFPY_WRITE, NULL, 0, NULL);
        }
        return out;
    }
}

cf_filter *cfpy_filter_clone(cfpy_filter *self) {
    PyObject *data = cfpy_filter_to_bytes(self, NULL);
    if (data == NULL) return NULL;
    cf_filter *f = NULL;
    cf_status s;
    Py_BEGIN_ALLOW_THREADS s = cf_deserialize(PyBytes_AS_STRING(data),
                                              (size_t)PyBytes_GET_SIZE(data), &cfpy_allocator, &f);
    Py_END_ALLOW_THREADS Py_DECREF(data);
    if (s != CF_OK) {
        cfpy_raise(s, CFPY_READ, NULL, 0, NULL);
        return NULL;
    }
    return f;
}

const char cfpy_doc_from_bytes[] =
    "from_bytes($type, data, /, *, key=None)\n--\n\n"
    "A filter rebuilt from data in the library's file format (bytes or any\n"
    "contiguous buffer), validating every field, the table's invariants and\n"
    "the checksum.  data must hold the filter and nothing else.  Raises\n"
    "FormatError naming what is wrong (status_name CF_E_TRAILING for bytes\n"
    "after a valid filter).  key: the key= function (bytes do not record\n"
    "it).";

/* cf_deserialize, except that an input cf_deserialize calls corrupt which
 * is a whole valid filter followed by more bytes gives CF_E_TRAILING and, in
 * *used, the filter's length (the library's prefix reader says so). */
static cf_status deserialize_whole(const void *src, size_t len, cf_filter **out, size_t *used) {
    cf_status s = cf_deserialize(src, len, &cfpy_allocator, out);
    if (s != CF_E_CORRUPT) return s;
    cf_filter *f = NULL;
    if (cf_deserialize_prefix(src, len, &cfpy_allocator, &f, used) != CF_OK) return s;
    cf_free(f);
    return CF_E_TRAILING;
}

static PyObject *from_data(PyObject *cls, PyObject *data, PyObject *key_func) {
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    cf_filter *f = NULL;
    cf_status s;
    size_t len = (size_t)view.len, used = 0;
    if (PyBytes_Check(data)) {
        Py_BEGIN_ALLOW_THREADS s = deserialize_whole(view.buf, len, &f, &used);
        Py_END_ALLOW_THREADS
    } else {
        /* Another thread could change a mutable buffer under the reader. */
        s = deserialize_whole(view.buf, len, &f, &used);
    }
    PyBuffer_Release(&view);
    if (s == CF_E_TRAILING) return cfpy_raise_trailing(len, used, "CuckooFilter");
    if (s != CF_OK) return cfpy_raise(s, CFPY_READ, NULL, 0, NULL);
    return cfpy_filter_wrap((PyTypeObject *)cls, f, key_func, NULL);
}

PyObject *cfpy_filter_from_bytes(PyObject *cls, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"", "key", NULL};
    PyObject *data, *key = NULL, *key_func;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O:from_bytes", kwlist, &data, &key) ||
        cfpy_key_func_arg(key, &key_func) < 0)
        return NULL;
    PyObject *f = from_data(cls, data, key_func);
    Py_XDECREF(key_func);
    return f;
}

/* Pickles as from_bytes(to_bytes()), the key function (if any) as the
 * state, which __setstate__ restores. */
PyObject *cfpy_filter_reduce(cfpy_filter *self, PyObject *unused) {
    (void)unused;
    return cfpy_pickle_reduce((PyObject *)self, cfpy_filter_to_bytes(self, NULL), self->key_func);
}

PyObject *cfpy_filter_setstate(cfpy_filter *self, PyObject *state) {
    return cfpy_pickle_setstate(&self->key_func, state);
}

/* A copy is an independent in-memory filter with the same bytes and key
 * function (also of a mapped filter, whose copy is writable). */
PyObject *cfpy_filter_copy(cfpy_filter *self, PyObject *unused) {
    (void)unused;
    cf_filter *f = cfpy_filter_clone(self);
    if (f == NULL) return NULL;
    PyObject *o = cfpy_filter_wrap(Py_TYPE(self), f, self->key_func, NULL);
    /* The copy keeps the clock it is read by (a mapped filter's copy,
     * writable, takes the wall clock from the file's). */
    if (o != NULL) ((cfpy_filter *)o)->clock = Py_XNewRef(self->clock);
    return o;
}

PyObject *cfpy_filter_deepcopy(cfpy_filter *self, PyObject *memo) {
    (void)memo;
    return cfpy_filter_copy(self, NULL);
}

/* Equal when the serialized bytes are (same parameters, seed, table and
 * statistics). */
PyObject *cfpy_filter_richcompare(PyObject *a, PyObject *b, int op) {
    if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(a, &cfpy_FilterType) ||
        !PyObject_TypeCheck(b, &cfpy_FilterType))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *x = cfpy_filter_to_bytes((cfpy_filter *)a, NULL);
    return cfpy_bytes_compare(x, x != NULL ? cfpy_filter_to_bytes((cfpy_filter *)b, NULL) : NULL,
                              op);
}

/* ----------------------------------------------------------------- merge */

/* Why cf_merge refused with CF_E_PARAM: the first of the fields it needs
 * equal that differs. */
static PyObject *explain_merge(const cf_filter *a, const cf_filter *b) {
    cf_stats x, y;
    cf_get_stats(a, &x);
    cf_get_stats(b, &y);
    char why[200];
    if ((x.flags | y.flags) & CF_CONCURRENT)
        PyOS_snprintf(why, sizeof why, "concurrent filters cannot be merged (yet)");
    else if ((x.growth_mode == CF_GROWTH_INPLACE) != (y.growth_mode == CF_GROWTH_INPLACE))
        PyOS_snprintf(why, sizeof why, "one grows in place (grow='inplace'), the other not");
    else if (x.growth_mode == CF_GROWTH_INPLACE && x.seed != y.seed)
        PyOS_snprintf(why, sizeof why, "seeds differ (%llu and %llu)", (unsigned long long)x.seed,
                      (unsigned long long)y.seed);
    else if (x.growth_mode == CF_GROWTH_INPLACE && x.target_fpp != y.target_fpp)
        /* Their sizes may differ: the smaller doubles, or its entries go down. */
        PyOS_snprintf(why, sizeof why, "fpp differs (%g and %g: %u- and %u-bit slots)",
                      x.target_fpp, y.target_fpp, x.bits_per_slot, y.bits_per_slot);
    else if (x.growth_mode == CF_GROWTH_INPLACE)
        PyOS_snprintf(why, sizeof why, "fingerprint_bits differ (%u- and %u-bit slots)",
                      x.bits_per_slot, y.bits_per_slot);
    else if (x.num_buckets != y.num_buckets)
        PyOS_snprintf(why, sizeof why, "num_buckets differ (%llu and %llu)",
                      (unsigned long long)x.num_buckets, (unsigned long long)y.num_buckets);
    else if (x.bucket_size != y.bucket_size)
        PyOS_snprintf(why, sizeof why, "bucket_size differs (%u and %u)", x.bucket_size,
                      y.bucket_size);
    else if (x.fingerprint_bits != y.fingerprint_bits)
        PyOS_snprintf(why, sizeof why, "fingerprint_bits differ (%u and %u)", x.fingerprint_bits,
                      y.fingerprint_bits);
    else if (x.seed != y.seed)
        PyOS_snprintf(why, sizeof why, "seeds differ (%llu and %llu)", (unsigned long long)x.seed,
                      (unsigned long long)y.seed);
    else if (x.flags != y.flags)
        PyOS_snprintf(why, sizeof why, "flags differ (%u and %u: semi_sort, grow)", x.flags,
                      y.flags);
    else
        PyOS_snprintf(why, sizeof why,
                      "the filters' shapes differ (grown ones: their growth, target fpp or "
                      "tables; or a file of format 0.1.0)");
    PyErr_Format(PyExc_ValueError,
                 "cannot merge: %s; only filters created with the same options merge", why);
    return NULL;
}

const char cfpy_doc_merge[] =
    "merge($self, other, /)\n--\n\n"
    "Add every fingerprint of other to self (the library's cf_merge), so that\n"
    "self answers every key as one filter built from both filters' keys would:\n"
    "build a filter in parts, then merge.  f |= g is the same; f | g merges\n"
    "into a copy of f.\n\n"
    "The two must have been created with the same options (num_buckets,\n"
    "bucket_size, fingerprint_bits, seed, semi_sort, grow): ValueError names\n"
    "the one that differs.  Filters grown in place (grow='inplace') need the\n"
    "same seed and fpp only: self doubles as it needs to.  All or nothing:\n"
    "FilterFullError when self cannot take every fingerprint of other, and\n"
    "self is then unchanged.  other may\n"
    "be mapped; self may not (ReadOnlyError).  Both must have the same key\n"
    "function.";

PyObject *cfpy_filter_merge(cfpy_filter *self, PyObject *arg) {
    if (!PyObject_TypeCheck(arg, &cfpy_FilterType)) {
        PyErr_Format(PyExc_TypeError, "merge() needs a CuckooFilter, not %.100s",
                     Py_TYPE(arg)->tp_name);
        return NULL;
    }
    cfpy_filter *other = (cfpy_filter *)arg;
    /* Expiring filters merge at one clock: each is set from its own first. */
    if (cfpy_check_open(self) < 0 || cfpy_check_open(other) < 0 || cfpy_clock_sync(self) < 0 ||
        cfpy_clock_sync(other) < 0)
        return NULL;
    if (other == self) {
        PyErr_SetString(PyExc_ValueError, "cannot merge a filter into itself (merge a copy)");
        return NULL;
    }
    if (self->key_func != other->key_func) {
        PyErr_SetString(PyExc_ValueError,
                        "cannot merge filters with different key functions (key=)");
        return NULL;
    }
    /* A mapped source is merged from a copy (cf_merge must not be abandoned
     * midway by a SIGBUS). */
    cf_filter *copy = NULL;
    if (other->mapped != NULL && (copy = cfpy_filter_clone(other)) == NULL) return NULL;
    /* Both locked, in address order: two threads merging a into b and b into
     * a must not each hold one lock. */
    cfpy_filter *first = self < other ? self : other, *second = self < other ? other : self;
    cfpy_lock_begin(first);
    cfpy_lock_begin(second);
    cf_status s = CF_E_PARAM;
    if (self->f != NULL && other->f != NULL) {
        const cf_filter *src = copy != NULL ? copy : other->f;
        Py_BEGIN_ALLOW_THREADS s = cf_merge(self->f, src);
        Py_END_ALLOW_THREADS
    }
    cfpy_lock_end(second);
    cfpy_lock_end(first);
    PyObject *r = NULL;
    if (cfpy_check_open(self) < 0 || cfpy_check_open(other) < 0)
        r = NULL;
    else if (s == CF_E_PARAM)
        r = explain_merge(self->f, copy != NULL ? copy : other->f);
    else if (s != CF_OK)
        r = cfpy_raise(s, CFPY_WRITE, NULL, 0, NULL);
    else
        r = Py_NewRef(Py_None);
    cf_free(copy);
    return r;
}

PyObject *cfpy_filter_or(PyObject *a, PyObject *b) {
    if (!PyObject_TypeCheck(a, &cfpy_FilterType) || !PyObject_TypeCheck(b, &cfpy_FilterType))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *r = cfpy_filter_copy((cfpy_filter *)a, NULL);
    if (r == NULL) return NULL;
    PyObject *m = cfpy_filter_merge((cfpy_filter *)r, b);
    if (m == NULL) {
        Py_DECREF(r);
        return NULL;
    }
    Py_DECREF(m);
    return r;
}

PyObject *cfpy_filter_ior(PyObject *a, PyObject *b) {
    if (!PyObject_TypeCheck(a, &cfpy_FilterType) || !PyObject_TypeCheck(b, &cfpy_FilterType))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *m = cfpy_filter_merge((cfpy_filter *)a, b);
    if (m == NULL) return NULL;
    Py_DECREF(m);
    return Py_NewRef(a);
}
