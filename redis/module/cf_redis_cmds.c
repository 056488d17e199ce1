/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_cmds.c -- the CF.* commands, with RedisBloom's argument rules,
 * reply shapes and error strings (docs/REDIS.md lists them), extended with
 * CF.RESERVE ... ERROR_RATE p | FINGERPRINT bits, GROWTH, and EXPIRE s |
 * PEXPIRE ms (keys whose items expire; their clock is cf_redis_expire.c's).
 *
 * Replication: every write command that reached an existing (or newly
 * created) key is replicated verbatim, whatever it answered.  The library's
 * eviction is deterministic and the chain's decisions depend only on its
 * persisted state, so replaying the same commands rebuilds the same bytes --
 * even a failed insert, which may mark the key exhausted.  A key's creation
 * is the exception: its kind may come from the module argument GROWTH,
 * which a replica or an AOF replay need not share, so it is replicated
 * with the kind spelled out (growth_word).  An expiring key's clock is
 * read from the server on the master only, and each move of it is
 * replicated as a step of its own ahead of the command that made it
 * (cf_redis_expire.c).
 */
#include "module/cf_redis_cmds.h"

#include "key/cf_redis_settings.h"
#include "module/cf_redis_expire.h"

#include <string.h>
#include <strings.h>

#define CFR_DEFAULT_CAPACITY 1024 /* RedisBloom's capacity for auto-created keys */
#define CFR_DEFAULT_BUCKET 2      /* RedisBloom's default BUCKETSIZE */
#define CFR_DEFAULT_FP_BITS 8     /* RedisBloom's (only) width: same default FPP */
/* An expiring key's width without FINGERPRINT or ERROR_RATE: the narrowest
 * the library gives its finest stamps (4 bits, 15 stamps per window, so an
 * item is gone within 1/15 of a window after its window ends; the header's
 * "Expiring" paragraph).  At 8 bits a window would have 3 stamps, and items
 * could outlive it by a third. */
#define CFR_EXPIRING_FP_BITS 12
#define CFR_MAX_CAPACITY (1ll << 30)
/* An in-place key's FPP bound without ERROR_RATE: 2b / 2^8 at b = 4, the
 * bound of RedisBloom's 8-bit fingerprints in buckets of that size. */
#define CFR_INPLACE_DEFAULT_FPP (8.0 / 256.0)
/* Default eviction budget (MAXITERATIONS): the library's.  Its search runs
 * on the stack up to ~1000 steps, so the budget costs no memory per key;
 * tables need ~500 steps to stay above the 84% they are sized for (b = 2). */
#define CFR_DEFAULT_MAX_KICKS CF_DEFAULT_MAX_KICKS

static const char *const ERR_LOADING = "ERR the filter is being restored by CF.LOADCHUNK";
static const char *const ERR_NOMEM = "ERR Insufficient memory";

enum { KEY_EMPTY, KEY_CHAIN, KEY_WRONGTYPE };

/* Opens name and classifies it; *c is set for KEY_CHAIN. */
static int open_chain(RedisModuleCtx *ctx, RedisModuleString *name, int mode, RedisModuleKey **key,
                      cfr_chain **c) {
    *key = RedisModule_OpenKey(ctx, name, mode);
    *c = NULL;
    int t = RedisModule_KeyType(*key);
    if (t == REDISMODULE_KEYTYPE_EMPTY) return KEY_EMPTY;
    if (t != REDISMODULE_KEYTYPE_MODULE || RedisModule_ModuleTypeGetType(*key) != cfr_type)
        return KEY_WRONGTYPE;
    *c = RedisModule_ModuleTypeGetValue(*key);
    return KEY_CHAIN;
}

static int reply_close(RedisModuleKey *key, int rc) {
    RedisModule_CloseKey(key);
    return rc;
}

static bool arg_is(RedisModuleString *s, const char *word) {
    size_t n;
    const char *p = RedisModule_StringPtrLen(s, &n);
    return n == strlen(word) && strncasecmp(p, word, n) == 0;
}

/* RedisBloom rounds nothing here; our library has buckets of 1, 2, 4 or 8
 * slots, so a BUCKETSIZE in [1, 255] takes the next supported size (max 8). */
static unsigned effective_bucket(long long b) {
    return b <= 1 ? 1 : b <= 2 ? 2 : b <= 4 ? 4 : 8;
}

static uint32_t round_pow2(long long e) {
    uint32_t p = 1;
    while ((long long)p < e) p <<= 1;
    return e == 0 ? 0 : p;
}

/* An auto-created key: RedisBloom's defaults, or an in-place key under the
 * module's GROWTH INPLACE. */
static void default_params(cfr_params *p, uint64_t capacity) {
    memset(p, 0, sizeof *p);
    p->capacity = capacity;
    p->bucket_size = cfr_default_inplace ? 4 : CFR_DEFAULT_BUCKET;
    p->fingerprint_bits = cfr_default_inplace ? 0 : CFR_DEFAULT_FP_BITS;
    p->max_kicks = (unsigned)CFR_DEFAULT_MAX_KICKS;
    p->expansion = 1;
    p->inplace = cfr_default_inplace;
    p->target_fpp = CFR_INPLACE_DEFAULT_FPP;
}

/* The GROWTH value that replicates a key's creation: the last GROWTH given
 * wins, so a replica builds this kind whatever its module arguments. */
static const char *growth_word(bool inplace) {
    return inplace ? "INPLACE" : "CHAIN";
}

/* Creates the key's chain; replies with the error and returns false on failure. */
static bool create_chain(RedisModuleCtx *ctx, RedisModuleKey *key, const cfr_params *p,
                         cfr_chain **out) {
    const char *err = NULL;
    if (cfr_chain_new(p, &cfr_lim, out, &err) != CFR_OK) {
        RedisModule_ReplyWithError(ctx, err);
        return false;
    }
    RedisModule_ModuleTypeSetValue(key, cfr_type, *out);
    return true;
}

/* CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS m] [EXPANSION e]
 *            [ERROR_RATE p | FINGERPRINT bits] [GROWTH CHAIN|INPLACE]
 *            [EXPIRE seconds | PEXPIRE milliseconds]
 * EXPIRE / PEXPIRE: an expiring key (one table that never grows, so
 * EXPANSION 0, the default with EXPIRE, and not GROWTH INPLACE); the other
 * options keep their meaning, and without FINGERPRINT or ERROR_RATE the
 * width is CFR_EXPIRING_FP_BITS.
 * GROWTH INPLACE (or the module's GROWTH INPLACE where the key allows it):
 * the key's one table doubles in place, so CF.EXISTS stays at two buckets.
 * It needs EXPANSION > 0 (any such value: the table doubles; CF.INFO says
 * 2), BUCKETSIZE 4, and FINGERPRINT, if given, 15, 16 or 32 (the slot width);
 * ERROR_RATE (default CFR_INPLACE_DEFAULT_FPP) is the bound every doubling
 * keeps, and may be given with FINGERPRINT. */
static int cmd_reserve(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 3) return RedisModule_WrongArity(ctx);
    long long capacity;
    if (RedisModule_StringToLongLong(argv[2], &capacity) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "Bad capacity");
    /* Positions of each option's value (0 = absent); the last one given wins. */
    int bs = 0, mi = 0, ex = 0, er = 0, fp = 0, gr = 0, xp = 0, px = 0;
    for (int i = 3; i < argc; i += 2) {
        int *slot = arg_is(argv[i], "BUCKETSIZE")      ? &bs
                    : arg_is(argv[i], "MAXITERATIONS") ? &mi
                    : arg_is(argv[i], "EXPANSION")     ? &ex
                    : arg_is(argv[i], "ERROR_RATE")    ? &er
                    : arg_is(argv[i], "FINGERPRINT")   ? &fp
                    : arg_is(argv[i], "GROWTH")        ? &gr
                    : arg_is(argv[i], "EXPIRE")        ? &xp
                    : arg_is(argv[i], "PEXPIRE")       ? &px
                                                       : NULL;
        if (!slot) return RedisModule_ReplyWithError(ctx, "Unknown argument received");
        /* A keyword with no value is an arity error (RedisBloom read past argv). */
        if (i + 1 >= argc) return RedisModule_WrongArity(ctx);
        *slot = i + 1;
    }
    /* Checked in RedisBloom's order: MAXITERATIONS, BUCKETSIZE, EXPANSION. */
    long long m = CFR_DEFAULT_MAX_KICKS, b = CFR_DEFAULT_BUCKET, e = 1, bits = 0;
    double rate = 0;
    if (mi && RedisModule_StringToLongLong(argv[mi], &m) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "Couldn't parse MAXITERATIONS");
    if (m < 1 || m > 65535)
        return RedisModule_ReplyWithError(ctx,
                                          "MAXITERATIONS: value must be in the range [1, 65535]");
    if (bs && RedisModule_StringToLongLong(argv[bs], &b) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "Couldn't parse BUCKETSIZE");
    if (b < 1 || b > 255)
        return RedisModule_ReplyWithError(ctx, "BUCKETSIZE: value must be in the range [1, 255]");
    if (ex && RedisModule_StringToLongLong(argv[ex], &e) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "Couldn't parse EXPANSION");
    if (e < 0 || e > CFR_MAX_EXPANSION)
        return RedisModule_ReplyWithError(
            ctx, "EXPANSION: value must be in the range [0, " CFR_STR(CFR_MAX_EXPANSION) "]");
    bool inplace = cfr_default_inplace;
    if (gr) {
        if (!arg_is(argv[gr], "INPLACE") && !arg_is(argv[gr], "CHAIN"))
            return RedisModule_ReplyWithError(ctx, "GROWTH: value must be CHAIN or INPLACE");
        inplace = arg_is(argv[gr], "INPLACE");
    }
    uint64_t expire = 0;
    if (xp && px)
        return RedisModule_ReplyWithError(ctx, "ERR EXPIRE and PEXPIRE are mutually exclusive");
    if ((xp || px) && !cfr_parse_expire(ctx, argv[xp ? xp : px], px != 0, &expire))
        return REDISMODULE_OK;
    if (expire) {
        /* The library refuses expiring + growing: an expiring key never
         * fills (expired items' slots are reused), so it needs no growth. */
        if (ex && e > 0)
            return RedisModule_ReplyWithError(
                ctx, "ERR EXPIRE needs EXPANSION 0: an expiring filter never grows (the slots "
                     "of expired items are reused)");
        if (gr && inplace)
            return RedisModule_ReplyWithError(
                ctx, "ERR GROWTH INPLACE does not take EXPIRE: an expiring filter never grows");
        e = 0;
        inplace = false;
    }
    unsigned eb = effective_bucket(b);
    if (fp) {
        if (RedisModule_StringToLongLong(argv[fp], &bits) != REDISMODULE_OK)
            return RedisModule_ReplyWithError(ctx, "Couldn't parse FINGERPRINT");
        if (bits < CF_MIN_FINGERPRINT_BITS || bits > CF_MAX_FINGERPRINT_BITS)
            return RedisModule_ReplyWithError(ctx,
                                              "FINGERPRINT: value must be in the range [1, 32]");
    }
    bool slot_width = !fp || bits == 15 || bits == 16 || bits == 32;
    /* The module's default applies where in-place growth can serve the key;
     * other keys keep the chain, so RedisBloom's options work unchanged. */
    if (inplace && !gr) inplace = e > 0 && (!bs || eb == 4) && slot_width;
    double target = CFR_INPLACE_DEFAULT_FPP;
    if (inplace) {
        if (e == 0)
            return RedisModule_ReplyWithError(
                ctx, "ERR GROWTH INPLACE needs EXPANSION of at least 1 (EXPANSION 0 never grows)");
        if (bs && eb != 4)
            return RedisModule_ReplyWithError(ctx, "ERR GROWTH INPLACE needs BUCKETSIZE 4");
        if (!slot_width)
            return RedisModule_ReplyWithError(
                ctx, "ERR GROWTH INPLACE takes FINGERPRINT 15, 16 or 32 (the slot width)");
        eb = 4;
        if (er) {
            if (RedisModule_StringToDouble(argv[er], &target) != REDISMODULE_OK)
                return RedisModule_ReplyWithError(ctx, "Couldn't parse ERROR_RATE");
            if (!(target > 0 && target < 1))
                return RedisModule_ReplyWithError(ctx,
                                                  "ERROR_RATE: value must be in the range (0, 1)");
        }
    }
    cfr_params p = {.capacity = (uint64_t)capacity,
                    .bucket_size = eb,
                    .fingerprint_bits = fp ? (unsigned)bits : 0, /* 0: the library's */
                    .max_kicks = (unsigned)m,
                    .expansion = round_pow2(e),
                    .inplace = inplace,
                    .target_fpp = target};
    char why[300];
    if (inplace && !cfr_inplace_check(&p, why + 4, sizeof why - 4)) {
        memcpy(why, "ERR ", 4); /* the library's reason, as an error reply */
        if (gr) return RedisModule_ReplyWithError(ctx, why);
        /* The module's default asked, not the client: the chain serves any
         * ERROR_RATE 32-bit fingerprints reach. */
        p.inplace = inplace = false;
        eb = effective_bucket(b);
    }
    if (inplace) {
        /* Its slot width and bound are p's, checked above. */
    } else if (er && fp) {
        /* A chain key's width is one or the other; an in-place key's slot
         * width (FINGERPRINT) and its bound (ERROR_RATE) are both needed. */
        return RedisModule_ReplyWithError(ctx,
                                          "ERR ERROR_RATE and FINGERPRINT are mutually exclusive");
    } else if (er) {
        if (RedisModule_StringToDouble(argv[er], &rate) != REDISMODULE_OK)
            return RedisModule_ReplyWithError(ctx, "Couldn't parse ERROR_RATE");
        if (!(rate > 0 && rate < 1))
            return RedisModule_ReplyWithError(ctx, "ERROR_RATE: value must be in the range (0, 1)");
        /* The library derives the width for the first sub-filter, as cf_new
         * would: the FPP bound 2b / 2^f and the floor its table needs.  An
         * out-of-range capacity is clamped here and refused below. */
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.capacity = (uint64_t)(capacity < 1                  ? 1
                                  : capacity > CFR_MAX_CAPACITY ? CFR_MAX_CAPACITY
                                                                : capacity);
        cfg.bucket_size = eb;
        cfg.target_fpp = rate;
        cfg.expire_after = expire;
        cf_shape shape;
        if (cf_config_resolve(&cfg, &shape) != CF_OK) {
            memcpy(why, "ERR ", 4); /* the library's reason, as an error reply */
            (void)cf_config_explain(&cfg, &cfr_option_names, why + 4, sizeof why - 4, NULL);
            return RedisModule_ReplyWithError(ctx, why);
        }
        bits = shape.fingerprint_bits;
    } else if (!fp) {
        bits = expire ? CFR_EXPIRING_FP_BITS : CFR_DEFAULT_FP_BITS;
    }
    if (capacity < 2 * b || capacity > CFR_MAX_CAPACITY)
        return RedisModule_ReplyWithError(
            ctx, "Capacity must be in the range [2 * BUCKETSIZE, 1073741824]");
    if (!inplace) {
        p.bucket_size = eb;
        p.fingerprint_bits = (unsigned)bits;
    }
    p.expire_after = expire;
    if (expire) {
        /* The library's rules for an expiring table (a width of at most 28
         * bits, ...), and its sentence when they refuse. */
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.capacity = p.capacity;
        cfg.bucket_size = p.bucket_size;
        cfg.fingerprint_bits = p.fingerprint_bits;
        cfg.max_kicks = p.max_kicks;
        cfg.expire_after = expire;
        if (cf_config_explain(&cfg, &cfr_option_names, why + 4, sizeof why - 4, NULL) != CF_OK) {
            memcpy(why, "ERR ", 4);
            return RedisModule_ReplyWithError(ctx, why);
        }
    }

    RedisModuleKey *key;
    cfr_chain *c;
    int kt = open_chain(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, &key, &c);
    if (kt == KEY_WRONGTYPE)
        return reply_close(key, RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE));
    if (kt == KEY_CHAIN)
        return reply_close(key, RedisModule_ReplyWithError(ctx, "ERR item exists"));
    if (!create_chain(ctx, key, &p, &c)) return reply_close(key, REDISMODULE_OK);
    RedisModule_Replicate(ctx, "CF.RESERVE", "vcc", argv + 1, (size_t)(argc - 1), "GROWTH",
                          growth_word(inplace));
    /* An expiring key starts at the master's time: the step follows the
     * creation it needs. */
    cfr_expire_sync(ctx, argv[1], c);
    return reply_close(key, RedisModule_ReplyWithSimpleString(ctx, "OK"));
}

