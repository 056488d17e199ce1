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

/* Registers every CF.* command; REDISMODULE_OK or REDISMODULE_ERR. */
int cfr_register_commands(RedisModuleCtx *ctx);

/* Every piece of a key's dump stream after the header, in order: its
 * filter serialized (while loading: each complete image, then the partial
 * bytes).
 * Calls fn(arg, bytes, len) per piece; returns false if memory ran out. */
typedef void (*cfr_piece_fn)(void *arg, const uint8_t *bytes, size_t len);
bool cfr_for_each_piece(const cfr_chain *c, cfr_piece_fn fn, void *arg);

#endif /* CF_REDIS_H */
