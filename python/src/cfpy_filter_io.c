/*
 * cfpy_filter_io.c -- CuckooFilter in files and bytes: save, load, map,
 * to_bytes/from_bytes, pickling, copies and equality.  All of them speak the
 * library's file format (docs/FORMAT.md), so a file written here is read by
 * the C library and the cuckoo CLI and the other way round.
 *
 * The GIL is released around file I/O and (de)serialization of immutable
 * input.  Paths are str, bytes or os.PathLike (os.fsencode's rules).
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

const char cfpy_doc_save[] =
    "save($self, path)\n--\n\n"
    "Write the filter to path atomically (temporary file in the same directory,\n"
    "fsync, rename, fsync of the directory): on failure the old file, if any,\n"
    "is untouched.  Raises OSError.";

PyObject *cfpy_filter_save(cfpy_filter *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"path", NULL};
    PyObject *path;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O:save", kwlist, &path)) return NULL;
    PyObject *enc = encode_path(path);
    if (enc == NULL) return NULL;
    cf_status s;
    int err;
    cfpy_lock_begin(self);
    Py_BEGIN_ALLOW_THREADS errno = 0;
    s = cf_save(self->f, PyBytes_AS_STRING(enc));
    err = errno;
    Py_END_ALLOW_THREADS cfpy_lock_end(self);
    Py_DECREF(enc);
    if (s != CF_OK) return cfpy_raise(s, CFPY_WRITE, NULL, err, path);
    Py_RETURN_NONE;
}

/* Opens with cf_load or cf_map (verify >= 0), outside the GIL. */
static PyObject *open_file(PyObject *cls, PyObject *path, int verify) {
    PyObject *enc = encode_path(path);
    if (enc == NULL) return NULL;
    cf_filter *f = NULL;
    cf_status s;
    int err;
    Py_BEGIN_ALLOW_THREADS errno = 0;
    s = verify < 0 ? cf_load(PyBytes_AS_STRING(enc), &cfpy_allocator, &f)
                   : cf_map(PyBytes_AS_STRING(enc), verify != 0, &f);
    err = errno;
    Py_END_ALLOW_THREADS Py_DECREF(enc);
    if (s != CF_OK) return cfpy_raise(s, CFPY_READ, NULL, err, path);
    return cfpy_filter_wrap((PyTypeObject *)cls, f);
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
    "load($type, path, *, concurrent=False)\n--\n\n"
    "Read and validate a filter file (every field, the table's invariants and\n"
    "the checksum) into memory.  Raises OSError, or FormatError naming what is\n"
    "wrong (truncated, corrupt, bad magic, unknown version, bad checksum).\n"
    "concurrent=True makes the loaded filter thread-safe, as\n"
    "CuckooFilter(concurrent=True) is (files do not record it); ValueError for\n"
    "a growing or semi-sorted filter.";

PyObject *cfpy_filter_load(PyObject *cls, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"path", "concurrent", NULL};
    PyObject *path;
    int concurrent = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$p:load", kwlist, &path, &concurrent))
        return NULL;
    PyObject *f = open_file(cls, path, -1);
    return concurrent ? make_concurrent(f) : f;
}

const char cfpy_doc_map[] =
    "map($type, path, verify=False)\n--\n\n"
    "Map a filter file read-only and use its table in place: O(1) in the file's\n"
    "size after validating the header, and processes share one copy in the\n"
    "page cache.  verify=True also checks the checksum and the table's\n"
    "invariants (reads the whole file).  Lookups work; writes raise\n"
    "ReadOnlyError.  The file is unmapped when the object is collected.";

PyObject *cfpy_filter_map(PyObject *cls, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"path", "verify", NULL};
    PyObject *path;
    int verify = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|p:map", kwlist, &path, &verify)) return NULL;
    return open_file(cls, path, verify);
}

const char cfpy_doc_to_bytes[] =
    "to_bytes($self)\n--\n\n"
    "The filter in the library's file format (what save() writes).  bytes(f)\n"
    "is the same.";

PyObject *cfpy_filter_to_bytes(cfpy_filter *self, PyObject *unused) {
    (void)unused;
    cfpy_wait_idle(self);
    size_t size = cf_serialized_size(self->f);
    if (size > (size_t)PY_SSIZE_T_MAX) return PyErr_NoMemory();
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    if (out == NULL) return NULL;
    cf_status s;
    cfpy_lock_begin(self);
    Py_BEGIN_ALLOW_THREADS s = cf_serialize(self->f, PyBytes_AS_STRING(out), size, NULL);
    Py_END_ALLOW_THREADS cfpy_lock_end(self);
    if (s != CF_OK) {
        Py_DECREF(out);
        return cfpy_raise(s, CFPY_WRITE, NULL, 0, NULL);
    }
    return out;
}

const char cfpy_doc_from_bytes[] =
    "from_bytes($type, data, /)\n--\n\n"
    "A filter rebuilt from data in the library's file format (bytes or any\n"
    "contiguous buffer), validating every field, the table's invariants and\n"
    "the checksum.  Raises FormatError naming what is wrong.";

PyObject *cfpy_filter_from_bytes(PyObject *cls, PyObject *data) {
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    cf_filter *f = NULL;
    cf_status s;
    if (PyBytes_Check(data)) {
        Py_BEGIN_ALLOW_THREADS s = cf_deserialize(view.buf, (size_t)view.len, &cfpy_allocator, &f);
        Py_END_ALLOW_THREADS
    } else {
        /* Another thread could change a mutable buffer under the reader. */
        s = cf_deserialize(view.buf, (size_t)view.len, &cfpy_allocator, &f);
    }
    PyBuffer_Release(&view);
    if (s != CF_OK) return cfpy_raise(s, CFPY_READ, NULL, 0, NULL);
    return cfpy_filter_wrap((PyTypeObject *)cls, f);
}

PyObject *cfpy_filter_reduce(cfpy_filter *self, PyObject *unused) {
    (void)unused;
    PyObject *data = cfpy_filter_to_bytes(self, NULL);
    if (data == NULL) return NULL;
    PyObject *ctor = PyObject_GetAttrString((PyObject *)Py_TYPE(self), "from_bytes");
    PyObject *r = ctor != NULL ? Py_BuildValue("(O(O))", ctor, data) : NULL;
    Py_XDECREF(ctor);
    Py_DECREF(data);
    return r;
}

/* A copy is an independent in-memory filter with the same bytes (also of a
 * mapped filter, whose copy is writable). */
PyObject *cfpy_filter_copy(cfpy_filter *self, PyObject *unused) {
    (void)unused;
    PyObject *data = cfpy_filter_to_bytes(self, NULL);
    if (data == NULL) return NULL;
    PyObject *r = cfpy_filter_from_bytes((PyObject *)Py_TYPE(self), data);
    Py_DECREF(data);
    return r;
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
    PyObject *y = x != NULL ? cfpy_filter_to_bytes((cfpy_filter *)b, NULL) : NULL;
    if (y == NULL) {
        Py_XDECREF(x);
        return NULL;
    }
    int eq = PyBytes_GET_SIZE(x) == PyBytes_GET_SIZE(y) &&
             memcmp(PyBytes_AS_STRING(x), PyBytes_AS_STRING(y), (size_t)PyBytes_GET_SIZE(x)) == 0;
    Py_DECREF(x);
    Py_DECREF(y);
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}
