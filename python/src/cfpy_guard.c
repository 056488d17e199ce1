/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfpy_guard.c -- a mapped filter whose file shrinks becomes an exception,
 * not a dead interpreter.
 *
 * CuckooFilter.map uses the file's pages as the table (cf_map), and
 * BloomFilter.map as the bits (cf_bloom_map).  When
 * another program truncates the file in place, reading a lost page raises
 * SIGBUS, which kills the process by default.  Reads of a mapped filter
 * therefore run under cfpy_guarded: it records a jump target in a
 * thread-local variable, and the SIGBUS handler, finding one set in the
 * faulting thread, jumps back there; the call then raises OSError.
 *
 *   cfpy_guarded ── sigsetjmp ──► fn(arg): reads the mapping ──► page gone: SIGBUS
 *        ▲                                                             │
 *        └──────────────── siglongjmp (target set in this thread) ◄────┘
 *
 * Only reads are guarded, of memory the caller owns or the mapping:
 * abandoning them midway leaves nothing half-done (no lock held, nothing
 * allocated).  A SIGBUS with no target set (not ours) goes to the handler
 * that was installed before ours: ours restores it and returns, so the
 * faulting instruction runs again and faults into it.
 */
#include "cfpy.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

static _Thread_local sigjmp_buf *volatile jump_target;
static struct sigaction previous;
static volatile sig_atomic_t installed;

static void on_sigbus(int sig, siginfo_t *info, void *context) {
    (void)info;
    (void)context;
    sigjmp_buf *target = jump_target;
    if (target != NULL) siglongjmp(*target, 1);
    sigaction(sig, &previous, NULL); /* not a guarded read: as if we were not here */
    installed = 0;
}

int cfpy_guard_install(void) {
    struct sigaction now;
    if (sigaction(SIGBUS, NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
        now.sa_sigaction == on_sigbus)
        return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    /* SA_NODEFER: the handler leaves by siglongjmp(.., 0-mask jump), which
     * would otherwise leave SIGBUS blocked in this thread. */
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGBUS, &sa, &previous) < 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        return -1;
    }
    installed = 1;
    return 0;
}

int cfpy_guarded(const cfpy_filter *o, void (*fn)(void *), void *arg) {
    return cfpy_guarded_map(o->mapped, fn, arg);
}

int cfpy_guarded_map(PyObject *mapped, void (*fn)(void *), void *arg) {
    if (mapped == NULL) {
        fn(arg);
        return 0;
    }
    sigjmp_buf here;
    if (sigsetjmp(here, 0) != 0) {
        jump_target = NULL;
        return -1;
    }
    jump_target = &here;
    fn(arg);
    jump_target = NULL;
    return 0;
}

PyObject *cfpy_raise_sigbus(const cfpy_filter *o) {
    return cfpy_raise_sigbus_map(o->mapped);
}

PyObject *cfpy_raise_sigbus_map(PyObject *mapped) {
    PyObject *msg = PyUnicode_FromFormat(
        "the mapped file %R shrank while it was read (truncated in place by another program?); "
        "the filter cannot be read any more: close() it, and use load() for files that others "
        "may truncate",
        mapped);
    if (msg == NULL) return NULL;
    PyObject *args = Py_BuildValue("(iNO)", EIO, msg, mapped);
    if (args != NULL) {
        PyErr_SetObject(PyExc_OSError, args);
        Py_DECREF(args);
    }
    return NULL;
}
