/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redismodule.h -- the part of the Redis module API this module uses.
 *
 * Debian ships no redismodule.h, so we declare, from the module API
 * reference (redis.io, "Modules API reference"), only the entry points and
 * constants cuckoo.so needs.  The server hands a module a context whose first
 * word is a pointer to its GetApi function; GetApi looks an entry point up by
 * its name ("RedisModule_CreateCommand") and stores its address through the
 * pointer we pass.  A name the server does not know leaves our pointer NULL,
 * which is how optional entry points (TryAlloc, IsIOError) are detected.
 *
 *   ctx ──► [ GetApi | ... ]        GetApi("RedisModule_Alloc", &RedisModule_Alloc)
 *
 * Every pointer is defined once, in cf_redis_api.c; cfr_api_init() fills them.
 */
#ifndef CF_REDISMODULE_H
#define CF_REDISMODULE_H

#include <stddef.h>
#include <stdint.h>

/* Return codes and key modes, as the API reference defines them. */
#define REDISMODULE_OK 0
#define REDISMODULE_ERR 1
#define REDISMODULE_APIVER_1 1
#define REDISMODULE_READ (1 << 0)
#define REDISMODULE_WRITE (1 << 1)
#define REDISMODULE_KEYTYPE_EMPTY 0
#define REDISMODULE_KEYTYPE_MODULE 6
#define REDISMODULE_POSTPONED_LEN -1
/* Lets rdb_load see a short read as an error instead of the server exiting. */
#define REDISMODULE_OPTIONS_HANDLE_IO_ERRORS (1 << 0)
/* The type-methods layout this module fills: up to and including `defrag`. */
#define REDISMODULE_TYPE_METHOD_VERSION_3 3
/* RedisModule_GetContextFlags bits: the command came from the master link,
 * the server is loading (an AOF replayed, an RDB read), the server is a
 * replica. */
#define REDISMODULE_CTX_FLAGS_SLAVE (1 << 3)
#define REDISMODULE_CTX_FLAGS_REPLICATED (1 << 12)
#define REDISMODULE_CTX_FLAGS_LOADING (1 << 13)
#define REDISMODULE_ERRORMSG_WRONGTYPE \
    "WRONGTYPE Operation against a key holding the wrong kind of value"

/* Opaque server objects. */
typedef struct RedisModuleCtx RedisModuleCtx;
typedef struct RedisModuleKey RedisModuleKey;
typedef struct RedisModuleString RedisModuleString;
typedef struct RedisModuleIO RedisModuleIO;
typedef struct RedisModuleType RedisModuleType;
typedef struct RedisModuleDigest RedisModuleDigest;
typedef struct RedisModuleDefragCtx RedisModuleDefragCtx;

