/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_api.c -- defines and resolves the module API pointers declared in
 * cf_redismodule.h (our replacement for redismodule.h's RedisModule_Init).
 */
#include "server/cf_redismodule.h"

#include <string.h>

#define CFR_API_DEFINE_(ret, name, params) ret(*RedisModule_##name) params = NULL;
CFR_API_TABLE(CFR_API_DEFINE_)
#undef CFR_API_DEFINE_

/* The server's lookup function: stores the address of `funcname` through
 * target and returns REDISMODULE_OK, or REDISMODULE_ERR if it is unknown. */
typedef int (*cfr_getapi_fn)(const char *funcname, void *target);

/* Entry points a server may lack; the module works without them. */
static int cfr_optional(const char *name) {
    return strcmp(name, "TryAlloc") == 0 || strcmp(name, "TryCalloc") == 0 ||
           strcmp(name, "TryRealloc") == 0 || strcmp(name, "IsIOError") == 0 ||
           strcmp(name, "SetModuleOptions") == 0 || strcmp(name, "IsModuleNameBusy") == 0 ||
           strcmp(name, "CachedMicroseconds") == 0;
}

int cfr_api_init(RedisModuleCtx *ctx, const char *name, int ver) {
    /* The first word of the context is the GetApi function pointer; going
     * through memcpy keeps the object-to-function pointer conversion defined. */
    void *raw;
    memcpy(&raw, (void *)ctx, sizeof raw);
    cfr_getapi_fn getapi;
    memcpy(&getapi, &raw, sizeof getapi);

    int missing = 0;
#define CFR_API_RESOLVE_(ret, fname, params)                                             \
    if (getapi("RedisModule_" #fname, (void *)&RedisModule_##fname) != REDISMODULE_OK) { \
        RedisModule_##fname = NULL;                                                      \
        if (!cfr_optional(#fname)) missing = 1;                                          \
    }
    CFR_API_TABLE(CFR_API_RESOLVE_)
#undef CFR_API_RESOLVE_
    if (missing) return REDISMODULE_ERR;
    if (RedisModule_IsModuleNameBusy && RedisModule_IsModuleNameBusy(name)) return REDISMODULE_ERR;
    RedisModule_SetModuleAttribs(ctx, name, ver, REDISMODULE_APIVER_1);
    return REDISMODULE_OK;
}
