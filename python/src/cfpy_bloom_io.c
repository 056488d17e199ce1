/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfpy_bloom_io.c -- BloomFilter in files and bytes: save, load,
 * to_bytes/from_bytes, pickling, copies and equality, in the library's Bloom
 * image (docs/FORMAT.md, "Bloom filters"; cf_bloom_serialize, cf_bloom_save),
 * so a file written here is read by the C library and the other way round.
 *
 * cf_bloom has no lock, so every call here keeps the GIL (as add and
 * update do): no other thread can change the bits under a serialization.
 * A mapped filter's bits are its file's pages: reading them runs under
 * cfpy_guarded_map (a file truncated meanwhile raises OSError), and a save
 * writes from an in-memory copy (cf_bloom_save must not be abandoned
 * midway with its temporary file open).
 * Paths are str, bytes or os.PathLike; save and load also take binary file
 * objects (anything with write() / read()), as CuckooFilter's do.
 */
#include "cfpy.h"

#include <errno.h>
#include <string.h>

/* Said after a read's status: the library's CF_E_MAGIC text names cuckoo
 * filters. */
static const char read_detail[] = "reading a BloomFilter image";

/* True for a file object (a method attr) rather than a path. */
static bool is_file_object(PyObject *obj, const char *attr) {
    if (PyUnicode_Check(obj) || PyBytes_Check(obj) || PyObject_HasAttrString(obj, "__fspath__"))
        return false;
    return PyObject_HasAttrString(obj, attr);
}

/* Wraps b (owned) in a new object of type cls with key_func (borrowed)
 * and, for a mapped filter, its path (mapped, borrowed; else NULL). */
static PyObject *wrap(PyTypeObject *cls, cf_bloom *b, PyObject *key_func, PyObject *mapped) {
    cfpy_bloom *self = (cfpy_bloom *)cls->tp_alloc(cls, 0);
    if (self == NULL) {
        cf_bloom_free(b);
        return NULL;
    }
    self->b = b;
    self->key_func = Py_XNewRef(key_func);
    self->mapped = Py_XNewRef(mapped);
    return (PyObject *)self;
}

typedef struct serialize_call {
    const cf_bloom *b;
    void *dst;
    size_t size;
    cf_status s;
} serialize_call;

static void do_serialize(void *p) {
    serialize_call *c = p;
    c->s = cf_bloom_serialize(c->b, c->dst, c->size, NULL);
}

const char cfpy_doc_bloom_to_bytes[] =
    "to_bytes($self)\n--\n\n"
    "The filter in the library's Bloom image (docs/FORMAT.md, \"Bloom filters\";\n"
    "what save() writes): header, bits, checksum.  bytes(b) is the same.";

PyObject *cfpy_bloom_to_bytes(cfpy_bloom *self, PyObject *unused) {
    (void)unused;
    if (cfpy_bloom_check_open(self) < 0) return NULL;
    size_t size = cf_bloom_serialized_size(self->b);
    if (size > (size_t)PY_SSIZE_T_MAX) return PyErr_NoMemory();
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    if (out == NULL) return NULL;
    serialize_call c = {self->b, PyBytes_AS_STRING(out), size, CF_OK};
    int bad = cfpy_guarded_map(self->mapped, do_serialize, &c);
    if (bad || c.s != CF_OK) {
        Py_DECREF(out);
        return bad ? cfpy_raise_sigbus_map(self->mapped)
                   : cfpy_raise(c.s, CFPY_WRITE, NULL, 0, NULL);
    }
    return out;
}

/* A BloomFilter from a buffer in the Bloom image, and nothing else: an
 * image cf_bloom_deserialize calls corrupt which is a whole valid one
 * followed by more bytes is named as such (the library's prefix reader
 * says so). */
static PyObject *from_data(PyObject *cls, PyObject *data, PyObject *key_func) {
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    cf_bloom *b = NULL;
    size_t len = (size_t)view.len, used = 0;
    cf_status s = cf_bloom_deserialize(view.buf, len, &cfpy_allocator, &b);
    if (s == CF_E_CORRUPT &&
        cf_bloom_deserialize_prefix(view.buf, len, &cfpy_allocator, &b, &used) == CF_OK) {
        cf_bloom_free(b);
        s = CF_E_TRAILING;
    }
    PyBuffer_Release(&view);
    if (s == CF_E_TRAILING) return cfpy_raise_trailing(len, used, "BloomFilter");
    if (s != CF_OK) return cfpy_raise(s, CFPY_READ, read_detail, 0, NULL);
    return wrap((PyTypeObject *)cls, b, key_func, NULL);
}

/* cf_bloom_deserialize_prefix for cfpy_read_one and cfpy_raise_corrupt_file
 * (out NULL: the filter is freed). */