typedef int (*RedisModuleCmdFunc)(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
typedef void *(*RedisModuleTypeLoadFunc)(RedisModuleIO *rdb, int encver);
typedef void (*RedisModuleTypeSaveFunc)(RedisModuleIO *rdb, void *value);
typedef void (*RedisModuleTypeRewriteFunc)(RedisModuleIO *aof, RedisModuleString *key, void *value);
typedef size_t (*RedisModuleTypeMemUsageFunc)(const void *value);
typedef void (*RedisModuleTypeDigestFunc)(RedisModuleDigest *digest, void *value);
typedef void (*RedisModuleTypeFreeFunc)(void *value);
typedef void (*RedisModuleTypeAuxLoadFunc)(RedisModuleIO *rdb, int encver, int when);
typedef void (*RedisModuleTypeAuxSaveFunc)(RedisModuleIO *rdb, int when);
typedef size_t (*RedisModuleTypeFreeEffortFunc)(RedisModuleString *key, const void *value);
typedef void (*RedisModuleTypeUnlinkFunc)(RedisModuleString *key, const void *value);
typedef void *(*RedisModuleTypeCopyFunc)(RedisModuleString *fromkey, RedisModuleString *tokey,
                                         const void *value);
typedef int (*RedisModuleTypeDefragFunc)(RedisModuleDefragCtx *ctx, RedisModuleString *key,
                                         void **value);

/* The type-methods struct, version 3 layout (field order is the ABI). */
typedef struct RedisModuleTypeMethods {
    uint64_t version;
    RedisModuleTypeLoadFunc rdb_load;
    RedisModuleTypeSaveFunc rdb_save;
    RedisModuleTypeRewriteFunc aof_rewrite;
    RedisModuleTypeMemUsageFunc mem_usage;
    RedisModuleTypeDigestFunc digest;
    RedisModuleTypeFreeFunc free;
    RedisModuleTypeAuxLoadFunc aux_load;
    RedisModuleTypeAuxSaveFunc aux_save;
    int aux_save_triggers;
    RedisModuleTypeFreeEffortFunc free_effort;
    RedisModuleTypeUnlinkFunc unlink;
    RedisModuleTypeCopyFunc copy;
    RedisModuleTypeDefragFunc defrag;
} RedisModuleTypeMethods;

/* X-macro of every entry point used: return type, name, parameter list.
 * The same list declares the pointers here and defines and resolves them in
 * cf_redis_api.c, so the three can never disagree. */
#define CFR_API_TABLE(X)                                                                         \
    X(void *, Alloc, (size_t bytes))                                                             \
    X(void *, TryAlloc, (size_t bytes))                                                          \
    X(void *, Calloc, (size_t nmemb, size_t size))                                               \
    X(void *, TryCalloc, (size_t nmemb, size_t size))                                            \
    X(void *, Realloc, (void *ptr, size_t bytes))                                                \
    X(void *, TryRealloc, (void *ptr, size_t bytes))                                             \
    X(void, Free, (void *ptr))                                                                   \
    X(void, SetModuleAttribs, (RedisModuleCtx * ctx, const char *name, int ver, int apiver))     \
    X(int, IsModuleNameBusy, (const char *name))                                                 \
    X(void, SetModuleOptions, (RedisModuleCtx * ctx, int options))                               \
    X(int, CreateCommand,                                                                        \
      (RedisModuleCtx * ctx, const char *name, RedisModuleCmdFunc cmdfunc, const char *strflags, \
       int firstkey, int lastkey, int keystep))                                                  \
    X(RedisModuleType *, CreateDataType,                                                         \
      (RedisModuleCtx * ctx, const char *name, int encver, RedisModuleTypeMethods *typemethods)) \
    X(int, WrongArity, (RedisModuleCtx * ctx))                                                   \
    X(int, ReplyWithError, (RedisModuleCtx * ctx, const char *err))                              \
    X(int, ReplyWithSimpleString, (RedisModuleCtx * ctx, const char *msg))                       \
    X(int, ReplyWithLongLong, (RedisModuleCtx * ctx, long long ll))                              \
    X(int, ReplyWithArray, (RedisModuleCtx * ctx, long len))                                     \
    X(void, ReplySetArrayLength, (RedisModuleCtx * ctx, long len))                               \
    X(int, ReplyWithStringBuffer, (RedisModuleCtx * ctx, const char *buf, size_t len))           \
    X(int, ReplyWithNull, (RedisModuleCtx * ctx))                                                \
    X(int, ReplyWithDouble, (RedisModuleCtx * ctx, double d))                                    \
    X(RedisModuleKey *, OpenKey, (RedisModuleCtx * ctx, RedisModuleString * keyname, int mode))  \
    X(void, CloseKey, (RedisModuleKey * kp))                                                     \
    X(int, KeyType, (RedisModuleKey * kp))                                                       \
    X(int, DeleteKey, (RedisModuleKey * kp))                                                     \
    X(RedisModuleType *, ModuleTypeGetType, (RedisModuleKey * key))                              \
    X(void *, ModuleTypeGetValue, (RedisModuleKey * key))                                        \
    X(int, ModuleTypeSetValue, (RedisModuleKey * key, RedisModuleType * mt, void *value))        \
    X(const char *, StringPtrLen, (const RedisModuleString *str, size_t *len))                   \
    X(int, StringToLongLong, (const RedisModuleString *str, long long *ll))                      \
    X(int, StringToDouble, (const RedisModuleString *str, double *d))                            \
    X(int, ReplicateVerbatim, (RedisModuleCtx * ctx))                                            \
    X(int, Replicate, (RedisModuleCtx * ctx, const char *cmdname, const char *fmt, ...))         \
    X(int, GetContextFlags, (RedisModuleCtx * ctx))                                              \
    X(long long, Milliseconds, (void))                                                           \
    X(long long, CachedMicroseconds, (void))                                                     \
    X(void, SaveUnsigned, (RedisModuleIO * io, uint64_t value))                                  \
    X(uint64_t, LoadUnsigned, (RedisModuleIO * io))                                              \
    X(void, SaveStringBuffer, (RedisModuleIO * io, const char *str, size_t len))                 \
    X(char *, LoadStringBuffer, (RedisModuleIO * io, size_t * lenptr))                           \
    X(int, IsIOError, (RedisModuleIO * io))                                                      \
    X(void, EmitAOF, (RedisModuleIO * io, const char *cmdname, const char *fmt, ...))            \
    X(void, DigestAddStringBuffer, (RedisModuleDigest * md, const char *ele, size_t len))        \
    X(void, DigestEndSequence, (RedisModuleDigest * md))                                         \
    X(void, Log, (RedisModuleCtx * ctx, const char *level, const char *fmt, ...))                \
    X(void, LogIOError, (RedisModuleIO * io, const char *levelstr, const char *fmt, ...))

#define CFR_API_DECLARE_(ret, name, params) extern ret(*RedisModule_##name) params;
CFR_API_TABLE(CFR_API_DECLARE_)
#undef CFR_API_DECLARE_

/* Resolves every entry point through the context's GetApi and registers the
 * module under `name`, as the API's RedisModule_Init does.  Returns
 * REDISMODULE_ERR if the name is taken or a required entry point is missing
 * (TryAlloc, TryCalloc, TryRealloc, IsIOError, SetModuleOptions and
 * CachedMicroseconds, new in Redis 7.2, are optional). */
int cfr_api_init(RedisModuleCtx *ctx, const char *name, int ver);

#endif /* CF_REDISMODULE_H */
