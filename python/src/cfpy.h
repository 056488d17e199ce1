/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfpy.h -- what the files of the Python extension share.
 *
 * The extension is a thin layer over the public header: Python objects own
 * a cf_filter or cf_bloom, keys are turned into byte spans (cfpy_keys.c),
 * statuses into exceptions (cfpy_errors.c).  Every filter allocation goes
 * through PyMem_Raw*, so tracemalloc sees the tables too.
 */
#ifndef CFPY_H
#define CFPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include "cuckoofilter.h"

/* ------------------------------------------------------------------ keys */

/* A key's bytes.  The pointer stays valid while the key object lives (bytes,
 * str) or points into `word` (int), or into a buffer view the caller
 * releases with cfpy_key_release (bytearray, memoryview). */
typedef struct cfpy_key {
    const void *ptr;
    size_t len;
    unsigned char word[8]; /* an int key's 8 little-endian bytes */
    Py_buffer view;        /* held for buffer keys; view.obj != NULL then */
} cfpy_key;

/* Fills *k from obj; returns 0, or -1 with TypeError / OverflowError /
 * UnicodeEncodeError set. */
int cfpy_key_get(PyObject *obj, cfpy_key *k);
void cfpy_key_release(cfpy_key *k);

/* key_func(obj) (a new reference), or obj itself (a new reference) when
 * key_func is NULL; NULL with an exception. */
PyObject *cfpy_key_apply(PyObject *key_func, PyObject *obj);

/* Checks a key= argument: None (stored as NULL) or a callable. */
int cfpy_key_func_arg(PyObject *arg, PyObject **out);

/* Pickling, the same for both filter types: self pickles as
 * type(self).from_bytes(data) with key_func (if any) as the state, which
 * __setstate__ restores into *slot.  cfpy_pickle_reduce takes data (a new
 * reference, NULL with an exception set: passed on). */
PyObject *cfpy_pickle_reduce(PyObject *self, PyObject *data, PyObject *key_func);
PyObject *cfpy_pickle_setstate(PyObject **slot, PyObject *state);
/* == / != of two filters by their bytes (both types define == so): x and y
 * are new references to the two images (NULL with an exception set: passed
 * on), released here. */
PyObject *cfpy_bytes_compare(PyObject *x, PyObject *y, int op);

/* --------------------------------------------------------------- errors */

extern PyObject *cfpy_Error, *cfpy_FilterFullError, *cfpy_FormatError, *cfpy_ReadOnlyError,
    *cfpy_LockedError;

/* What a failed call was doing: chooses the exception for statuses whose
 * meaning depends on it (CF_E_TOO_LARGE is a bad argument to a constructor
 * and a bad file to a loader). */
typedef enum cfpy_context { CFPY_CREATE, CFPY_READ, CFPY_WRITE } cfpy_context;

/* Sets the exception for status s (never CF_OK) and returns NULL.  detail,
 * if not NULL, is appended to the library's message.  err_no is errno as
 * the failed call left it (used for CF_E_IO; 0 = unknown); path (may be
 * NULL) names the file. */
PyObject *cfpy_raise(cf_status s, cfpy_context ctx, const char *detail, int err_no, PyObject *path);
/* The detail of a CF_E_FULL from inserting hash h into f, written to buf:
 * a filter grown in place that cannot double again says why (its bound,
 * slot width and doublings); NULL for any other cause (h's copies filling
 * its buckets, max_bytes, a plain table). */
const char *cfpy_full_detail(const cf_filter *f, uint64_t h, char *buf, size_t n);
int cfpy_errors_init(PyObject *module);

/* --------------------------------------------------------------- objects */

typedef struct cfpy_filter {
    PyObject_HEAD cf_filter *f; /* NULL once close() has run */
    /* Held while the GIL is released around work on f (bulk calls, files):
     * without CF_CONCURRENT the library needs writers serialised, and the
     * GIL no longer does it then.  `busy` (read and written only with the
     * GIL held) says whether a call is in such a section, so the common
     * single-key call pays for a flag test, not a lock. */
    PyThread_type_lock lock;
    int busy;
    /* The key= function (NULL: keys are used as they are). */
    PyObject *key_func;
    /* A mapped filter's path (NULL otherwise): its table is the file's
     * pages, so its reads run under cfpy_guarded (SIGBUS). */
    PyObject *mapped;
    PyObject *weakrefs;
    /* Expiring filters (cfpy_clock.c): whether f expires its items, the
     * now= callable (NULL: the wall clock) and the clock last set. */
    bool expiring;
    PyObject *clock;
    uint64_t now;
} cfpy_filter;

typedef struct cfpy_bloom {
    PyObject_HEAD cf_bloom *b; /* NULL once close() has run */
    PyObject *key_func;
    /* A mapped filter's path (NULL otherwise): its bits are the file's
     * pages, so its reads run under cfpy_guarded_map (SIGBUS). */
    PyObject *mapped;
    PyObject *weakrefs;
} cfpy_bloom;

extern PyTypeObject cfpy_FilterType, cfpy_BloomType;
extern PyTypeObject *cfpy_StatsType, *cfpy_BloomStatsType;