static cf_status read_prefix(const void *src, size_t len, void **out, size_t *used) {
    cf_bloom *b = NULL;
    cf_status s = cf_bloom_deserialize_prefix(src, len, &cfpy_allocator, &b, used);
    if (out != NULL)
        *out = b;
    else
        cf_bloom_free(b);
    return s;
}

const char cfpy_doc_bloom_from_bytes[] =
    "from_bytes($type, data, /, *, key=None)\n--\n\n"
    "A Bloom filter rebuilt from data in the library's Bloom image (bytes or\n"
    "any contiguous buffer), validating every field, the bits and the\n"
    "checksum.  data must hold the filter and nothing else.  Raises\n"
    "FormatError naming what is wrong (a CuckooFilter's bytes: bad magic;\n"
    "bytes after a valid filter: CF_E_TRAILING).  key: the key= function\n"
    "(bytes do not record it).";

PyObject *cfpy_bloom_from_bytes(PyObject *cls, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"", "key", NULL};
    PyObject *data, *key = NULL, *key_func;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O:from_bytes", kwlist, &data, &key) ||
        cfpy_key_func_arg(key, &key_func) < 0)
        return NULL;
    PyObject *b = from_data(cls, data, key_func);
    Py_XDECREF(key_func);
    return b;
}

const char cfpy_doc_bloom_save[] =
    "save($self, file)\n--\n\n"
    "Write the filter to file: a path (str, bytes, os.PathLike), written\n"
    "atomically as CuckooFilter.save writes (temporary file, fsync, rename),\n"
    "or a binary file object (its write() gets to_bytes()).  Raises OSError.";

PyObject *cfpy_bloom_save(cfpy_bloom *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"file", NULL};
    PyObject *path;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O:save", kwlist, &path)) return NULL;
    if (cfpy_bloom_check_open(self) < 0) return NULL;
    if (is_file_object(path, "write")) {
        PyObject *data = cfpy_bloom_to_bytes(self, NULL);
        if (data == NULL) return NULL;
        PyObject *r = PyObject_CallMethod(path, "write", "O", data);
        Py_DECREF(data);
        if (r == NULL) return NULL;
        Py_DECREF(r);
        Py_RETURN_NONE;
    }
    PyObject *enc = NULL;
    if (!PyUnicode_FSConverter(path, &enc)) return NULL;
    if (cfpy_bloom_check_open(self) < 0) { /* a path's __fspath__ may have closed it */
        Py_DECREF(enc);
        return NULL;
    }
    /* The GIL stays held: cf_bloom has no lock, and another thread's add
     * during the write would tear the image. */
    cf_bloom *copy = NULL;
    if (self->mapped != NULL) {
        PyObject *data = cfpy_bloom_to_bytes(self, NULL); /* guarded */
        cf_status s = data == NULL ? CF_OK
                                   : cf_bloom_deserialize(PyBytes_AS_STRING(data),
                                                          (size_t)PyBytes_GET_SIZE(data),
                                                          &cfpy_allocator, &copy);
        Py_XDECREF(data);
        if (data == NULL || s != CF_OK) {
            Py_DECREF(enc);
            return data == NULL ? NULL : cfpy_raise(s, CFPY_READ, read_detail, 0, NULL);
        }
    }
    errno = 0;
    cf_status s = cf_bloom_save(copy != NULL ? copy : self->b, PyBytes_AS_STRING(enc));
    int err = errno;
    cf_bloom_free(copy);
    Py_DECREF(enc);
    if (s != CF_OK) return cfpy_raise(s, CFPY_WRITE, NULL, err, path);
    Py_RETURN_NONE;
}

const char cfpy_doc_bloom_load[] =
    "load($type, file, *, key=None)\n--\n\n"
    "Read and validate a Bloom filter (every field, the bits and the\n"
    "checksum) from a path or a binary file object.  From a file object it\n"
    "reads one filter and nothing after it, so filters saved one after\n"
    "another to one file come back in turn; EOFError when the file object is\n"
    "at its end.  Raises OSError, or FormatError naming what is wrong.  key:\n"
    "the key= function (files do not record it).";