/* The reply for one insert outcome in a single-item command. */
static int reply_insert_error(RedisModuleCtx *ctx, cfr_result r) {
    switch (r) {
    case CFR_MAX_FILTERS: return RedisModule_ReplyWithError(ctx, "Maximum expansions reached");
    case CFR_NOMEM: return RedisModule_ReplyWithError(ctx, ERR_NOMEM);
    default: return RedisModule_ReplyWithError(ctx, "Filter is full");
    }
}

/* Items that CF.INSERT and CF.MEXISTS hash and give the library together
 * (3.3 KB of stack at most). */
#define ITEM_RUN 256

/* The key's hashes of n items. */
static void hash_items(const cfr_chain *c, RedisModuleString **items, int n, uint64_t *h) {
    for (int i = 0; i < n; i++) {
        size_t len;
        const char *s = RedisModule_StringPtrLen(items[i], &len);
        h[i] = cfr_chain_hash(c, s, len);
    }
}

/* An item's answer in CF.INSERT[NX]'s array: 1 added, 0 there already
 * (NX), -1 refused. */
static void reply_insert_result(RedisModuleCtx *ctx, cfr_result r) {
    RedisModule_ReplyWithLongLong(ctx, r == CFR_OK ? 1 : r == CFR_EXISTS ? 0 : -1);
}

