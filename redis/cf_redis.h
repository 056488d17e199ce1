/*
 * cf_redis.h -- what the module's command file and type file share.
 */
#ifndef CF_REDIS_H
#define CF_REDIS_H

#include "cf_redis_chain.h"
#include "cf_redismodule.h"

/* Registered once in RedisModule_OnLoad and read-only afterwards. */
extern RedisModuleType *cfr_type;
extern cfr_limits cfr_lim;
/* Module argument GROWTH: whether new growing keys grow in place when
 * CF.RESERVE does not say (GROWTH INPLACE), or by the chain (CHAIN, the
 * default: RedisBloom's behaviour). */
extern bool cfr_default_inplace;

/* Registers every CF.* command; REDISMODULE_OK or REDISMODULE_ERR. */
int cfr_register_commands(RedisModuleCtx *ctx);

#endif /* CF_REDIS_H */
