/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfpy_stream.c -- one filter read from a file object, and nothing after it,
 * so that filters written one after another to one file come back in turn.
 *
 * The extension does not know how long a filter is (the header's sizes are
 * the library's): it asks.  cf_deserialize_prefix (and the Bloom one) says
 * CF_E_TRUNCATED with the length the input must reach before it can say
 * more -- the first header, the next record header, the whole filter -- and
 * never a length past the filter, so reading exactly what it asks each time
 * leaves the file object just after the filter, also for pipes and sockets
 * that cannot seek back.
 */
#include "cfpy.h"

int cfpy_read_one(PyObject *file, cfpy_prefix_reader prefix, void **out, cf_status *status,
                  size_t *got) {
    if (out != NULL) *out = NULL;
    *got = 0;
    PyObject *buf = PyByteArray_FromStringAndSize(NULL, 0);
    if (buf == NULL) return -1;
    for (;;) {
        size_t have = (size_t)PyByteArray_GET_SIZE(buf), used = 0;
        const char *src = PyByteArray_AS_STRING(buf); /* never NULL, also when empty */
        cf_status s;
        /* The buffer is this call's own: no other thread can change it. */
        Py_BEGIN_ALLOW_THREADS s = prefix(src, have, out, &used);
        Py_END_ALLOW_THREADS *got = have;
        if (s != CF_E_TRUNCATED || used <= have) {
            *status = s;
            Py_DECREF(buf);
            return 0;
        }
        if (used - have > (size_t)PY_SSIZE_T_MAX) {
            Py_DECREF(buf);
            PyErr_NoMemory();
            return -1;
        }
        PyObject *chunk = PyObject_CallMethod(file, "read", "n", (Py_ssize_t)(used - have));
        if (chunk == NULL) {
            Py_DECREF(buf);
            return -1;
        }
        Py_buffer view;
        if (PyObject_GetBuffer(chunk, &view, PyBUF_C_CONTIGUOUS) < 0) {
            if (PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Clear();
                PyErr_Format(PyExc_TypeError,
                             "the file object's read() returned %.100s, not bytes (a file "
                             "opened in binary mode, 'rb', and blocking)",
                             chunk == Py_None ? "None" : Py_TYPE(chunk)->tp_name);
            }
            Py_DECREF(chunk);
            Py_DECREF(buf);
            return -1;
        }
        int rc = 0;
        if (view.len == 0) { /* the end of the file */
            *status = CF_E_TRUNCATED;
        } else if (PyByteArray_Resize(buf, (Py_ssize_t)have + view.len) < 0) {
            rc = -1;
        } else {
            memcpy(PyByteArray_AS_STRING(buf) + have, view.buf, (size_t)view.len);
        }
        bool end = view.len == 0;
        PyBuffer_Release(&view);
        Py_DECREF(chunk);
        if (rc < 0 || end) {
            Py_DECREF(buf);
            return rc;
        }
    }
}

PyObject *cfpy_raise_read_one(cf_status s, size_t got, const char *detail) {
    if (s == CF_E_TRUNCATED && got == 0) {
        PyErr_SetString(PyExc_EOFError, "no filter to read: the file object is at its end");
        return NULL;
    }
    if (s != CF_E_TRUNCATED) return cfpy_raise(s, CFPY_READ, detail, 0, NULL);
    char where[200];
    PyOS_snprintf(where, sizeof where, "%s%sthe file object ended after %zu bytes",
                  detail != NULL ? detail : "", detail != NULL ? "; " : "", got);
    return cfpy_raise(s, CFPY_READ, where, 0, NULL);
}

PyObject *cfpy_raise_trailing(size_t len, size_t used, const char *what) {
    char detail[200];
    PyOS_snprintf(detail, sizeof detail,
                  "%zu byte%s after the filter's %zu (%s.load(file) reads filters written "
                  "one after another to a file object in turn)",
                  len - used, len - used == 1 ? "" : "s", used, what);
    return cfpy_raise(CF_E_TRAILING, CFPY_READ, detail, 0, NULL);
}

/* 1 when the file at path is one valid filter followed by more bytes: then
 * *used is the filter's length and *size the file's.  0 otherwise,
 * including when the file cannot be read again (no exception is left). */
static int file_has_trailing(PyObject *path, cfpy_prefix_reader prefix, size_t *used,
                             size_t *size) {
    PyObject *io = PyImport_ImportModule("io");
    PyObject *file = io != NULL ? PyObject_CallMethod(io, "open", "Os", path, "rb") : NULL;
    Py_XDECREF(io);
    if (file == NULL) {
        PyErr_Clear();
        return 0;
    }
    cf_status s = CF_E_CORRUPT;
    int found = 0;
    /* Only the filter's length is wanted: out NULL frees the filter. */
    if (cfpy_read_one(file, prefix, NULL, &s, used) == 0 && s == CF_OK) {
        PyObject *end = PyObject_CallMethod(file, "seek", "ii", 0, 2);
        Py_ssize_t n = end != NULL ? PyLong_AsSsize_t(end) : -1;
        Py_XDECREF(end);
        if (n > 0 && (size_t)n > *used) {
            *size = (size_t)n;
            found = 1;
        }
    }
    PyObject *r = PyObject_CallMethod(file, "close", NULL);
    Py_XDECREF(r);
    Py_DECREF(file);
    PyErr_Clear();
    return found;
}

PyObject *cfpy_raise_corrupt_file(PyObject *path, cfpy_prefix_reader prefix, const char *what,
                                  const char *detail) {
    size_t used = 0, size = 0;
    if (path != NULL && file_has_trailing(path, prefix, &used, &size))
        return cfpy_raise_trailing(size, used, what);
    return cfpy_raise(CF_E_CORRUPT, CFPY_READ, detail, 0, NULL);
}
