/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfpy_clock.c -- an expiring filter's clock (CuckooFilter(expire=...)).
 *
 * The library's clock is a number the caller sets (cf_set_time); here it
 * counts whole seconds since 1970, as the cuckoo command's files do, so a
 * file moves between the two and answers alike.  Every call on an expiring
 * filter sets it first, once (a bulk call once for all its keys), from:
 *
 *   now= callable given   its value (seconds, int or float, floored); a
 *                         time before the filter's clock is refused
 *                         (ValueError: the library's CF_E_INVAL)
 *   none given            the wall clock, held at the filter's clock if the
 *                         system's steps back (NTP): a user's add() never
 *                         fails because of it
 *
 * A mapped filter keeps its file's clock (cf_set_time refuses writes to
 * it): it answers as of the file's last write.
 */
#include "cfpy.h"

#include <math.h>
#include <time.h>

/* The seconds obj (the now= callable's result) means, floored; 0, or -1
 * with an exception. */
static int seconds_of(PyObject *obj, uint64_t *out) {
    if (PyFloat_Check(obj)) {
        double x = PyFloat_AS_DOUBLE(obj);
        if (!(x >= 0.0 && x < 1.8e19)) {
            PyErr_Format(PyExc_ValueError,
                         "now() returned %R: a time in seconds since 1970, 0 or more, is needed",
                         obj);
            return -1;
        }
        *out = (uint64_t)floor(x);
        return 0;
    }
    if (PyLong_Check(obj) && !PyBool_Check(obj)) {
        unsigned long long v = PyLong_AsUnsignedLongLong(obj);
        if (v == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError,
                         "now() returned %R: a time in seconds since 1970, 0 or more, is needed",
                         obj);
            return -1;
        }
        *out = v;
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "now() must return seconds (int or float), not %.100s",
                 Py_TYPE(obj)->tp_name);
    return -1;
}

int cfpy_clock_sync(cfpy_filter *o) {
    if (!o->expiring || o->mapped != NULL) return 0;
    uint64_t now;
    if (o->clock != NULL) {
        PyObject *clock = Py_NewRef(o->clock); /* the call may replace o->clock */
        PyObject *t = PyObject_CallNoArgs(clock);
        Py_DECREF(clock);
        if (t == NULL) return -1;
        int bad = seconds_of(t, &now);
        Py_DECREF(t);
        if (bad) return -1;
    } else {
        time_t t = time(NULL);
        now = t > 0 ? (uint64_t)t : 0;
        if (now < o->now) now = o->now; /* the system's clock stepped back */
    }
    /* The clock is a write: after any bulk call on f has ended (the call
     * above ran Python code, which may have closed the filter too). */
    if (cfpy_check_open(o) < 0) return -1;
    cfpy_wait_idle(o);
    if (cfpy_check_open(o) < 0) return -1;
    cf_status s = cf_set_time(o->f, now);
    if (s == CF_E_INVAL) {
        char detail[160];
        PyOS_snprintf(detail, sizeof detail,
                      "now() gave %llu, before the filter's clock, %llu: time never runs "
                      "backwards",
                      (unsigned long long)now, (unsigned long long)o->now);
        cfpy_raise(s, CFPY_WRITE, detail, 0, NULL);
        return -1;
    }
    if (s != CF_OK) {
        cfpy_raise(s, CFPY_WRITE, NULL, 0, NULL);
        return -1;
    }
    o->now = now;
    return 0;
}

void cfpy_clock_adopt(cfpy_filter *o) {
    cf_stats st;
    o->expiring = cf_get_stats(o->f, &st) == CF_OK && st.expire_after != 0;
    o->now = o->expiring ? st.now : 0;
}

int cfpy_expire_seconds(PyObject *obj, uint64_t *out) {
    *out = 0;
    if (obj == NULL || obj == Py_None) return 0;
    double x;
    PyObject *seconds = NULL;
    if (PyObject_HasAttrString(obj, "total_seconds") && !PyNumber_Check(obj)) {
        /* a datetime.timedelta */
        seconds = PyObject_CallMethod(obj, "total_seconds", NULL);
        if (seconds == NULL) return -1;
        obj = seconds;
    }
    if (PyBool_Check(obj) || !(PyLong_Check(obj) || PyFloat_Check(obj))) {
        PyErr_Format(PyExc_TypeError,
                     "expire must be seconds (int or float) or a datetime.timedelta, not %.100s",
                     Py_TYPE(obj)->tp_name);
        Py_XDECREF(seconds);
        return -1;
    }
    x = PyFloat_Check(obj) ? PyFloat_AS_DOUBLE(obj) : PyLong_AsDouble(obj);
    if (x == -1.0 && PyErr_Occurred()) {
        Py_XDECREF(seconds);
        return -1;
    }
    if (!(x > 0.0 && x < 1.8e19)) {
        PyErr_Format(PyExc_ValueError,
                     "expire=%R: give a positive, finite time (seconds, or a timedelta)", obj);
        Py_XDECREF(seconds);
        return -1;
    }
    Py_XDECREF(seconds);
    /* Whole seconds, the clock's unit: a fraction rounds up, so an item is
     * never forgotten before the time asked for. */
    *out = (uint64_t)ceil(x);
    return 0;
}
