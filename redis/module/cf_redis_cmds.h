/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_cmds.h -- the CF.* commands (cf_redis_cmds.c), which the
 * module's entry point registers.
 */
#ifndef CF_REDIS_CMDS_H
#define CF_REDIS_CMDS_H

#include "server/cf_redismodule.h"

/* Registers every CF.* command; REDISMODULE_OK or REDISMODULE_ERR. */
int cfr_register_commands(RedisModuleCtx *ctx);

#endif /* CF_REDIS_CMDS_H */
