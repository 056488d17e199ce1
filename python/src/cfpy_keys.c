/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfpy_keys.c -- Python objects to key bytes, the same bytes the C library
 * and the `cuckoo` CLI hash:
 *
 *   bytes, bytearray, memoryview   their bytes (C-contiguous views only)
 *   str                            its UTF-8 encoding
 *   int                            8 bytes, little-endian two's complement:
 *                                  -2^63 <= x < 2^64, else OverflowError
 *                                  (so x and x + 2^64 never share a key)
 *
 * Anything else is a TypeError: hashing repr() or pickles would make keys
 * that no other language can reproduce.  Other types go through a key=
 * function the user chooses (cfpy_key_apply), which says how they are
 * turned into one of the above.
 */
#include "cfpy.h"

#include <string.h>

/* One 8-byte store: a loop of byte stores here, read back as one word
 * moments later by the bulk calls, stalled every int key on store
 * forwarding (13% of contains_many's time over 1M ints). */
static void store_le64(unsigned char *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, 8);
}

static int int_key(PyObject *obj, cfpy_key *k) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    uint64_t u = (uint64_t)v;
    if (overflow > 0) {
        /* Above 2^63 - 1: the unsigned range still fits in 8 bytes. */
        unsigned long long w = PyLong_AsUnsignedLongLong(obj);
        if (w == (unsigned long long)-1 && PyErr_Occurred())
            overflow = -1;
        else
            u = w;
    }
    if (overflow < 0) {
        PyErr_Clear();
        PyErr_SetString(PyExc_OverflowError,
                        "int key out of range: keys are 8 bytes, -2**63 <= key < 2**64");
        return -1;
    }
    store_le64(k->word, u);
    k->ptr = k->word;
    k->len = 8;
    return 0;
}

int cfpy_key_get(PyObject *obj, cfpy_key *k) {
    k->view.obj = NULL;
    if (PyBytes_Check(obj)) {
        k->ptr = PyBytes_AS_STRING(obj);
        k->len = (size_t)PyBytes_GET_SIZE(obj);
        return 0;
    }
    if (PyUnicode_Check(obj)) {
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(obj, &n);
        if (s == NULL) return -1;
        k->ptr = s;
        k->len = (size_t)n;
        return 0;
    }
    if (PyLong_Check(obj)) return int_key(obj, k);
    if (PyByteArray_Check(obj) || PyMemoryView_Check(obj)) {
        if (PyObject_GetBuffer(obj, &k->view, PyBUF_C_CONTIGUOUS) < 0) {
            k->view.obj = NULL;
            return -1;
        }
        k->ptr = k->view.buf;
        k->len = (size_t)k->view.len;
        return 0;
    }
    PyErr_Format(PyExc_TypeError,
                 "a key must be bytes, bytearray, memoryview, str or int, not %.100s",
                 Py_TYPE(obj)->tp_name);
    return -1;
}

void cfpy_key_release(cfpy_key *k) {
    if (k->view.obj != NULL) PyBuffer_Release(&k->view);
}

PyObject *cfpy_key_apply(PyObject *key_func, PyObject *obj) {
    if (key_func == NULL) return Py_NewRef(obj);
    return PyObject_CallOneArg(key_func, obj);
}

int cfpy_key_func_arg(PyObject *arg, PyObject **out) {
    *out = NULL;
    if (arg == NULL || arg == Py_None) return 0;
    if (!PyCallable_Check(arg)) {
        PyErr_Format(PyExc_TypeError,
                     "key must be a function returning bytes, str or int (or None), not %.100s",
                     Py_TYPE(arg)->tp_name);
        return -1;
    }
    *out = Py_NewRef(arg);
    return 0;
}

/* The exception being raised, normalized (a new reference), cleared; and
 * back.  PyErr_Fetch is deprecated from 3.12, which has these. */
static PyObject *take_exception(void) {
#if PY_VERSION_HEX >= 0x030C0000
    return PyErr_GetRaisedException();
#else
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != NULL && value != NULL) PyException_SetTraceback(value, tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    return value;
#endif
}

static void give_exception(PyObject *exc) {
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(exc);
#else
    PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(exc)), exc, PyException_GetTraceback(exc));
#endif
}

/* 0 when pickle.dumps(key_func) works; else -1 with a PicklingError that
 * names the filter's key function as what cannot be pickled (the pickler's
 * own error, raised later while it pickles the state, names only
 * "<function <lambda> ...>"), the pickler's error as its cause. */
static int check_key_func_pickles(PyObject *self, PyObject *key_func) {
    PyObject *pickle = PyImport_ImportModule("pickle");
    if (pickle == NULL) return -1;
    PyObject *r = PyObject_CallMethod(pickle, "dumps", "O", key_func);
    if (r != NULL) {
        Py_DECREF(r);
        Py_DECREF(pickle);
        return 0;
    }
    PyObject *cause = take_exception();
    if (cause == NULL) {
        Py_DECREF(pickle);
        return -1;
    }
    PyObject *error = PyObject_GetAttrString(pickle, "PicklingError");
    Py_DECREF(pickle);
    if (error == NULL) {
        Py_DECREF(cause);
        return -1;
    }
    PyErr_Format(error,
                 "cannot pickle this %s: its key function (key=%R) cannot be pickled (%S); "
                 "give key= a function defined at a module's top level, or pickle bytes(f) "
                 "and rebuild it with from_bytes(data, key=...)",
                 Py_TYPE(self)->tp_name, key_func, cause);
    Py_DECREF(error);
    PyObject *exc = take_exception();
    if (exc == NULL) {
        Py_DECREF(cause);
        return -1;
    }
    PyException_SetCause(exc, cause); /* steals cause */
    give_exception(exc);
    return -1;
}

PyObject *cfpy_pickle_reduce(PyObject *self, PyObject *data, PyObject *key_func) {
    if (data == NULL) return NULL;
    if (key_func != NULL && check_key_func_pickles(self, key_func) < 0) {
        Py_DECREF(data);
        return NULL;
    }
    PyObject *ctor = PyObject_GetAttrString((PyObject *)Py_TYPE(self), "from_bytes");
    PyObject *r = NULL;
    if (ctor != NULL)
        r = key_func != NULL ? Py_BuildValue("(O(O)O)", ctor, data, key_func)
                             : Py_BuildValue("(O(O))", ctor, data);
    Py_XDECREF(ctor);
    Py_DECREF(data);
    return r;
}

PyObject *cfpy_pickle_setstate(PyObject **slot, PyObject *state) {
    PyObject *key_func;
    if (cfpy_key_func_arg(state, &key_func) < 0) return NULL;
    Py_XSETREF(*slot, key_func);
    Py_RETURN_NONE;
}

PyObject *cfpy_bytes_compare(PyObject *x, PyObject *y, int op) {
    if (x == NULL || y == NULL) {
        Py_XDECREF(x);
        Py_XDECREF(y);
        return NULL;
    }
    int eq = PyBytes_GET_SIZE(x) == PyBytes_GET_SIZE(y) &&
             memcmp(PyBytes_AS_STRING(x), PyBytes_AS_STRING(y), (size_t)PyBytes_GET_SIZE(x)) == 0;
    Py_DECREF(x);
    Py_DECREF(y);
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}