/* The allocator every filter made here uses (PyMem_RawMalloc/RawFree,
 * callable without the GIL). */
extern const cf_allocator cfpy_allocator;

/* Wraps f (taking ownership) in a new object of type cls, with the key=
 * function key_func (may be NULL) and, for a mapped filter, its path
 * (mapped, may be NULL); frees f and returns NULL on failure. */
PyObject *cfpy_filter_wrap(PyTypeObject *cls, cf_filter *f, PyObject *key_func, PyObject *mapped);

/* 0, or -1 with ValueError when o has been closed. */
int cfpy_check_open(cfpy_filter *o);
int cfpy_bloom_check_open(cfpy_bloom *o);

/* ---------------------------------------------------------------- SIGBUS */

/* Runs fn(arg), returning 0; for a mapped filter (o->mapped set) a SIGBUS
 * raised meanwhile in this thread (its file truncated by another program)
 * ends fn early and returns -1 with OSError set (call with the GIL held) or
 * without it (released: the caller raises cfpy_raise_sigbus after taking
 * it back).  fn must only read the filter and write memory it was given:
 * it is abandoned midway. */
int cfpy_guarded(const cfpy_filter *o, void (*fn)(void *), void *arg);
PyObject *cfpy_raise_sigbus(const cfpy_filter *o);
/* The same for any mapped object: mapped is its path (NULL: not mapped,
 * fn just runs). */
int cfpy_guarded_map(PyObject *mapped, void (*fn)(void *), void *arg);
PyObject *cfpy_raise_sigbus_map(PyObject *mapped);
/* Installs the SIGBUS handler (at the first map()); -1 with OSError. */
int cfpy_guard_install(void);

/* Exclusive use of o->f for a section that releases the GIL (lock_begin
 * waits, with the GIL released, for another such section to end), and
 * waiting for such a section before a call made with the GIL held. */
void cfpy_lock_begin(cfpy_filter *o);
void cfpy_lock_end(cfpy_filter *o);
void cfpy_wait_idle(cfpy_filter *o);

PyObject *cfpy_stats_new(const cf_stats *st);
PyObject *cfpy_bloom_stats_new(const cf_bloom_stats *st);
int cfpy_stats_init(PyObject *module);

/* Methods of CuckooFilter defined in cfpy_batch.c (bulk calls) and
 * cfpy_filter_io.c (files, bytes, pickling, copies, equality). */
PyObject *cfpy_filter_update(cfpy_filter *self, PyObject *args, PyObject *kw);
PyObject *cfpy_filter_contains_many(cfpy_filter *self, PyObject *args, PyObject *kw);
PyObject *cfpy_filter_save(cfpy_filter *self, PyObject *args, PyObject *kw);
/* save() to the file `lock` covers, with cf_save_locked's check that the
 * lock still holds (file locks: cfpy_lock.c).  path names the file in
 * errors. */
PyObject *cfpy_filter_save_locked(cfpy_filter *self, const cf_file_lock *lock, PyObject *path);
/* The FileLock type (cfpy_lock.c); -1 with an exception. */
int cfpy_lock_init(PyObject *module);
PyObject *cfpy_filter_load(PyObject *cls, PyObject *args, PyObject *kw);
PyObject *cfpy_filter_map(PyObject *cls, PyObject *args, PyObject *kw);
PyObject *cfpy_filter_to_bytes(cfpy_filter *self, PyObject *unused);
PyObject *cfpy_filter_from_bytes(PyObject *cls, PyObject *args, PyObject *kw);
PyObject *cfpy_filter_setstate(cfpy_filter *self, PyObject *state);
PyObject *cfpy_filter_reduce(cfpy_filter *self, PyObject *unused);
PyObject *cfpy_filter_copy(cfpy_filter *self, PyObject *unused);
PyObject *cfpy_filter_deepcopy(cfpy_filter *self, PyObject *memo);
PyObject *cfpy_filter_richcompare(PyObject *a, PyObject *b, int op);
PyObject *cfpy_filter_merge(cfpy_filter *self, PyObject *other);
PyObject *cfpy_filter_or(PyObject *a, PyObject *b);
PyObject *cfpy_filter_ior(PyObject *a, PyObject *b);
/* The filter's bytes (to_bytes) as a new in-memory cf_filter; NULL with an
 * exception. */
cf_filter *cfpy_filter_clone(cfpy_filter *self);
extern const char cfpy_doc_update[], cfpy_doc_contains_many[], cfpy_doc_save[], cfpy_doc_load[],
    cfpy_doc_map[], cfpy_doc_to_bytes[], cfpy_doc_from_bytes[], cfpy_doc_merge[];

/* BloomFilter's bulk calls (cfpy_batch.c). */
PyObject *cfpy_bloom_update(cfpy_bloom *self, PyObject *keys);
PyObject *cfpy_bloom_contains_many(cfpy_bloom *self, PyObject *keys);
extern const char cfpy_doc_bloom_update[], cfpy_doc_bloom_contains_many[];

