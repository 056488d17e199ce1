/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_expire.h -- expiring keys on the command side: CF.RESERVE's
 * EXPIRE / PEXPIRE values, the server's clock, and how a key's clock
 * travels to replicas and the AOF (cf_redis_expire.c; docs/REDIS.md,
 * "Items that expire").
 */
#ifndef CF_REDIS_EXPIRE_H
#define CF_REDIS_EXPIRE_H

#include "key/cf_redis_chain.h"
#include "server/cf_redismodule.h"

#include <stdbool.h>
#include <stdint.h>

/* The largest EXPIRE in seconds (about 136 years); PEXPIRE's is 1000
 * times this.  A bare literal, so that CFR_STR can put it in messages. */
#define CFR_MAX_EXPIRE_S 4294967295

/* Reads CF.RESERVE's EXPIRE (seconds) or PEXPIRE (milliseconds, millis)
 * value into *ms.  On a bad value replies the error and returns false. */
bool cfr_parse_expire(RedisModuleCtx *ctx, RedisModuleString *v, bool millis, uint64_t *ms);

/* Before a command reads or writes an expiring key: on a master, moves
 * the key's clock to the server's time (cfr_clock_advance: only into a
 * later stamp span, never backwards) and, when it moved, replicates the
 * step `CF._CLOCK key ms` ahead of whatever the command replicates.  On a
 * replica, or for a command from the master link or an AOF being loaded,
 * does nothing: there the replicated steps set the clock.  No-op for other
 * keys. */
void cfr_expire_sync(RedisModuleCtx *ctx, RedisModuleString *name, cfr_chain *c);

/* CF._CLOCK key ms: the replicated step.  Accepted only from the master
 * link or an AOF being loaded. */
int cfr_cmd_clock(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);

#endif /* CF_REDIS_EXPIRE_H */
