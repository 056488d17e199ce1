/*
 * cfpy_options.c -- CuckooFilter's keyword options to a cf_config, and a
 * refusal explained: the option that is wrong, its value and why
 * ("fpp=1e-09 with bucket_size=8 needs 34-bit fingerprints (at most 32)"),
 * as the cuckoo CLI says it.
 *
 * Ranges are checked here, before the library sees them, so that a value
 * the library would quietly replace by its default (max_kicks=0) or a pair
 * it would quietly reconcile (capacity beyond num_buckets' slots) is an
 * error.  The numbers in the explanations are the library's
 * (cf_config_resolve), never recomputed here.
 */
#include "cfpy.h"

#include <math.h>

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

int cfpy_get_uint(PyObject *obj, const char *name, unsigned long long max,
                  unsigned long long *out) {
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
        PyErr_Clear(); /* negative or beyond 64 bits: out of range below */
    } else if (v <= max) {
        *out = v;
        return 0;
    }
    PyErr_Format(PyExc_ValueError, "%s must be in 0..%llu", name, max);
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

/* Checks what can be judged option by option; 0, or -1 with ValueError. */
static int check_ranges(const cf_config *c, const given *g) {
    if (!g->capacity && !g->buckets)
        return refuse("capacity is required (the items the filter must hold), or num_buckets");
    if (g->capacity && c->capacity == 0 && !g->buckets)
        return refuse("capacity must be at least 1 (or give num_buckets)");
    if (g->buckets && c->num_buckets == 0)
        return refuse("num_buckets must be at least 1 (leave it out to derive it from capacity)");
    if (!(c->target_fpp > 0 && c->target_fpp < 1))
        return refuse("fpp=%g is outside (0, 1)", c->target_fpp);
    if (c->fingerprint_bits > CF_MAX_FINGERPRINT_BITS)
        return refuse("fingerprint_bits=%u is outside 1..%d (0 = derived from fpp)",
                      c->fingerprint_bits, CF_MAX_FINGERPRINT_BITS);
    unsigned b = c->bucket_size;
    if (b != 1 && b != 2 && b != 4 && b != 8)
        return refuse("bucket_size=%u is not one of 1, 2, 4, 8", b);
    if (g->kicks && (c->max_kicks == 0 || c->max_kicks > CF_MAX_KICKS_LIMIT))
        return refuse("max_kicks=%u is outside 1..%d (the buckets an insert may visit while "
                      "evicting)",
                      c->max_kicks, CF_MAX_KICKS_LIMIT);
    if (!(c->max_load >= 0 && c->max_load <= 1))
        return refuse("max_load=%g is outside (0, 1] (0 = default_max_load(bucket_size))",
                      c->max_load);
    if ((c->flags & CFPY_CONCURRENT) && (c->flags & ~CFPY_CONCURRENT))
        return refuse("concurrent=True combines with no other option of the kind: not with %s",
                      (c->flags & CF_SEMI_SORT) ? "semi_sort=True" : "grow=True");
    if (g->capacity && g->buckets && c->capacity > 0 && c->num_buckets < (c->capacity - 1) / b + 1)
        return refuse("capacity=%llu does not fit num_buckets=%llu (%llu slots of bucket_size=%u); "
                      "give one of the two",
                      (unsigned long long)c->capacity, (unsigned long long)c->num_buckets,
                      (unsigned long long)c->num_buckets * b, b);
    return 0;
}

/* The fingerprint width c's fpp asks for, resolved on one bucket: the
 * target is relaxed by powers of two until the library accepts it (each
 * halving costs one bit).  0 when none is accepted. */
static unsigned width_for_target(const cf_config *c) {
    cf_config p = *c;
    p.num_buckets = 1;
    p.flags = 0;
    p.fingerprint_bits = 0;
    p.allocator = NULL;
    for (unsigned k = 0; k <= CF_MAX_FINGERPRINT_BITS; k++) {
        p.target_fpp = ldexp(c->target_fpp, (int)k);
        if (!(p.target_fpp < 1)) break;
        cf_shape sh;
        if (cf_config_resolve(&p, &sh) == CF_OK) return sh.fingerprint_bits + k;
    }
    return 0;
}

