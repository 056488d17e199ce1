/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfpy_errors.c -- library statuses as Python exceptions.
 *
 *   Error (Exception)                 base of the package's own exceptions
 *   ├── FilterFullError               CF_E_FULL: nothing was changed
 *   ├── ReadOnlyError                 CF_E_READONLY: a write to a mapped filter
 *   ├── LockedError (also TimeoutError) CF_E_LOCKED: another writer holds the file
 *   └── FormatError (also ValueError) a corrupt, truncated or foreign file
 *
 * Statuses with a Python counterpart become it (CF_E_PARAM -> ValueError,
 * CF_E_NOMEM -> MemoryError, CF_E_IO and CF_E_NOT_REGULAR -> OSError with errno).  Any other
 * status, including ones added to the library after this file was written,
 * becomes Error.  Every message is the library's own (cf_strerror), with the
 * symbolic name (cf_status_name); the package's exceptions also carry both
 * as attributes `status` (the int) and `status_name`.
 */
#include "cfpy.h"

#include <errno.h>
#include <string.h>

PyObject *cfpy_Error, *cfpy_FilterFullError, *cfpy_FormatError, *cfpy_ReadOnlyError,
    *cfpy_LockedError;

static bool is_format_status(cf_status s) {
    switch (s) {
    case CF_E_CORRUPT:
    case CF_E_VERSION:
    case CF_E_TRUNCATED:
    case CF_E_MAGIC:
    case CF_E_CHECKSUM:
    case CF_E_TRAILING: return true;
    default: return false;
    }
}

static PyObject *exception_for(cf_status s, cfpy_context ctx) {
    if (s == CF_E_FULL) return cfpy_FilterFullError;
    if (s == CF_E_READONLY) return cfpy_ReadOnlyError;
    if (s == CF_E_LOCKED) return cfpy_LockedError;
    if (s == CF_E_NOMEM) return PyExc_MemoryError;
    if (s == CF_E_PARAM || s == CF_E_INVAL) return PyExc_ValueError;
    if (is_format_status(s)) return cfpy_FormatError;
    /* A file claiming a table larger than the machine can hold is a bad
     * file; parameters asking for one are a bad argument. */
    if (s == CF_E_TOO_LARGE) return ctx == CFPY_READ ? cfpy_FormatError : PyExc_ValueError;
    return cfpy_Error;
}

/* OSError(errno, text, path): the text is the system's for errno (as
 * Python's own file calls say it: "No such file or directory",
 * "Read-only file system"), with the library's message when errno says
 * nothing more (0, or CF_E_NOT_REGULAR's kinds of file). */
static PyObject *raise_io(cf_status s, int err_no, PyObject *path, const char *library_msg) {
    PyObject *text;
    if (err_no == 0 || s == CF_E_NOT_REGULAR) {
        if (err_no == 0) err_no = EIO; /* the library does not promise errno */
        text = PyUnicode_FromString(library_msg);
    } else {
        text = PyUnicode_FromString(strerror(err_no));
    }
    if (text == NULL) return NULL;
    PyObject *args = path != NULL ? Py_BuildValue("(iNO)", err_no, text, path)
                                  : Py_BuildValue("(iN)", err_no, text);
    if (args != NULL) {
        PyErr_SetObject(PyExc_OSError, args);
        Py_DECREF(args);
    }
    return NULL;
}

