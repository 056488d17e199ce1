/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfpy_lock.c -- _cuckoofilter.FileLock: the library's file lock
 * (cf_file_lock_acquire), the one the cuckoo command and C programs take
 * around a load-change-save of a filter file, so that none of them loses
 * another's changes.  cuckoofilter.locked() (the package's __init__.py)
 * is the interface users see; this type is its engine.
 *
 *   FileLock(path, timeout=None)   takes the lock, waiting with the GIL
 *                                  released (None: as long as it takes;
 *                                  0: once; seconds otherwise)
 *   .path                          the file the lock covers (links followed)
 *   .save(filter)                  cf_save_locked: refuses (LockedError) if
 *                                  the lock file was replaced meanwhile
 *   .release()                     idempotent; also when collected
 */
#include "cfpy.h"

#include <errno.h>
#include <limits.h>
#include <math.h>

typedef struct cfpy_lock {
    PyObject_HEAD cf_file_lock *lock; /* NULL once released */
    PyObject *path;                   /* str: the file the lock covers */
} cfpy_lock;

static int lock_init(cfpy_lock *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"path", "timeout", NULL};
    PyObject *path, *timeout = Py_None, *enc = NULL;
    if (self->lock != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "FileLock is already initialised");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:FileLock", kwlist, &path, &timeout)) return -1;
    int timeout_ms = -1;
    if (timeout != Py_None) {
        double t = PyFloat_AsDouble(timeout);
        if (t == -1.0 && PyErr_Occurred()) return -1;
        if (!(t >= 0) || t > INT_MAX / 1000) {
            PyErr_Format(PyExc_ValueError,
                         "timeout=%R is not a wait in seconds (None: as long "
                         "as it takes, 0: try once, up to %d)",
                         timeout, INT_MAX / 1000);
            return -1;
        }
        timeout_ms = (int)ceil(t * 1000.0);
    }
    if (!PyUnicode_FSConverter(path, &enc)) return -1;
    cf_file_lock *l = NULL;
    cf_status s;
    int err;
    Py_BEGIN_ALLOW_THREADS errno = 0;
    s = cf_file_lock_acquire(PyBytes_AS_STRING(enc), timeout_ms, &cfpy_allocator, &l);
    err = errno;
    Py_END_ALLOW_THREADS Py_DECREF(enc);
    if (s != CF_OK) {
        char detail[96] = "";
        if (s == CF_E_LOCKED)
            PyOS_snprintf(detail, sizeof detail, "still held when timeout=%g ended",
                          timeout_ms / 1000.0);
        cfpy_raise(s, CFPY_WRITE, detail[0] ? detail : NULL, err, path);
        return -1;
    }
    self->path = PyUnicode_DecodeFSDefault(cf_file_lock_path(l));
    if (self->path == NULL) {
        cf_file_lock_release(l);
        return -1;
    }
    self->lock = l;
    return 0;
}

static void lock_release_now(cfpy_lock *self) {
    if (self->lock == NULL) return;
    cf_file_lock *l = self->lock;
    self->lock = NULL;
    Py_BEGIN_ALLOW_THREADS cf_file_lock_release(l);
    Py_END_ALLOW_THREADS
}

static void lock_dealloc(cfpy_lock *self) {
    lock_release_now(self);
    Py_CLEAR(self->path);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *lock_release(cfpy_lock *self, PyObject *unused) {
    (void)unused;
    lock_release_now(self);
    Py_RETURN_NONE;
}

static PyObject *lock_save(cfpy_lock *self, PyObject *filter) {
    if (self->lock == NULL) {
        PyErr_SetString(PyExc_ValueError, "the lock was released: take it again to save");
        return NULL;
    }
    if (!PyObject_TypeCheck(filter, &cfpy_FilterType)) {
        PyErr_Format(PyExc_TypeError, "save() takes a CuckooFilter, not %.100s",
                     Py_TYPE(filter)->tp_name);
        return NULL;
    }
    return cfpy_filter_save_locked((cfpy_filter *)filter, self->lock, self->path);
}

static PyObject *lock_get_path(cfpy_lock *self, void *unused) {
    (void)unused;
    if (self->path == NULL) Py_RETURN_NONE;
    return Py_NewRef(self->path);
}

static PyObject *lock_get_held(cfpy_lock *self, void *unused) {
    (void)unused;
    return PyBool_FromLong(self->lock != NULL);
}

static PyMethodDef lock_methods[] = {
    {"save", (PyCFunction)lock_save, METH_O,
     "save($self, filter, /)\n--\n\nWrite filter to the locked file (cf_save_locked)."},
    {"release", (PyCFunction)lock_release, METH_NOARGS,
     "release($self, /)\n--\n\nRelease the lock (again: nothing)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef lock_getset[] = {
    {"path", (getter)lock_get_path, NULL, "The file the lock covers (links followed).", NULL},
    {"held", (getter)lock_get_held, NULL, "Whether the lock is still held.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject cfpy_LockType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cuckoofilter._cuckoofilter.FileLock",
    .tp_basicsize = sizeof(cfpy_lock),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "FileLock(path, timeout=None)\n--\n\n"
              "The lock of a filter file, as the cuckoo command takes it (use\n"
              "cuckoofilter.locked(), which loads and saves under it).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)lock_init,
    .tp_dealloc = (destructor)lock_dealloc,
    .tp_methods = lock_methods,
    .tp_getset = lock_getset,
};

int cfpy_lock_init(PyObject *module) {
    if (PyType_Ready(&cfpy_LockType) < 0) return -1;
    return PyModule_AddObjectRef(module, "FileLock", (PyObject *)&cfpy_LockType);
}
