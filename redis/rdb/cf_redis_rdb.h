/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_rdb.h -- the data type's persistence callbacks (cf_redis_rdb.c),
 * which the module's entry point registers with the type.
 */
#ifndef CF_REDIS_RDB_H
#define CF_REDIS_RDB_H

#include "server/cf_redismodule.h"

/* What cfr_rdb_save writes; cfr_rdb_load reads this and every earlier one. */
#define CFR_ENCODING_VERSION 1

void cfr_rdb_save(RedisModuleIO *io, void *value);
void *cfr_rdb_load(RedisModuleIO *io, int encver);
void cfr_aof_rewrite(RedisModuleIO *io, RedisModuleString *key, void *value);
void cfr_digest(RedisModuleDigest *md, void *value);

#endif /* CF_REDIS_RDB_H */