PyObject *cfpy_raise(cf_status s, cfpy_context ctx, const char *detail, int err_no,
                     PyObject *path) {
    PyObject *msg = PyUnicode_FromFormat("%s (%s)%s%s", cf_strerror(s), cf_status_name(s),
                                         detail != NULL ? ": " : "", detail != NULL ? detail : "");
    if (msg == NULL) return NULL;
    if (s == CF_E_IO || s == CF_E_NOT_REGULAR) {
        PyObject *r = raise_io(s, err_no, path, PyUnicode_AsUTF8(msg));
        Py_DECREF(msg);
        return r;
    }
    PyObject *type = exception_for(s, ctx);
    if (type == PyExc_MemoryError) {
        PyErr_SetObject(PyExc_MemoryError, msg); /* with what was asked for, not bare */
        Py_DECREF(msg);
        return NULL;
    }
    PyObject *exc = PyObject_CallOneArg(type, msg);
    Py_DECREF(msg);
    if (exc == NULL) return NULL;
    if (PyObject_IsSubclass(type, cfpy_Error) == 1) {
        PyObject *code = PyLong_FromLong((long)s);
        PyObject *name = PyUnicode_FromString(cf_status_name(s));
        int bad = code == NULL || name == NULL || PyObject_SetAttrString(exc, "status", code) < 0 ||
                  PyObject_SetAttrString(exc, "status_name", name) < 0;
        Py_XDECREF(code);
        Py_XDECREF(name);
        if (bad) {
            Py_DECREF(exc);
            return NULL;
        }
    }
    PyErr_SetObject(type, exc);
    Py_DECREF(exc);
    return NULL;
}

const char *cfpy_full_detail(const cf_filter *f, uint64_t h, char *buf, size_t n) {
    cf_stats st;
    cf_get_stats(f, &st);
    if (st.growth_mode != CF_GROWTH_INPLACE || st.growth_limit != CF_GROWTH_LIMIT_FPP) return NULL;
    if (cf_count_hash(f, h) >= 2 * (size_t)st.bucket_size) return NULL;
    PyOS_snprintf(buf, n,
                  "it cannot double again: the FPP of its full table would pass fpp=%g with "
                  "%u-bit slots after %llu doublings (ask for a larger fpp, or "
                  "fingerprint_bits=32)",
                  st.target_fpp, st.bits_per_slot, (unsigned long long)st.doublings);
    return buf;
}

static int add_exception(PyObject *module, PyObject **slot, const char *name, PyObject *bases,
                         const char *doc) {
    char qualified[64];
    PyOS_snprintf(qualified, sizeof qualified, "cuckoofilter.%s", name);
    *slot = PyErr_NewExceptionWithDoc(qualified, doc, bases, NULL);
    if (*slot == NULL) return -1;
    return PyModule_AddObjectRef(module, name, *slot);
}

int cfpy_errors_init(PyObject *module) {
    if (add_exception(module, &cfpy_Error, "Error", PyExc_Exception,
                      "Base class of the package's exceptions.  `status` is the library's\n"
                      "cf_status code (an int), `status_name` its symbolic name.") < 0)
        return -1;
    if (add_exception(module, &cfpy_FilterFullError, "FilterFullError", cfpy_Error,
                      "No free slot was reachable within max_kicks (or 2 * bucket_size\n"
                      "copies of the key fill both its buckets, or a growing filter reached\n"
                      "a limit: a filter grown in place says when a doubling would pass its\n"
                      "fpp).  The filter is unchanged by the failed insert; bulk calls set\n"
                      "`inserted` to the keys of the call that went in before it.") < 0)
        return -1;
    if (add_exception(module, &cfpy_ReadOnlyError, "ReadOnlyError", cfpy_Error,
                      "A write to a filter opened with CuckooFilter.map (read-only).") < 0)
        return -1;
    PyObject *locked = PyTuple_Pack(2, cfpy_Error, PyExc_TimeoutError);
    if (locked == NULL) return -1;
    int rl = add_exception(module, &cfpy_LockedError, "LockedError", locked,
                           "Another writer (a program, the cuckoo command) still held the\n"
                           "file's lock when the wait given to cuckoofilter.locked() ended.");
    Py_DECREF(locked);
    if (rl < 0) return -1;
    PyObject *bases = PyTuple_Pack(2, cfpy_Error, PyExc_ValueError);
    if (bases == NULL) return -1;
    int r = add_exception(module, &cfpy_FormatError, "FormatError", bases,
                          "Bytes or a file that are not a valid filter: truncated, corrupt,\n"
                          "an unknown version, a bad checksum, or a size this machine cannot\n"
                          "hold.  The status names which.");
    Py_DECREF(bases);
    return r;
}
