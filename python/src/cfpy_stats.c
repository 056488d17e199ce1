/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfpy_stats.c -- cf_stats and cf_bloom_stats as named tuples (struct
 * sequences): every field of the C struct, under its C name.
 */
#include "cfpy.h"

PyTypeObject *cfpy_StatsType, *cfpy_BloomStatsType;

static PyStructSequence_Field stats_fields[] = {
    {"items", "fingerprints stored"},
    {"num_buckets", "buckets in the table (nb)"},
    {"slots", "num_buckets * bucket_size"},
    {"bucket_size", "slots per bucket (b)"},
    {"fingerprint_bits", "fingerprint width (f)"},
    {"max_kicks", "eviction budget per insert"},
    {"flags", "cf_config.flags (SEMI_SORT, ...)"},
    {"seed", "hash seed"},
    {"load_factor", "items / slots"},
    {"bits_per_item", "table bits / items (0 when empty)"},
    {"bits_per_slot", "f, or f - 1 when semi-sorted"},
    {"expected_fpp", "false-positive probability at the current load"},
    {"table_bytes", "bytes of the bucket table"},
    {"memory_bytes", "everything the filter allocated"},
    {"total_kicks", "fingerprints moved by inserts since creation"},
    {"failed_inserts", "inserts that failed because the filter was full"},
    {"read_only", "True for a mapped filter"},
    {"growth_mode", "GROWTH_CHAIN, or GROWTH_INPLACE for grow='inplace'"},
    {"doublings", "grow='inplace': times the table doubled since creation"},
    {"growth_limit", "GROWTH_OPEN, or GROWTH_LIMIT_BYTES/TABLES/FPP/SIZE: what stops it growing"},
    /* Attributes only (not in the tuple, whose 20 items stay as they were). */
    {"expire_after", "expire=: seconds an item lives (0: forever)"},
    {"expire_span", "seconds of one stamp: an item is gone at most this long after its window"},
    {"stamp_bits", "bits of the stamp beside each fingerprint (0: items never expire)"},
    {"stamps", "stamps in a window"},
    {"now", "the filter's clock, seconds since 1970 (0 for filters that do not expire)"},
    {NULL, NULL},
};

static PyStructSequence_Desc stats_desc = {
    "cuckoofilter.Stats",
    "A cuckoo filter's parameters and statistics (the C library's cf_stats).",
    stats_fields,
    20,
};

static PyStructSequence_Field bloom_fields[] = {
    {"num_bits", "bits in the filter (m)"},
    {"num_hashes", "bit positions per key (k)"},
    {"items", "adds performed (duplicates count again)"},
    {"bits_per_item", "num_bits / items (0 when empty)"},
    {"expected_fpp", "(1 - e^(-k * items / num_bits))^k"},
    {"memory_bytes", "everything the filter allocated"},
    {NULL, NULL},
};

static PyStructSequence_Desc bloom_desc = {
    "cuckoofilter.BloomStats",
    "A Bloom filter's parameters and statistics (the C library's cf_bloom_stats).",
    bloom_fields,
    6,
};

/* Fills the struct sequence from an array of freshly made values; consumes
 * them (NULLs mean a failed conversion). */
static PyObject *fill(PyTypeObject *type, PyObject **values, Py_ssize_t n) {
    PyObject *t = PyStructSequence_New(type);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (values[i] == NULL || t == NULL) {
            Py_CLEAR(t);
            continue;
        }
        PyStructSequence_SET_ITEM(t, i, values[i]);
        values[i] = NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) Py_XDECREF(values[i]);
    return t;
}

PyObject *cfpy_stats_new(const cf_stats *st) {
    PyObject *v[25] = {
        PyLong_FromUnsignedLongLong(st->items),
        PyLong_FromUnsignedLongLong(st->num_buckets),
        PyLong_FromUnsignedLongLong(st->slots),
        PyLong_FromUnsignedLong(st->bucket_size),
        PyLong_FromUnsignedLong(st->fingerprint_bits),
        PyLong_FromUnsignedLong(st->max_kicks),
        PyLong_FromUnsignedLong(st->flags),
        PyLong_FromUnsignedLongLong(st->seed),
        PyFloat_FromDouble(st->load_factor),
        PyFloat_FromDouble(st->bits_per_item),
        PyLong_FromUnsignedLong(st->bits_per_slot),
        PyFloat_FromDouble(st->expected_fpp),
        PyLong_FromSize_t(st->table_bytes),
        PyLong_FromSize_t(st->memory_bytes),
        PyLong_FromUnsignedLongLong(st->total_kicks),
        PyLong_FromUnsignedLongLong(st->failed_inserts),
        PyBool_FromLong(st->read_only),
        PyLong_FromUnsignedLong(st->growth_mode),
        PyLong_FromUnsignedLongLong(st->doublings),
        PyLong_FromUnsignedLong(st->growth_limit),
        PyLong_FromUnsignedLongLong(st->expire_after),
        PyLong_FromUnsignedLongLong(st->expire_span),
        PyLong_FromUnsignedLong(st->stamp_bits),
        PyLong_FromUnsignedLong(st->stamps),
        PyLong_FromUnsignedLongLong(st->now),
    };
    return fill(cfpy_StatsType, v, 25);
}

PyObject *cfpy_bloom_stats_new(const cf_bloom_stats *st) {
    PyObject *v[6] = {
        PyLong_FromUnsignedLongLong(st->num_bits), PyLong_FromUnsignedLong(st->num_hashes),
        PyLong_FromUnsignedLongLong(st->items),    PyFloat_FromDouble(st->bits_per_item),
        PyFloat_FromDouble(st->expected_fpp),      PyLong_FromSize_t(st->memory_bytes),
    };
    return fill(cfpy_BloomStatsType, v, 6);
}

int cfpy_stats_init(PyObject *module) {
    cfpy_StatsType = PyStructSequence_NewType(&stats_desc);
    if (cfpy_StatsType == NULL ||
        PyModule_AddObjectRef(module, "Stats", (PyObject *)cfpy_StatsType) < 0)
        return -1;
    cfpy_BloomStatsType = PyStructSequence_NewType(&bloom_desc);
    if (cfpy_BloomStatsType == NULL ||
        PyModule_AddObjectRef(module, "BloomStats", (PyObject *)cfpy_BloomStatsType) < 0)
        return -1;
    return 0;
}
