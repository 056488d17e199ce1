/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_expire.c -- expiring keys on the command side (cf_redis_expire.h).
 *
 * The clock.  A key's clock is the server's time in milliseconds, read
 * once per command: Redis 7.2's cached command time (RedisModule_
 * CachedMicroseconds, the snapshot Redis itself expires keys by inside a
 * command) where the server has it, else RedisModule_Milliseconds (7.0
 * expires keys by its own per-command snapshot, which 7.0 does not give
 * modules).
 *
 * Determinism.  Only a master reads the server's clock.  Whenever a
 * command moves a key's clock (a move happens only when the time enters a
 * later stamp span, so at most once per span per key), the master
 * replicates `CF._CLOCK key ms` before the command itself, so the replica
 * and the AOF receive, in one MULTI/EXEC unit, the clock step and the
 * command that used it.  A replica, or a server replaying its AOF, never
 * reads its own clock: it applies the steps, and holds exactly the
 * master's bytes.  Reads (CF.EXISTS, MEXISTS, COUNT) move the clock on a
 * master too, as Redis expires a key that a read touches and propagates
 * the DEL: the master answers at its time, and the step it replicates
 * makes the replica answer the same.  A replica answers at the last clock
 * the master sent (a key the master has not touched since keeps items
 * the master would now forget).
 */
#include "module/cf_redis_expire.h"

#include "key/cf_redis_settings.h"

/* The server's time in milliseconds, as a master's commands take it. */
static uint64_t server_ms(void) {
    long long ms = RedisModule_CachedMicroseconds ? RedisModule_CachedMicroseconds() / 1000
                                                  : RedisModule_Milliseconds();
    return ms > 0 ? (uint64_t)ms : 0;
}

/* Whether this command may read the server's clock: not on a replica, not
 * for a command from the master link or an AOF being loaded. */
static bool own_clock(RedisModuleCtx *ctx) {
    int f = RedisModule_GetContextFlags(ctx);
    return !(f & (REDISMODULE_CTX_FLAGS_SLAVE | REDISMODULE_CTX_FLAGS_REPLICATED |
                  REDISMODULE_CTX_FLAGS_LOADING));
}

static const char *const ERR_EXPIRE_RANGE =
    "EXPIRE: value must be in the range [1, " CFR_STR(CFR_MAX_EXPIRE_S) "] (seconds)";
static const char *const ERR_PEXPIRE_RANGE =
    "PEXPIRE: value must be in the range [1, " CFR_STR(CFR_MAX_EXPIRE_S) "000] (milliseconds)";

bool cfr_parse_expire(RedisModuleCtx *ctx, RedisModuleString *v, bool millis, uint64_t *ms) {
    long long x;
    if (RedisModule_StringToLongLong(v, &x) != REDISMODULE_OK) {
        RedisModule_ReplyWithError(ctx,
                                   millis ? "Couldn't parse PEXPIRE" : "Couldn't parse EXPIRE");
        return false;
    }
    long long max = millis ? CFR_MAX_EXPIRE_S * 1000ll : CFR_MAX_EXPIRE_S;
    if (x < 1 || x > max) {
        RedisModule_ReplyWithError(ctx, millis ? ERR_PEXPIRE_RANGE : ERR_EXPIRE_RANGE);
        return false;
    }
    *ms = millis ? (uint64_t)x : (uint64_t)x * 1000u;
    return true;
}

void cfr_expire_sync(RedisModuleCtx *ctx, RedisModuleString *name, cfr_chain *c) {
    if (!c || !c->expiring || c->load || !own_clock(ctx)) return;
    if (!cfr_clock_advance(c, server_ms())) return;
    cfr_info in;
    cfr_chain_info(c, &in);
    RedisModule_Replicate(ctx, "CF._CLOCK", "sl", name, (long long)in.now);
}

int cfr_cmd_clock(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    /* A client has no business setting a key's clock: the server's time
     * does, on the master.  A step in the future would hold the stamps
     * inserts write; one that merely moves forward would forget items
     * early. */
    int f = RedisModule_GetContextFlags(ctx);
    if (!(f & (REDISMODULE_CTX_FLAGS_REPLICATED | REDISMODULE_CTX_FLAGS_LOADING)))
        return RedisModule_ReplyWithError(ctx, "ERR CF._CLOCK is internal: only a master's "
                                               "replication stream or an AOF may send it");
    long long t;
    if (RedisModule_StringToLongLong(argv[2], &t) != REDISMODULE_OK || t < 0)
        return RedisModule_ReplyWithError(ctx, "ERR CF._CLOCK: bad time");
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    int kt = RedisModule_KeyType(key);
    const char *err = NULL;
    if (kt == REDISMODULE_KEYTYPE_EMPTY) {
        err = "ERR not found";
    } else if (kt != REDISMODULE_KEYTYPE_MODULE || RedisModule_ModuleTypeGetType(key) != cfr_type) {
        err = REDISMODULE_ERRORMSG_WRONGTYPE;
    } else {
        cfr_chain *c = RedisModule_ModuleTypeGetValue(key);
        if (cfr_clock_set(c, (uint64_t)t) != CFR_OK)
            err = "ERR CF._CLOCK: not an expiring filter, still loading, or a time earlier than "
                  "its clock";
    }
    RedisModule_CloseKey(key);
    if (err) return RedisModule_ReplyWithError(ctx, err);
    RedisModule_ReplicateVerbatim(ctx);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}