/* Shared by CF.ADD, CF.ADDNX, CF.INSERT and CF.INSERTNX. */
static int insert_common(RedisModuleCtx *ctx, RedisModuleString *name, RedisModuleString **items,
                         int nitems, bool nx, bool multi, bool create, long long capacity) {
    RedisModuleKey *key;
    cfr_chain *c;
    int kt = open_chain(ctx, name, REDISMODULE_READ | REDISMODULE_WRITE, &key, &c);
    if (kt == KEY_WRONGTYPE)
        return reply_close(key, RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE));
    if (kt == KEY_EMPTY) {
        if (!create) return reply_close(key, RedisModule_ReplyWithError(ctx, "ERR not found"));
        cfr_params p;
        default_params(&p, (uint64_t)capacity);
        if (!create_chain(ctx, key, &p, &c)) return reply_close(key, REDISMODULE_OK);
        /* CF.RESERVE's defaults are default_params' but the kind; the
         * command follows, and finds the key. */
        RedisModule_Replicate(ctx, "CF.RESERVE", "slcc", name, capacity, "GROWTH",
                              growth_word(p.inplace));
    } else if (c->load) {
        return reply_close(key, RedisModule_ReplyWithError(ctx, ERR_LOADING));
    } else if (cfr_chain_at_cap(c, &cfr_lim)) {
        /* The whole command, as RedisBloom answers a key at its cap: a
         * client that catches this error must see it from CF.INSERT too. */
        return reply_close(key, RedisModule_ReplyWithError(ctx, "Maximum expansions reached"));
    }
    cfr_expire_sync(ctx, name, c);
    RedisModule_ReplicateVerbatim(ctx);
    if (!multi) {
        size_t n;
        const char *s = RedisModule_StringPtrLen(items[0], &n);
        cfr_result r = cfr_chain_insert(c, &cfr_lim, s, n, nx);
        if (r == CFR_OK || r == CFR_EXISTS)
            return reply_close(key, RedisModule_ReplyWithLongLong(ctx, r == CFR_OK));
        return reply_close(key, reply_insert_error(ctx, r));
    }
    RedisModule_ReplyWithArray(ctx, nitems);
    /* In runs, through the library's batches (as CF.MEXISTS). */
    uint64_t h[ITEM_RUN];
    cfr_result r[ITEM_RUN];
    for (int i = 0; i < nitems; i += ITEM_RUN) {
        int run = nitems - i < ITEM_RUN ? nitems - i : ITEM_RUN;
        hash_items(c, items + i, run, h);
        cfr_chain_insert_hashes(c, &cfr_lim, h, (size_t)run, nx, r);
        for (int j = 0; j < run; j++) reply_insert_result(ctx, r[j]);
    }
    return reply_close(key, REDISMODULE_OK);
}

