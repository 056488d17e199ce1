/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cfpy_options.c -- CuckooFilter's keyword options to a cf_config, and a
 * refusal explained: the option that is wrong, its value, why and what
 * would work, in the library's words (cf_config_explain, with this
 * package's spelling of the options: "fpp=1e-09 needs 34-bit fingerprints
 * with bucket_size=8, and they have at most 32: ask for fpp=3.73e-09 or
 * more"), as the cuckoo CLI and the Redis module print it in theirs.
 *
 * Only what the library would accept by reading it as its default
 * (max_kicks=0 or num_buckets=0 given explicitly) or would quietly
 * reconcile (capacity beyond num_buckets' slots) is refused here, before
 * the library sees it.  The size in a MemoryError is the library's
 * (cf_config_resolve).
 */
#include "cfpy.h"

#ifdef CF_GROW
#define CFPY_GROW CF_GROW
#else
#define CFPY_GROW 0u
#endif
#ifdef CF_CONCURRENT
#define CFPY_CONCURRENT CF_CONCURRENT
#else
#define CFPY_CONCURRENT 0u
#endif

const cf_option_names cfpy_option_names = {{
    [CF_OPT_CAPACITY] = "capacity=",
    [CF_OPT_TARGET_FPP] = "fpp=",
    [CF_OPT_FINGERPRINT_BITS] = "fingerprint_bits=",
    [CF_OPT_BUCKET_SIZE] = "bucket_size=",
    [CF_OPT_MAX_KICKS] = "max_kicks=",
    [CF_OPT_MAX_LOAD] = "max_load=",
    [CF_OPT_NUM_BUCKETS] = "num_buckets=",
    [CF_OPT_NUM_BITS] = "num_bits=",
    [CF_OPT_NUM_HASHES] = "num_hashes=",
    [CF_OPT_SEMI_SORT] = "semi_sort=True",
    [CF_OPT_CONCURRENT] = "concurrent=True",
    [CF_OPT_GROW] = "grow=True",
    [CF_OPT_GROW_INPLACE] = "grow='inplace'",
    [CF_OPT_EXPIRE_AFTER] = "expire= (seconds) ",
}};

int cfpy_get_uint(PyObject *obj, const char *name, unsigned long long max,
                  unsigned long long *out) {
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
        PyErr_Clear(); /* negative or beyond 64 bits: said below */
    } else if (v <= max) {
        *out = v;
        return 0;
    }
    /* Which values are allowed is the option's (and the library's) to say:
     * this says only what is wrong with this one. */
    int negative = PyObject_RichCompareBool(obj, Py_False, Py_LT);
    if (negative < 0) return -1;
    if (negative)
        PyErr_Format(PyExc_ValueError, "%s=%S is negative", name, obj);
    else
        PyErr_Format(PyExc_ValueError, "%s=%S is above %llu, the largest it takes", name, obj, max);
    return -1;
}

int cfpy_get_uint_options(cfpy_uint_option *opts, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (opts[i].obj != NULL &&
            cfpy_get_uint(opts[i].obj, opts[i].name, opts[i].max, &opts[i].value) < 0)
            return -1;
    return 0;
}

/* Raises ValueError "invalid argument (CF_E_PARAM): <why>"; returns -1. */
static int refuse(const char *format, ...) {
    char why[400];
    va_list ap;
    va_start(ap, format);
    PyOS_vsnprintf(why, sizeof why, format, ap);
    va_end(ap);
    cfpy_raise(CF_E_PARAM, CFPY_CREATE, why, 0, NULL);
    return -1;
}

/* The options as given: which were passed, for the messages. */
typedef struct given {
    bool capacity, fbits, buckets, kicks;
} given;

/* Refuses what the library would accept by reading it as "the default"
 * or reconciling it, but a Python caller who wrote it meant: 0, or -1 with
 * ValueError.  Every other refusal is the library's (explain). */
static int check_given(const cf_config *c, const given *g) {
    if (!g->capacity && !g->buckets)
        return refuse("capacity is required (the items the filter must hold), or num_buckets");
    if (g->buckets && c->num_buckets == 0)
        return refuse("num_buckets must be at least 1 (leave it out to derive it from capacity)");
    if (g->kicks && c->max_kicks == 0)
        return refuse("max_kicks=0 is outside 1..%d (the buckets an insert may visit while "
                      "evicting)",
                      CF_MAX_KICKS_LIMIT);
    unsigned b = c->bucket_size;
    if (g->capacity && g->buckets && c->capacity > 0 && (b == 1 || b == 2 || b == 4 || b == 8) &&
        c->num_buckets < (c->capacity - 1) / b + 1)
        return refuse("capacity=%llu does not fit num_buckets=%llu (%llu slots of bucket_size=%u); "
                      "give one of the two",
                      (unsigned long long)c->capacity, (unsigned long long)c->num_buckets,
                      (unsigned long long)c->num_buckets * b, b);
    return 0;
}

