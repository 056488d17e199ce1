/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_settings.h -- what every key and command of the module obeys:
 * the limits and the growth the module arguments set, and the data type
 * the keys are (cf_redis_settings.c).  The entry point
 * (module/cf_redis_module.c) sets them once in RedisModule_OnLoad; the
 * commands and the persistence callbacks only read them, so they depend
 * on this file and not on each other or on the entry point.
 */
#ifndef CF_REDIS_SETTINGS_H
#define CF_REDIS_SETTINGS_H

#include <stdbool.h>

#include "key/cf_redis_chain.h"
#include "server/cf_redismodule.h"

/* Registered once in RedisModule_OnLoad and read-only afterwards. */
extern RedisModuleType *cfr_type;
extern cfr_limits cfr_lim;
/* Module argument GROWTH: whether new growing keys grow in place when
 * CF.RESERVE does not say (GROWTH INPLACE), or by the chain (CHAIN, the
 * default: RedisBloom's behaviour). */
extern bool cfr_default_inplace;

#endif /* CF_REDIS_SETTINGS_H */
