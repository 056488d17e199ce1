/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfpy_module.c -- the extension module cuckoofilter._cuckoofilter: types,
 * exceptions, flags and the library's formulas.  The package's __init__.py
 * re-exports it.
 */
#include "cfpy.h"

static PyObject *theoretical_fpp(PyObject *mod, PyObject *args, PyObject *kw) {
    (void)mod;
    static char *kwlist[] = {"fingerprint_bits", "bucket_size", "load", NULL};
    unsigned f, b;
    double load;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "IId:theoretical_fpp", kwlist, &f, &b, &load))
        return NULL;
    return PyFloat_FromDouble(cf_theoretical_fpp(f, b, load));
}

static PyObject *default_max_load(PyObject *mod, PyObject *arg) {
    (void)mod;
    unsigned long long b;
    if (cfpy_get_uint(arg, "bucket_size", UINT_MAX, &b) < 0) return NULL;
    return PyFloat_FromDouble(cf_default_max_load((unsigned)b));
}

static PyObject *bloom_optimal_k(PyObject *mod, PyObject *args) {
    (void)mod;
    unsigned long long m, n;
    if (!PyArg_ParseTuple(args, "KK:bloom_optimal_k", &m, &n)) return NULL;
    return PyLong_FromUnsignedLong(cf_bloom_optimal_k(m, n));
}

static PyObject *key_bytes(PyObject *mod, PyObject *arg) {
    (void)mod;
    if (PyBytes_CheckExact(arg)) return Py_NewRef(arg);
    cfpy_key k;
    if (cfpy_key_get(arg, &k) < 0) return NULL;
    PyObject *r = PyBytes_FromStringAndSize(k.ptr, (Py_ssize_t)k.len);
    cfpy_key_release(&k);
    return r;
}

static PyMethodDef module_functions[] = {
    {"key_bytes", (PyCFunction)key_bytes, METH_O,
     "key_bytes(key, /)\n--\n\n"
     "The bytes a key is hashed as, by every filter here, the C library and\n"
     "the cuckoo command: bytes, bytearray and memoryview as they are, str as\n"
     "UTF-8, int as 8 bytes little-endian two's complement (-2**63 <= key <\n"
     "2**64, else OverflowError); TypeError for anything else.  So 5 and \"5\"\n"
     "are different keys, \"5\" and b\"5\" the same.  cuckoofilter.redis sends\n"
     "these bytes to Redis."},
    {"theoretical_fpp", (PyCFunction)(void (*)(void))theoretical_fpp, METH_VARARGS | METH_KEYWORDS,
     "theoretical_fpp(fingerprint_bits, bucket_size, load)\n--\n\n"
     "The FPP of a cuckoo table with b-slot buckets and f-bit fingerprints at\n"
     "load factor load: 1 - (1 - 1/(2**f - 1))**(2 * b * load)."},
    {"default_max_load", (PyCFunction)default_max_load, METH_O,
     "default_max_load(bucket_size, /)\n--\n\n"
     "The load factor inserts reliably reach with the default max_kicks\n"
     "(b=1: 0.40, b=2: 0.84, b=4: 0.95, b=8: 0.98); 0.0 for an unsupported b."},
    {"bloom_optimal_k", (PyCFunction)bloom_optimal_k, METH_VARARGS,
     "bloom_optimal_k(num_bits, items, /)\n--\n\n"
     "The number of hashes that minimises a Bloom filter's FPP for num_bits\n"
     "bits and items items: max(1, round(num_bits / items * ln 2))."},
    {NULL, NULL, 0, NULL},
};

static int add_constants(PyObject *m) {
    if (PyModule_AddStringConstant(m, "library_version", cf_version_string()) < 0 ||
        PyModule_AddIntConstant(m, "SEMI_SORT", CF_SEMI_SORT) < 0 ||
        PyModule_AddIntConstant(m, "MAX_FINGERPRINT_BITS", CF_MAX_FINGERPRINT_BITS) < 0 ||
        PyModule_AddIntConstant(m, "MAX_BUCKET_SIZE", CF_MAX_BUCKET_SIZE) < 0 ||
        PyModule_AddIntConstant(m, "MAX_KICKS_LIMIT", CF_MAX_KICKS_LIMIT) < 0 ||
        PyModule_AddIntConstant(m, "GROWTH_CHAIN", CF_GROWTH_CHAIN) < 0 ||
        PyModule_AddIntConstant(m, "GROWTH_INPLACE", CF_GROWTH_INPLACE) < 0 ||
        PyModule_AddIntConstant(m, "GROWTH_OPEN", CF_GROWTH_OPEN) < 0 ||
        PyModule_AddIntConstant(m, "GROWTH_LIMIT_BYTES", CF_GROWTH_LIMIT_BYTES) < 0 ||
        PyModule_AddIntConstant(m, "GROWTH_LIMIT_TABLES", CF_GROWTH_LIMIT_TABLES) < 0 ||
        PyModule_AddIntConstant(m, "GROWTH_LIMIT_FPP", CF_GROWTH_LIMIT_FPP) < 0 ||
        PyModule_AddIntConstant(m, "GROWTH_LIMIT_SIZE", CF_GROWTH_LIMIT_SIZE) < 0)
        return -1;
#ifdef CF_GROW
    if (PyModule_AddIntConstant(m, "GROW", CF_GROW) < 0) return -1;
#endif
#ifdef CF_CONCURRENT
    if (PyModule_AddIntConstant(m, "CONCURRENT", CF_CONCURRENT) < 0) return -1;
#endif
    return 0;
}

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "cuckoofilter._cuckoofilter",
    .m_doc = "The C extension behind the cuckoofilter package (see help(cuckoofilter)).",
    .m_size = -1,
    .m_methods = module_functions,
};

/* The filter types define == and != only; the <, <=, >, >= wrappers
 * tp_richcompare brings along would raise TypeError, and help() would list
 * them: they go (the operators still raise TypeError). */
static int drop_orderings(PyTypeObject *type) {
    static const char *names[] = {"__lt__", "__le__", "__gt__", "__ge__"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (PyDict_DelItemString(type->tp_dict, names[i]) < 0) return -1;
    PyType_Modified(type);
    return 0;
}

PyMODINIT_FUNC PyInit__cuckoofilter(void) {
    if (PyType_Ready(&cfpy_FilterType) < 0 || PyType_Ready(&cfpy_BloomType) < 0 ||
        drop_orderings(&cfpy_FilterType) < 0 || drop_orderings(&cfpy_BloomType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) return NULL;
    if (cfpy_errors_init(m) < 0 || cfpy_stats_init(m) < 0 || add_constants(m) < 0 ||
        cfpy_lock_init(m) < 0 ||
        PyModule_AddObjectRef(m, "CuckooFilter", (PyObject *)&cfpy_FilterType) < 0 ||
        PyModule_AddObjectRef(m, "BloomFilter", (PyObject *)&cfpy_BloomType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