static int cmd_add(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    return insert_common(ctx, argv[1], argv + 2, 1, false, false, true, CFR_DEFAULT_CAPACITY);
}

static int cmd_addnx(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    return insert_common(ctx, argv[1], argv + 2, 1, true, false, true, CFR_DEFAULT_CAPACITY);
}

/* CF.INSERT[NX] key [CAPACITY c] [NOCREATE] ITEMS item... */
static int insert_cmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, bool nx) {
    if (argc < 4) return RedisModule_WrongArity(ctx);
    long long capacity = CFR_DEFAULT_CAPACITY;
    bool create = true;
    int items = -1;
    for (int i = 2; i < argc && items < 0;) {
        if (arg_is(argv[i], "CAPACITY")) {
            if (i + 1 >= argc) return RedisModule_WrongArity(ctx);
            if (RedisModule_StringToLongLong(argv[i + 1], &capacity) != REDISMODULE_OK)
                return RedisModule_ReplyWithError(ctx, "Bad capacity");
            i += 2;
        } else if (arg_is(argv[i], "NOCREATE")) {
            create = false;
            i++;
        } else if (arg_is(argv[i], "ITEMS")) {
            items = i + 1;
        } else {
            return RedisModule_ReplyWithError(ctx, "Unknown argument received");
        }
    }
    if (items < 0 || items >= argc) return RedisModule_WrongArity(ctx);
    /* Checked also when the key exists and CAPACITY will not be used, as
     * RedisBloom does. */
    if (capacity < 2 * CFR_DEFAULT_BUCKET || capacity > CFR_MAX_CAPACITY)
        return RedisModule_ReplyWithError(
            ctx, "Capacity must be in the range [2 * BUCKETSIZE, 1073741824]");
    return insert_common(ctx, argv[1], argv + items, argc - items, nx, true, create, capacity);
}