/* The sizing options, for size-related refusals. */
static void describe_size(const cf_config *c, const given *g, char *out, size_t cap) {
    if (g->buckets)
        PyOS_snprintf(out, cap, "num_buckets=%llu", (unsigned long long)c->num_buckets);
    else
        PyOS_snprintf(out, cap, "capacity=%llu", (unsigned long long)c->capacity);
}

static void explain(cf_status s, const cf_config *c, const given *g) {
    char size[64], detail[400];
    describe_size(c, g, size, sizeof size);
    if (s == CF_E_PARAM || s == CF_E_TOO_LARGE) {
        /* The library's sentence: the option, its value, why, what works. */
        if (cf_config_explain(c, &cfpy_option_names, detail, sizeof detail, NULL) == CF_OK)
            PyOS_snprintf(detail, sizeof detail, "%s", size);
        cfpy_raise(s, CFPY_CREATE, detail, 0, NULL);
    } else if (s == CF_E_NOMEM) {
        cf_shape sh;
        if (cf_config_resolve(c, &sh) == CF_OK)
            PyOS_snprintf(detail, sizeof detail, "%s needs a table of %.4g GiB", size,
                          (double)sh.table_bytes / (1024.0 * 1024 * 1024));
        else
            PyOS_snprintf(detail, sizeof detail, "%s needs more memory than is available", size);
        cfpy_raise(s, CFPY_CREATE, detail, 0, NULL);
    } else {
        cfpy_raise(s, CFPY_CREATE, size, 0, NULL);
    }
}

/* grow=: False (or anything false), True (anything true: the library's
 * default mode, a chain of tables), or a growth mode by the name the
 * cuckoo command's --grow= takes: "chain" or "inplace".  0 with *grow and
 * *mode set, or -1 with ValueError. */
static int parse_grow(PyObject *obj, int *grow, unsigned *mode) {
    *grow = 0;
    *mode = CF_GROWTH_CHAIN;
    if (obj == NULL) return 0;
    if (PyUnicode_Check(obj)) {
        *grow = 1;
        if (PyUnicode_CompareWithASCIIString(obj, "chain") == 0) return 0;
        *mode = CF_GROWTH_INPLACE;
        if (PyUnicode_CompareWithASCIIString(obj, "inplace") == 0) return 0;
        PyErr_Format(PyExc_ValueError,
                     "grow=%R: the growth mode is 'chain' (a chain of tables, what grow=True "
                     "gives) or 'inplace' (one table that doubles in place)",
                     obj);
        return -1;
    }
    /* Bytes are true, so b"inplace" would quietly give a chain. */
    if (PyBytes_Check(obj) || PyByteArray_Check(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "grow=%R: the growth mode is a str, 'chain' or 'inplace' (or True/False)",
                     obj);
        return -1;
    }
    *grow = PyObject_IsTrue(obj);
    return *grow < 0 ? -1 : 0;
}

/* growth_mode=: cf_config.growth_mode by its constant (cf.GROWTH_CHAIN,
 * cf.GROWTH_INPLACE) or by the name grow= and the cuckoo command's --grow=
 * take ("chain", "inplace").  A mode implies grow=True; it must agree with
 * a grow= given too.  0, or -1 with ValueError / TypeError. */