PyObject *cfpy_bloom_load(PyObject *cls, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"file", "key", NULL};
    PyObject *path, *key = NULL, *key_func;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O:load", kwlist, &path, &key) ||
        cfpy_key_func_arg(key, &key_func) < 0)
        return NULL;
    PyObject *r = NULL;
    if (is_file_object(path, "read")) {
        void *out;
        cf_status s;
        size_t got;
        if (cfpy_read_one(path, read_prefix, &out, &s, &got) < 0)
            r = NULL;
        else if (s != CF_OK)
            r = cfpy_raise_read_one(s, got, read_detail);
        else
            r = wrap((PyTypeObject *)cls, out, key_func, NULL);
    } else {
        PyObject *enc = NULL;
        if (PyUnicode_FSConverter(path, &enc)) {
            cf_bloom *b = NULL;
            cf_status s;
            int err;
            /* The new filter is no one else's yet: the GIL can go. */
            Py_BEGIN_ALLOW_THREADS errno = 0;
            s = cf_bloom_load(PyBytes_AS_STRING(enc), &cfpy_allocator, &b);
            err = errno;
            Py_END_ALLOW_THREADS Py_DECREF(enc);
            if (s == CF_E_CORRUPT)
                r = cfpy_raise_corrupt_file(path, read_prefix, "BloomFilter", read_detail);
            else
                r = s != CF_OK ? cfpy_raise(s, CFPY_READ, read_detail, err, path)
                               : wrap((PyTypeObject *)cls, b, key_func, NULL);
        }
    }
    Py_XDECREF(key_func);
    return r;
}

const char cfpy_doc_bloom_map[] =
    "map($type, path, *, key=None)\n--\n\n"
    "Map a Bloom filter file read-only and use its bits in place: processes\n"
    "share one copy in the page cache, and no copy of the bits is made.\n"
    "Every field, the bits and the checksum are validated first (the Bloom\n"
    "header has no check of its own), which reads the whole file once.\n"
    "Lookups, save(), to_bytes() and copy() work; add() and update() raise\n"
    "ReadOnlyError.  close() (or the end of a `with` block) unmaps the file;\n"
    "else it is unmapped when the object is collected.\n\n"
    "Replacing the file (save()) leaves the mapping intact.  If another\n"
    "program truncates the file in place, calls that read the lost pages\n"
    "raise OSError instead of killing the interpreter with SIGBUS; use load()\n"
    "for files others may rewrite in place.  (The validating read during\n"
    "map() itself is not guarded: a truncation at that moment still raises\n"
    "SIGBUS.)  key: the key= function.";

PyObject *cfpy_bloom_map(PyObject *cls, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"path", "key", NULL};
    PyObject *path, *key = NULL, *key_func, *enc = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O:map", kwlist, &path, &key) ||
        cfpy_key_func_arg(key, &key_func) < 0)
        return NULL;
    PyObject *r = NULL;
    if (cfpy_guard_install() == 0 && PyUnicode_FSConverter(path, &enc)) {
        cf_bloom *b = NULL;
        cf_status s;
        int err;
        /* The new filter is no one else's yet: the GIL can go. */
        Py_BEGIN_ALLOW_THREADS errno = 0;
        s = cf_bloom_map(PyBytes_AS_STRING(enc), &cfpy_allocator, &b);
        err = errno;
        Py_END_ALLOW_THREADS Py_DECREF(enc);
        if (s == CF_E_CORRUPT)
            r = cfpy_raise_corrupt_file(path, read_prefix, "BloomFilter", read_detail);
        else
            r = s != CF_OK ? cfpy_raise(s, CFPY_READ, read_detail, err, path)
                           : wrap((PyTypeObject *)cls, b, key_func, path);
    }
    Py_XDECREF(key_func);
    return r;
}

/* Pickles as from_bytes(to_bytes()), the key function (if any) as the
 * state, which __setstate__ restores. */
PyObject *cfpy_bloom_reduce(cfpy_bloom *self, PyObject *unused) {
    (void)unused;
    return cfpy_pickle_reduce((PyObject *)self, cfpy_bloom_to_bytes(self, NULL), self->key_func);
}

PyObject *cfpy_bloom_setstate(cfpy_bloom *self, PyObject *state) {
    return cfpy_pickle_setstate(&self->key_func, state);
}

/* An independent filter with the same bytes and key function. */
PyObject *cfpy_bloom_copy(cfpy_bloom *self, PyObject *unused) {
    (void)unused;
    PyObject *data = cfpy_bloom_to_bytes(self, NULL);
    if (data == NULL) return NULL;
    PyObject *r = from_data((PyObject *)Py_TYPE(self), data, self->key_func);
    Py_DECREF(data);
    return r;
}

PyObject *cfpy_bloom_deepcopy(cfpy_bloom *self, PyObject *memo) {
    (void)memo;
    return cfpy_bloom_copy(self, NULL);
}

/* Equal when the images are: same k, bits, seed and items count. */
PyObject *cfpy_bloom_richcompare(PyObject *a, PyObject *b, int op) {
    if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(a, &cfpy_BloomType) ||
        !PyObject_TypeCheck(b, &cfpy_BloomType))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *x = cfpy_bloom_to_bytes((cfpy_bloom *)a, NULL);
    return cfpy_bytes_compare(x, x != NULL ? cfpy_bloom_to_bytes((cfpy_bloom *)b, NULL) : NULL, op);
}