static int cmd_insert(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    return insert_cmd(ctx, argv, argc, false);
}

static int cmd_insertnx(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    return insert_cmd(ctx, argv, argc, true);
}

/* Opens a key for a read command: replies and returns false unless it holds
 * a live chain or is empty (*c NULL). */
static bool open_for_read(RedisModuleCtx *ctx, RedisModuleString *name, RedisModuleKey **key,
                          cfr_chain **c) {
    int kt = open_chain(ctx, name, REDISMODULE_READ, key, c);
    if (kt == KEY_WRONGTYPE) {
        RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
        return false;
    }
    if (kt == KEY_CHAIN && (*c)->load) {
        RedisModule_ReplyWithError(ctx, ERR_LOADING);
        return false;
    }
    return true;
}

static long long probe(const cfr_chain *c, RedisModuleString *item, bool count) {
    if (!c) return 0;
    size_t n;
    const char *s = RedisModule_StringPtrLen(item, &n);
    return count ? (long long)cfr_chain_count(c, s, n) : cfr_chain_contains(c, s, n);
}

static int cmd_exists(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    RedisModuleKey *key;
    cfr_chain *c;
    if (!open_for_read(ctx, argv[1], &key, &c)) return reply_close(key, REDISMODULE_OK);
    cfr_expire_sync(ctx, argv[1], c);
    return reply_close(key, RedisModule_ReplyWithLongLong(ctx, probe(c, argv[2], false)));
}