static int parse_growth_mode(PyObject *obj, PyObject *grow_obj, int *grow, unsigned *mode) {
    if (obj == NULL || obj == Py_None) return 0;
    unsigned want;
    if (PyUnicode_Check(obj)) {
        int chain_or_not = PyUnicode_CompareWithASCIIString(obj, "chain");
        if (chain_or_not != 0 && PyUnicode_CompareWithASCIIString(obj, "inplace") != 0) {
            PyErr_Format(PyExc_ValueError,
                         "growth_mode=%R: give cf.GROWTH_CHAIN or 'chain' (a chain of tables), "
                         "or cf.GROWTH_INPLACE or 'inplace' (one table doubled in place)",
                         obj);
            return -1;
        }
        want = chain_or_not == 0 ? CF_GROWTH_CHAIN : CF_GROWTH_INPLACE;
    } else if (PyLong_Check(obj) && !PyBool_Check(obj)) {
        long v = PyLong_AsLong(obj);
        if (v == -1 && PyErr_Occurred()) PyErr_Clear();
        if (v != CF_GROWTH_CHAIN && v != CF_GROWTH_INPLACE) {
            PyErr_Format(PyExc_ValueError,
                         "growth_mode=%R: give cf.GROWTH_CHAIN (%d) or cf.GROWTH_INPLACE (%d)", obj,
                         CF_GROWTH_CHAIN, CF_GROWTH_INPLACE);
            return -1;
        }
        want = (unsigned)v;
    } else {
        PyErr_Format(PyExc_TypeError,
                     "growth_mode must be cf.GROWTH_CHAIN, cf.GROWTH_INPLACE, 'chain' or "
                     "'inplace', not %.100s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (grow_obj != NULL && !*grow) {
        PyErr_Format(PyExc_ValueError,
                     "growth_mode=%R with grow=%R: a growth mode is for a filter that grows "
                     "(leave grow= out, or give grow=True)",
                     obj, grow_obj);
        return -1;
    }
    if (grow_obj != NULL && PyUnicode_Check(grow_obj) && *mode != want) {
        PyErr_Format(PyExc_ValueError, "growth_mode=%R contradicts grow=%R: give one of the two",
                     obj, grow_obj);
        return -1;
    }
    *grow = 1;
    *mode = want;
    return 0;
}

/* The optional flags this build of the library knows; a keyword naming a
 * flag it lacks is refused rather than ignored. */
static int add_flag(bool wanted, const char *name, unsigned flag, cf_config *cfg) {
    if (!wanted) return 0;
    if (flag == 0) {
        PyErr_Format(PyExc_NotImplementedError,
                     "%s=True needs a library built with that feature; this one (%s) has none",
                     name, cf_version_string());
        return -1;
    }
    cfg->flags |= flag;
    return 0;
}

cf_filter *cfpy_filter_create(PyObject *args, PyObject *kw, PyObject **key_func, PyObject **clock) {
    static char *kwlist[] = {"capacity",    "fpp",         "fingerprint_bits",
                             "bucket_size", "num_buckets", "max_kicks",
                             "max_load",    "seed",        "semi_sort",
                             "grow",        "growth_mode", "concurrent",
                             "key",         "expire",      "now",
                             NULL};
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.allocator = &cfpy_allocator;
    cfpy_uint_option u[] = {
        {"capacity", UINT64_MAX, cfg.capacity, NULL},
        {"fingerprint_bits", UINT_MAX, cfg.fingerprint_bits, NULL},
        {"bucket_size", UINT_MAX, cfg.bucket_size, NULL},
        {"num_buckets", UINT64_MAX, cfg.num_buckets, NULL},
        {"max_kicks", UINT_MAX, cfg.max_kicks, NULL},
        {"seed", UINT64_MAX, cfg.seed, NULL},
    };
    int semi = 0, grow = 0, conc = 0;
    PyObject *key = NULL, *grow_obj = NULL, *mode_obj = NULL, *expire = NULL, *now = NULL;
    *key_func = NULL;
    *clock = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|Od$OOOOdOpOOpOOO:CuckooFilter", kwlist, &u[0].obj,
                                     &cfg.target_fpp, &u[1].obj, &u[2].obj, &u[3].obj, &u[4].obj,
                                     &cfg.max_load, &u[5].obj, &semi, &grow_obj, &mode_obj, &conc,
                                     &key, &expire, &now) ||
        cfpy_expire_seconds(expire, &cfg.expire_after) < 0 ||
        cfpy_get_uint_options(u, sizeof u / sizeof u[0]) < 0 ||
        parse_grow(grow_obj, &grow, &cfg.growth_mode) < 0 ||
        parse_growth_mode(mode_obj, grow_obj, &grow, &cfg.growth_mode) < 0)
        return NULL;
    cfg.capacity = u[0].value;
    cfg.fingerprint_bits = (unsigned)u[1].value;
    cfg.bucket_size = (unsigned)u[2].value;
    cfg.num_buckets = u[3].value;
    cfg.max_kicks = (unsigned)u[4].value;
    cfg.seed = u[5].value;
    given g = {u[0].obj != NULL, u[1].obj != NULL && u[1].value != 0, u[3].obj != NULL,
               u[4].obj != NULL};
    if (semi) cfg.flags |= CF_SEMI_SORT;
    if (add_flag(grow, "grow", CFPY_GROW, &cfg) < 0 ||
        add_flag(conc, "concurrent", CFPY_CONCURRENT, &cfg) < 0 || check_given(&cfg, &g) < 0 ||
        cfpy_key_func_arg(key, key_func) < 0)
        return NULL;
    if (now != NULL && now != Py_None) {
        if (!PyCallable_Check(now) || cfg.expire_after == 0) {
            PyErr_SetString(
                PyExc_ValueError,
                cfg.expire_after == 0
                    ? "now= is the clock of a filter whose items expire: give expire= too"
                    : "now= must be a function of no arguments returning seconds");
            Py_CLEAR(*key_func);
            return NULL;
        }
        *clock = Py_NewRef(now);
    }
    cf_filter *f;
    cf_status s;
    Py_BEGIN_ALLOW_THREADS /* a large table is zeroed here */
        s = cf_new(&cfg, &f);
    Py_END_ALLOW_THREADS if (s != CF_OK) {
        explain(s, &cfg, &g);
        Py_CLEAR(*key_func);
        Py_CLEAR(*clock);
        return NULL;
    }
    return f;
}
