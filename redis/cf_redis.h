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

/* What cfr_rdb_save writes; cfr_rdb_load reads this and every earlier one. */
#define CFR_ENCODING_VERSION 1

/* The type's persistence callbacks (cf_redis_rdb.c). */
void cfr_rdb_save(RedisModuleIO *io, void *value);
void *cfr_rdb_load(RedisModuleIO *io, int encver);
void cfr_aof_rewrite(RedisModuleIO *io, RedisModuleString *key, void *value);
void cfr_digest(RedisModuleDigest *md, void *value);

/* Registers every CF.* command; REDISMODULE_OK or REDISMODULE_ERR. */
int cfr_register_commands(RedisModuleCtx *ctx);

#endif /* CF_REDIS_H */