static int cmd_mexists(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 3) return RedisModule_WrongArity(ctx);
    RedisModuleKey *key;
    cfr_chain *c;
    if (!open_for_read(ctx, argv[1], &key, &c)) return reply_close(key, REDISMODULE_OK);
    cfr_expire_sync(ctx, argv[1], c);
    RedisModule_ReplyWithArray(ctx, argc - 2);
    /* In runs, through the library's batch: one lookup at a time waits for
     * each item's buckets, a batch keeps many reads in flight. */
    uint64_t h[ITEM_RUN];
    bool found[ITEM_RUN] = {false};
    for (int i = 2; i < argc; i += ITEM_RUN) {
        int run = argc - i < ITEM_RUN ? argc - i : ITEM_RUN;
        if (c) {
            hash_items(c, argv + i, run, h);
            cfr_chain_contains_hashes(c, h, (size_t)run, found);
        }
        for (int j = 0; j < run; j++) RedisModule_ReplyWithLongLong(ctx, found[j]);
    }
    return reply_close(key, REDISMODULE_OK);
}

static int cmd_count(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    RedisModuleKey *key;
    cfr_chain *c;
    if (!open_for_read(ctx, argv[1], &key, &c)) return reply_close(key, REDISMODULE_OK);
    cfr_expire_sync(ctx, argv[1], c);
    return reply_close(key, RedisModule_ReplyWithLongLong(ctx, probe(c, argv[2], true)));
}

/* Opens a key for a write command on an existing live chain; replies
 * `missing` when the key is empty. */
static bool open_for_write(RedisModuleCtx *ctx, RedisModuleString *name, const char *missing,
                           RedisModuleKey **key, cfr_chain **c) {
    int kt = open_chain(ctx, name, REDISMODULE_READ | REDISMODULE_WRITE, key, c);
    const char *err = kt == KEY_WRONGTYPE ? REDISMODULE_ERRORMSG_WRONGTYPE
                      : kt == KEY_EMPTY   ? missing
                      : (*c)->load        ? ERR_LOADING
                                          : NULL;
    if (err) RedisModule_ReplyWithError(ctx, err);
    return err == NULL;
}

static int cmd_del(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    RedisModuleKey *key;
    cfr_chain *c;
    if (!open_for_write(ctx, argv[1], "Not found", &key, &c))
        return reply_close(key, REDISMODULE_OK);
    cfr_expire_sync(ctx, argv[1], c);
    size_t n;
    const char *s = RedisModule_StringPtrLen(argv[2], &n);
    bool deleted = cfr_chain_delete(c, s, n);
    RedisModule_ReplicateVerbatim(ctx);
    return reply_close(key, RedisModule_ReplyWithLongLong(ctx, deleted));
}

static int cmd_compact(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    RedisModuleKey *key;
    cfr_chain *c;
    if (!open_for_write(ctx, argv[1], "Cuckoo filter was not found", &key, &c))
        return reply_close(key, REDISMODULE_OK);
    cfr_chain_compact(c);
    RedisModule_ReplicateVerbatim(ctx);
    return reply_close(key, RedisModule_ReplyWithSimpleString(ctx, "OK"));
}

