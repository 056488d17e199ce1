/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cf_redis_settings.c -- the module's settings (cf_redis_settings.h), at
 * their defaults until RedisModule_OnLoad reads the module arguments. */
#include "key/cf_redis_settings.h"

RedisModuleType *cfr_type = NULL;
cfr_limits cfr_lim = {CFR_DEFAULT_MAX_FILTERS, CFR_DEFAULT_MAX_KEY_BYTES, CFR_DEFAULT_CHUNK_BYTES};
bool cfr_default_inplace = false;
