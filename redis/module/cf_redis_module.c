/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_module.c -- cuckoo.so's entry point and its data type.
 *
 * The type "cuckoo-cf" (9 characters, as Redis requires; not RedisBloom's
 * name, so both modules can be loaded side by side) persists a key as its
 * dump stream (cf_redis_dump.h): the key's filter in the library's
 * checksummed file format (version 2 once a chain key has grown, version 4
 * for an in-place key) behind a small header.  RDB values written by
 * earlier modules (dump version 1: one image per sub-filter) load into one
 * growing filter.  The value's layout is the same for both kinds of key:
 * no new encoding version (an older module refuses a version-4 image when
 * it validates it).
 *
 * Persistence (RDB, AOF rewrite, DEBUG DIGEST) is cf_redis_rdb.c's.
 *
 * Module arguments (--loadmodule cuckoo.so [NAME value]...):
 *   MAX_FILTERS n     tables per key, 1..64 (CF_MAX_TABLES; default 32)
 *   MAX_KEY_BYTES n   memory one key may use (default 4 GiB, at most 512 GiB)
 *   CHUNK_BYTES n     largest SCANDUMP / AOF chunk and RDB piece (default 1 MiB)
 *   GROWTH CHAIN|INPLACE  how new keys grow when CF.RESERVE does not say
 *                     (default CHAIN; INPLACE applies to keys whose options
 *                     an in-place table serves: BUCKETSIZE 4, the default
 *                     then, EXPANSION > 0, FINGERPRINT 16/32 if given, an
 *                     ERROR_RATE its slots reach)
 *   SANITIZER_MALLOC 1  test builds only: libc malloc, so ASan sees the heap
 */
#include "key/cf_redis_settings.h"
#include "module/cf_redis_cmds.h"
#include "rdb/cf_redis_rdb.h"

#include <string.h>
#include <strings.h>

#define CFR_MODULE_NAME "cuckoo"
#define CFR_MODULE_VERSION 100 /* 0.1.0 */
#define CFR_TYPE_NAME "cuckoo-cf"

/* ---- the type's other callbacks (persistence: cf_redis_rdb.c) ---- */

static size_t type_mem_usage(const void *value) {
    return cfr_chain_memory(value);
}

static void type_free(void *value) {
    cfr_chain_free(value);
}

static void *type_copy(RedisModuleString *from, RedisModuleString *to, const void *value) {
    (void)from;
    (void)to;
    return cfr_chain_clone(value, &cfr_lim);
}

/* ---- loading ---- */

static int parse_args(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    for (int i = 0; i < argc; i += 2) {
        size_t n;
        const char *name = RedisModule_StringPtrLen(argv[i], &n);
        if (strcasecmp(name, "GROWTH") == 0) {
            const char *mode = i + 1 < argc ? RedisModule_StringPtrLen(argv[i + 1], &n) : "";
            if (strcasecmp(mode, "INPLACE") != 0 && strcasecmp(mode, "CHAIN") != 0) {
                RedisModule_Log(ctx, "warning", "cuckoo: GROWTH needs CHAIN or INPLACE");
                return REDISMODULE_ERR;
            }
            cfr_default_inplace = strcasecmp(mode, "INPLACE") == 0;
            continue;
        }
        long long v;
        if (i + 1 >= argc || RedisModule_StringToLongLong(argv[i + 1], &v) != REDISMODULE_OK) {
            RedisModule_Log(ctx, "warning", "cuckoo: argument %s needs an integer value", name);
            return REDISMODULE_ERR;
        }
        if (strcasecmp(name, "MAX_FILTERS") == 0 && v >= 1 && v <= CF_MAX_TABLES) {
            cfr_lim.max_filters = (uint32_t)v;
        } else if (strcasecmp(name, "MAX_KEY_BYTES") == 0 && v >= 4096 &&
                   (uint64_t)v <= CFR_MAX_KEY_BYTES_LIMIT) {
            cfr_lim.max_key_bytes = (uint64_t)v;
        } else if (strcasecmp(name, "CHUNK_BYTES") == 0 && v >= 16 && v <= (512ll << 20)) {
            cfr_lim.chunk_bytes = (size_t)v;
        } else if (strcasecmp(name, "SANITIZER_MALLOC") == 0 && (v == 0 || v == 1)) {
            cfr_use_libc_malloc(v == 1);
        } else {
            RedisModule_Log(
                ctx, "warning",
                "cuckoo: unknown argument or value out of range: %s %lld "
                "(MAX_FILTERS 1..64, MAX_KEY_BYTES 4096..512GiB, CHUNK_BYTES 16..512MiB)",
                name, v);
            return REDISMODULE_ERR;
        }
    }
    return REDISMODULE_OK;
}

/* The one exported symbol: the server looks it up by name. */
__attribute__((visibility("default"))) int RedisModule_OnLoad(RedisModuleCtx *ctx,
                                                              RedisModuleString **argv, int argc);

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (cfr_api_init(ctx, CFR_MODULE_NAME, CFR_MODULE_VERSION) != REDISMODULE_OK)
        return REDISMODULE_ERR;
    if (parse_args(ctx, argv, argc) != REDISMODULE_OK) return REDISMODULE_ERR;
    cfr_alloc_init();
    /* Without this option a truncated RDB value makes the server exit; with
     * it our rdb_load sees the error and returns NULL. */
    if (RedisModule_SetModuleOptions)
        RedisModule_SetModuleOptions(ctx, REDISMODULE_OPTIONS_HANDLE_IO_ERRORS);
    RedisModuleTypeMethods tm;
    memset(&tm, 0, sizeof tm);
    tm.version = REDISMODULE_TYPE_METHOD_VERSION_3;
    tm.rdb_load = cfr_rdb_load;
    tm.rdb_save = cfr_rdb_save;
    tm.aof_rewrite = cfr_aof_rewrite;
    tm.mem_usage = type_mem_usage;
    tm.digest = cfr_digest;
    tm.free = type_free;
    tm.copy = type_copy;
    cfr_type = RedisModule_CreateDataType(ctx, CFR_TYPE_NAME, CFR_ENCODING_VERSION, &tm);
    if (!cfr_type) return REDISMODULE_ERR;
    RedisModule_Log(
        ctx, "notice", "cuckoo %s: MAX_FILTERS %u MAX_KEY_BYTES %llu CHUNK_BYTES %zu GROWTH %s",
        cf_version_string(), cfr_lim.max_filters, (unsigned long long)cfr_lim.max_key_bytes,
        cfr_lim.chunk_bytes, cfr_default_inplace ? "INPLACE" : "CHAIN");
    return cfr_register_commands(ctx);
}