static int cmd_info(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    RedisModuleKey *key;
    cfr_chain *c;
    if (!open_for_read(ctx, argv[1], &key, &c)) return reply_close(key, REDISMODULE_OK);
    if (!c) return reply_close(key, RedisModule_ReplyWithError(ctx, "ERR not found"));
    cfr_info in;
    cfr_chain_info(c, &in);
    /* RedisBloom's eight pairs first, in its order; ours follow.  An
     * in-place key adds its growth mode and doublings ("Number of filters"
     * stays 1: one table, two buckets per lookup); a chain key's reply is
     * as before.  An expiring key adds its window, its stamps and its
     * clock (the library's statistics), as they are: CF.INFO does not move
     * the clock. */
    RedisModule_ReplyWithArray(ctx, 2 * (10 + (c->inplace ? 2 : 0) + (c->expiring ? 5 : 0)));
    RedisModule_ReplyWithSimpleString(ctx, "Size");
    RedisModule_ReplyWithLongLong(ctx, (long long)in.table_bytes);
    RedisModule_ReplyWithSimpleString(ctx, "Number of buckets");
    RedisModule_ReplyWithLongLong(ctx, (long long)in.buckets);
    RedisModule_ReplyWithSimpleString(ctx, "Number of filters");
    RedisModule_ReplyWithLongLong(ctx, in.tables);
    RedisModule_ReplyWithSimpleString(ctx, "Number of items inserted");
    RedisModule_ReplyWithLongLong(ctx, (long long)in.items);
    RedisModule_ReplyWithSimpleString(ctx, "Number of items deleted");
    RedisModule_ReplyWithLongLong(ctx, (long long)c->deleted);
    RedisModule_ReplyWithSimpleString(ctx, "Bucket size");
    RedisModule_ReplyWithLongLong(ctx, in.bucket_size);
    RedisModule_ReplyWithSimpleString(ctx, "Expansion rate");
    RedisModule_ReplyWithLongLong(ctx, c->expansion);
    RedisModule_ReplyWithSimpleString(ctx, "Max iterations");
    RedisModule_ReplyWithLongLong(ctx, in.max_kicks);
    RedisModule_ReplyWithSimpleString(ctx, "Fingerprint bits");
    RedisModule_ReplyWithLongLong(ctx, in.fingerprint_bits);
    RedisModule_ReplyWithSimpleString(ctx, "False positive rate bound");
    RedisModule_ReplyWithDouble(ctx, in.fpp_bound);
    if (c->inplace) {
        RedisModule_ReplyWithSimpleString(ctx, "Growth");
        RedisModule_ReplyWithSimpleString(ctx, "inplace");
        RedisModule_ReplyWithSimpleString(ctx, "Doublings");
        RedisModule_ReplyWithLongLong(ctx, (long long)in.doublings);
    }
    if (c->expiring) {
        RedisModule_ReplyWithSimpleString(ctx, "Expire after (ms)");
        RedisModule_ReplyWithLongLong(ctx, (long long)in.expire_after);
        RedisModule_ReplyWithSimpleString(ctx, "Stamp span (ms)");
        RedisModule_ReplyWithLongLong(ctx, (long long)in.expire_span);
        RedisModule_ReplyWithSimpleString(ctx, "Stamps per window");
        RedisModule_ReplyWithLongLong(ctx, in.stamps);
        RedisModule_ReplyWithSimpleString(ctx, "Stamp bits");
        RedisModule_ReplyWithLongLong(ctx, in.stamp_bits);
        RedisModule_ReplyWithSimpleString(ctx, "Clock (ms)");
        RedisModule_ReplyWithLongLong(ctx, (long long)in.now);
    }
    return reply_close(key, REDISMODULE_OK);
}

static int reply_dump_end(RedisModuleCtx *ctx, RedisModuleKey *key) {
    RedisModule_ReplyWithArray(ctx, 2);
    RedisModule_ReplyWithLongLong(ctx, 0);
    RedisModule_ReplyWithNull(ctx);
    return reply_close(key, REDISMODULE_OK);
}

/* CF.SCANDUMP key iterator.  Iterator 0 returns the header; a later
 * iterator returns the body bytes after the position it encodes, at most
 * CHUNK_BYTES, read from the live tables (no copy is kept between calls).
 * Each reply is tagged with the key's generation (cf_redis_dump.h), so
 * LOADCHUNK refuses a dump read across a write.  [0, nil] ends the dump,
 * answers an iterator past the end, and answers a key with no items at
 * once (as RedisBloom does). */
static int cmd_scandump(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    long long it;
    if (RedisModule_StringToLongLong(argv[2], &it) != REDISMODULE_OK || it < 0)
        return RedisModule_ReplyWithError(ctx, "Invalid position");
    RedisModuleKey *key;
    cfr_chain *c;
    if (!open_for_read(ctx, argv[1], &key, &c)) return reply_close(key, REDISMODULE_OK);
    if (!c) return reply_close(key, RedisModule_ReplyWithError(ctx, "ERR not found"));
    if (it == 0) {
        cfr_info in;
        cfr_chain_info(c, &in);
        if (in.items == 0) return reply_dump_end(ctx, key);
        size_t hl;
        uint8_t *h = cfr_dump_header(c, &hl);
        if (!h) return reply_close(key, RedisModule_ReplyWithError(ctx, ERR_NOMEM));
        RedisModule_ReplyWithArray(ctx, 2);
        RedisModule_ReplyWithLongLong(ctx, cfr_iter_tag(c->gen, 1));
        RedisModule_ReplyWithStringBuffer(ctx, (const char *)h, hl);
        cfr_free(h);
        return reply_close(key, REDISMODULE_OK);
    }
    uint64_t pos = cfr_iter_pos(it), body = cfr_dump_body_len(c);
    if (pos == 0 || pos - 1 >= body) return reply_dump_end(ctx, key);
    uint64_t off = pos - 1;
    size_t n = body - off < cfr_lim.chunk_bytes ? (size_t)(body - off) : cfr_lim.chunk_bytes;
    uint8_t *buf = cfr_alloc(n);
    if (!buf || !cfr_dump_body_range(c, off, buf, n)) {
        cfr_free(buf);
        return reply_close(key, RedisModule_ReplyWithError(ctx, ERR_NOMEM));
    }
    RedisModule_ReplyWithArray(ctx, 2);
    RedisModule_ReplyWithLongLong(ctx, cfr_iter_tag(c->gen, pos + n));
    RedisModule_ReplyWithStringBuffer(ctx, (const char *)buf, n);
    cfr_free(buf);
    return reply_close(key, REDISMODULE_OK);
}