/* Why cf_new refused c with CF_E_PARAM, once the ranges are fine. */
static void explain_param(const cf_config *c, const given *g) {
    unsigned want = g->fbits ? c->fingerprint_bits : width_for_target(c);
    /* An in-place filter's slots are not a plain table's: its own reasons first. */
    if (c->growth_mode == CF_GROWTH_INPLACE && c->bucket_size != 4)
        refuse("grow='inplace' needs bucket_size=4 (its table has four slots per bucket), not %u",
               c->bucket_size);
    else if (c->growth_mode == CF_GROWTH_INPLACE && (c->flags & CF_SEMI_SORT))
        refuse("grow='inplace' cannot be semi_sort=True (its slots hold fingerprints of "
               "varying length)");
    else if (c->growth_mode == CF_GROWTH_INPLACE && g->fbits && c->fingerprint_bits != 15 &&
             c->fingerprint_bits != 16 && c->fingerprint_bits != 32)
        refuse("grow='inplace' with fingerprint_bits=%u: its slots are 15, 16 or 32 bits (leave "
               "fingerprint_bits out to derive it from fpp)",
               c->fingerprint_bits);
    else if (c->growth_mode == CF_GROWTH_INPLACE && g->fbits)
        refuse("grow='inplace' with fingerprint_bits=%u: a full first table's FPP must be below "
               "fpp=%g (leave fingerprint_bits out to derive it)",
               c->fingerprint_bits, c->target_fpp);
    else if (c->growth_mode == CF_GROWTH_INPLACE)
        refuse("grow='inplace' with fpp=%g: not even 32-bit slots keep that FPP over the "
               "doublings they are designed for; ask for a larger fpp",
               c->target_fpp);
    else if (!g->fbits && want > CF_MAX_FINGERPRINT_BITS)
        refuse("fpp=%g with bucket_size=%u needs %u-bit fingerprints (at most %d); ask for "
               "fpp=%g or more",
               c->target_fpp, c->bucket_size, want, CF_MAX_FINGERPRINT_BITS,
               ldexp(c->target_fpp, (int)(want - CF_MAX_FINGERPRINT_BITS)));
    else if ((c->flags & CF_SEMI_SORT) && c->bucket_size != 4)
        refuse("semi_sort=True needs bucket_size=4 (a semi-sorted bucket holds 4 "
               "fingerprints), not %u",
               c->bucket_size);
    else if ((c->flags & CF_SEMI_SORT) && g->fbits)
        refuse("semi_sort=True needs 5..16-bit fingerprints, not fingerprint_bits=%u", want);
    else if (c->flags & CF_SEMI_SORT)
        refuse("semi_sort=True needs 5..16-bit fingerprints; fpp=%g asks for %u bits",
               c->target_fpp, want);
    else if ((c->flags & CFPY_GROW) && g->fbits)
        refuse("grow=True with fingerprint_bits=%u: its FPP at full load must be below fpp=%g "
               "(leave fingerprint_bits out to derive it)",
               c->fingerprint_bits, c->target_fpp);
    else
        refuse("capacity=%llu, fpp=%g, fingerprint_bits=%u, bucket_size=%u, num_buckets=%llu, "
               "max_kicks=%u, max_load=%g, flags=%u",
               (unsigned long long)c->capacity, c->target_fpp, c->fingerprint_bits, c->bucket_size,
               (unsigned long long)c->num_buckets, c->max_kicks, c->max_load, c->flags);
}

/* The sizing options, for size-related refusals. */
static void describe_size(const cf_config *c, const given *g, char *out, size_t cap) {
    if (g->buckets)
        PyOS_snprintf(out, cap, "num_buckets=%llu", (unsigned long long)c->num_buckets);
    else
        PyOS_snprintf(out, cap, "capacity=%llu", (unsigned long long)c->capacity);
}

static void explain(cf_status s, const cf_config *c, const given *g) {
    char size[64], detail[200];
    describe_size(c, g, size, sizeof size);
    if (s == CF_E_PARAM) {
        explain_param(c, g);
    } else if (s == CF_E_TOO_LARGE) {
        PyOS_snprintf(detail, sizeof detail,
                      "%s needs a table larger than this machine can address", size);
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

cf_filter *cfpy_filter_create(PyObject *args, PyObject *kw, PyObject **key_func) {
    static char *kwlist[] = {"capacity",    "fpp",       "fingerprint_bits", "bucket_size",
                             "num_buckets", "max_kicks", "max_load",         "seed",
                             "semi_sort",   "grow",      "concurrent",       "key",
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
    PyObject *key = NULL, *grow_obj = NULL;
    *key_func = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|Od$OOOOdOpOpO:CuckooFilter", kwlist, &u[0].obj,
                                     &cfg.target_fpp, &u[1].obj, &u[2].obj, &u[3].obj, &u[4].obj,
                                     &cfg.max_load, &u[5].obj, &semi, &grow_obj, &conc, &key) ||
        cfpy_get_uint_options(u, sizeof u / sizeof u[0]) < 0 ||
        parse_grow(grow_obj, &grow, &cfg.growth_mode) < 0)
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
        add_flag(conc, "concurrent", CFPY_CONCURRENT, &cfg) < 0 || check_ranges(&cfg, &g) < 0 ||
        cfpy_key_func_arg(key, key_func) < 0)
        return NULL;
    cf_filter *f;
    cf_status s;
    Py_BEGIN_ALLOW_THREADS /* a large table is zeroed here */
        s = cf_new(&cfg, &f);
    Py_END_ALLOW_THREADS if (s != CF_OK) {
        explain(s, &cfg, &g);
        Py_CLEAR(*key_func);
        return NULL;
    }
    return f;
}