/* BloomFilter in files and bytes, pickling, copies, equality
 * (cfpy_bloom_io.c). */
PyObject *cfpy_bloom_to_bytes(cfpy_bloom *self, PyObject *unused);
PyObject *cfpy_bloom_from_bytes(PyObject *cls, PyObject *args, PyObject *kw);
PyObject *cfpy_bloom_save(cfpy_bloom *self, PyObject *args, PyObject *kw);
PyObject *cfpy_bloom_load(PyObject *cls, PyObject *args, PyObject *kw);
PyObject *cfpy_bloom_map(PyObject *cls, PyObject *args, PyObject *kw);
PyObject *cfpy_bloom_reduce(cfpy_bloom *self, PyObject *unused);
PyObject *cfpy_bloom_setstate(cfpy_bloom *self, PyObject *state);
PyObject *cfpy_bloom_copy(cfpy_bloom *self, PyObject *unused);
PyObject *cfpy_bloom_deepcopy(cfpy_bloom *self, PyObject *memo);
PyObject *cfpy_bloom_richcompare(PyObject *a, PyObject *b, int op);
extern const char cfpy_doc_bloom_to_bytes[], cfpy_doc_bloom_from_bytes[], cfpy_doc_bloom_save[],
    cfpy_doc_bloom_load[], cfpy_doc_bloom_map[];

/* Reads one filter from the binary file object file and nothing after it
 * (cfpy_stream.c): prefix is cf_deserialize_prefix or
 * cf_bloom_deserialize_prefix behind one signature.  Returns -1 with an
 * exception (read() raised or returned no bytes object), or 0 with the
 * library's *status (CF_E_TRUNCATED also when the file ended first), the
 * filter in *out on CF_OK (out NULL: prefix frees it), and in *got the
 * bytes read. */
typedef cf_status (*cfpy_prefix_reader)(const void *src, size_t len, void **out, size_t *used);
int cfpy_read_one(PyObject *file, cfpy_prefix_reader prefix, void **out, cf_status *status,
                  size_t *got);
/* Raises for cfpy_read_one's status s (not CF_OK) after got bytes: EOFError
 * when the file object was at its end before the first byte, else
 * cfpy_raise's exception (what appears after its message: detail, and for
 * a file that ended early, where).  Returns NULL. */
PyObject *cfpy_raise_read_one(cf_status s, size_t got, const char *detail);
/* The exception for a file the library's loader called corrupt (CF_E_CORRUPT):
 * FormatError CF_E_TRAILING when the file is a whole valid filter followed
 * by more bytes (read again with prefix), else FormatError CF_E_CORRUPT;
 * detail as cfpy_raise's.  NULL. */
PyObject *cfpy_raise_corrupt_file(PyObject *path, cfpy_prefix_reader prefix, const char *what,
                                  const char *detail);
/* FormatError CF_E_TRAILING for a buffer of len bytes that holds a filter
 * of used bytes and more; what: "CuckooFilter" or "BloomFilter".  NULL. */
PyObject *cfpy_raise_trailing(size_t len, size_t used, const char *what);

/* This package's spelling of the library's options ("fpp=", "semi_sort=True"),
 * for the library's sentences that explain a refused configuration
 * (cf_config_explain, cf_bloom_config_explain). */
extern const cf_option_names cfpy_option_names;

/* Builds CuckooFilter's config from the constructor's arguments and
 * creates the filter, explaining a refusal by naming the option and why
 * (cfpy_options.c).  Returns NULL with the exception set. */
cf_filter *cfpy_filter_create(PyObject *args, PyObject *kw, PyObject **key_func, PyObject **clock);

/* ------------------------------------------------------ expiring filters */

/* Sets an expiring filter's clock (cf_set_time) from its now= callable or
 * the wall clock, after any bulk call on it has ended; every call on the
 * filter makes this first.  0 (also for other filters), or -1 with an
 * exception (ValueError for a time before the clock). */
int cfpy_clock_sync(cfpy_filter *o);
/* Reads o->f's kind and clock (after wrapping, or loading). */
void cfpy_clock_adopt(cfpy_filter *o);
/* expire= (None, seconds as int or float, a timedelta) as whole seconds,
 * rounded up (0 for None); 0, or -1 with an exception. */
int cfpy_expire_seconds(PyObject *obj, uint64_t *out);

/* Reads a Python int into an unsigned field no larger than max; returns 0,
 * or -1 with ValueError (negative or above max) or TypeError set. */
int cfpy_get_uint(PyObject *obj, const char *name, unsigned long long max, unsigned long long *out);

/* A constructor's unsigned keyword option: obj is what the caller passed
 * (NULL: nothing), value the default on entry and the result on return. */
typedef struct cfpy_uint_option {
    const char *name;
    unsigned long long max;
    unsigned long long value;
    PyObject *obj;
} cfpy_uint_option;

/* cfpy_get_uint on each of the n options that was passed; returns 0, or -1
 * with the exception of the first bad one. */
int cfpy_get_uint_options(cfpy_uint_option *opts, size_t n);

#endif /* CFPY_H */