static const char *const ERR_CHUNK = "Couldn't load chunk!";

/* CF.LOADCHUNK key iterator data: the header chunk (position 1) creates the
 * key; later chunks must arrive in order and carry the header's generation.
 * Errors as RedisBloom's: a bad header is "Couldn't create filter!", any
 * chunk that does not fit "Couldn't load chunk!".  A chunk out of order
 * leaves the load where it was (the right one can follow); bad data or a
 * stale dump (two generations) deletes the key. */
static int cmd_loadchunk(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 4) return RedisModule_WrongArity(ctx);
    long long it;
    if (RedisModule_StringToLongLong(argv[2], &it) != REDISMODULE_OK || it < 1)
        return RedisModule_ReplyWithError(ctx, "Invalid position");
    size_t len;
    const uint8_t *data = (const uint8_t *)RedisModule_StringPtrLen(argv[3], &len);
    RedisModuleKey *key;
    cfr_chain *c;
    int kt = open_chain(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, &key, &c);
    if (kt == KEY_WRONGTYPE)
        return reply_close(key, RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE));
    uint64_t pos = cfr_iter_pos(it);
    if (pos == 1) {
        if (kt == KEY_CHAIN)
            return reply_close(key, RedisModule_ReplyWithError(ctx, "ERR item exists"));
        cfr_result r = cfr_load_begin(data, len, &cfr_lim, cfr_iter_gen(it), &c);
        if (r != CFR_OK)
            return reply_close(key,
                               RedisModule_ReplyWithError(
                                   ctx, r == CFR_NOMEM ? ERR_NOMEM : "Couldn't create filter!"));
        RedisModule_ModuleTypeSetValue(key, cfr_type, c);
        RedisModule_ReplicateVerbatim(ctx);
        return reply_close(key, RedisModule_ReplyWithSimpleString(ctx, "OK"));
    }
    if (kt == KEY_EMPTY) return reply_close(key, RedisModule_ReplyWithError(ctx, "ERR not found"));
    uint64_t end = pos - 1;
    if (!c->load || end < len) return reply_close(key, RedisModule_ReplyWithError(ctx, ERR_CHUNK));
    cfr_result r = cfr_iter_gen(it) != c->load->gen
                       ? CFR_STALE
                       : cfr_load_append(c, &cfr_lim, end - len, data, len);
    if (r == CFR_BAD_POSITION) return reply_close(key, RedisModule_ReplyWithError(ctx, ERR_CHUNK));
    RedisModule_ReplicateVerbatim(ctx);
    if (r != CFR_OK) {
        RedisModule_DeleteKey(key);
        return reply_close(key,
                           RedisModule_ReplyWithError(ctx, r == CFR_NOMEM ? ERR_NOMEM : ERR_CHUNK));
    }
    return reply_close(key, RedisModule_ReplyWithSimpleString(ctx, "OK"));
}

int cfr_register_commands(RedisModuleCtx *ctx) {
    static const struct {
        const char *name;
        RedisModuleCmdFunc fn;
        const char *flags;
    } cmds[] = {
        {"cf.reserve", cmd_reserve, "write deny-oom"},
        {"cf.add", cmd_add, "write deny-oom"},
        {"cf.addnx", cmd_addnx, "write deny-oom"},
        {"cf.insert", cmd_insert, "write deny-oom"},
        {"cf.insertnx", cmd_insertnx, "write deny-oom"},
        {"cf.exists", cmd_exists, "readonly fast"},
        {"cf.mexists", cmd_mexists, "readonly fast"},
        {"cf.count", cmd_count, "readonly fast"},
        {"cf.del", cmd_del, "write fast"},
        {"cf.compact", cmd_compact, "write"},
        {"cf.info", cmd_info, "readonly fast"},
        {"cf.scandump", cmd_scandump, "readonly"},
        {"cf.loadchunk", cmd_loadchunk, "write deny-oom"},
        /* The replicated clock step of expiring keys (cf_redis_expire.h). */
        {"cf._clock", cfr_cmd_clock, "write fast"},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        /* Key at argv[1] only: Redis derives the key spec Cluster routes by. */
        if (RedisModule_CreateCommand(ctx, cmds[i].name, cmds[i].fn, cmds[i].flags, 1, 1, 1) !=
            REDISMODULE_OK)
            return REDISMODULE_ERR;
    }
    return REDISMODULE_OK;
}
