/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_rdb.c -- the data type's persistence: RDB save and load, the AOF
 * rewrite and DEBUG DIGEST, each streaming a key's dump stream
 * (cf_redis_dump.h) in bounded pieces read from the live filter.  A value
 * being loaded goes through the key's loader (cf_redis_load.h), as
 * CF.LOADCHUNK's chunks do.
 *
 *   RDB value, encoding version 1:
 *     unsigned  complete | generation << 1: complete is 1 for a live filter,
 *               0 for a CF.LOADCHUNK in progress, whose later chunks must
 *               carry that generation (cf_redis_dump.h)
 *     string    dump header
 *     unsigned  body bytes that follow: the header's body length for a live
 *               key, the bytes received so far for a loading one
 *     string... those bytes in pieces of 1..CHUNK_BYTES bytes (the saving
 *               server's), read from the live tables through one buffer:
 *               saving a key allocates one piece, whatever its size
 *
 *   Encoding version 0 (written before pieces were bounded; still read):
 *     the same unsigned and header, then the number of pieces that follow
 *     (at most one per image, plus one), each complete image as one string,
 *     then any partial image bytes as one string.
 *
 * The AOF rewrite emits the same stream as CF.LOADCHUNK commands, so a
 * rewritten AOF replays through the exact code path clients use.
 */
#include "rdb/cf_redis_rdb.h"

#include "key/cf_redis_settings.h"

/* ---- streaming the body in bounded pieces (RDB, AOF rewrite, DEBUG DIGEST) ---- */

/* Called once per piece of a stream; fn must not keep the bytes. */
typedef void (*cfr_piece_fn)(void *arg, const uint8_t *bytes, size_t len);

/* Bytes for_each_chunk passes: the body, and a loading key's partial bytes. */
static uint64_t saved_body_len(const cfr_chain *c) {
    return cfr_dump_body_len(c) + (c->load ? c->load->partial_len : 0);
}

/* The buffer for_each_chunk falls back to when it cannot allocate one of
 * `piece` bytes: a save must not stop halfway (Redis would write the
 * truncated value and fail to load its own file), and smaller pieces are
 * valid everywhere (1..CHUNK_BYTES). */
#define FALLBACK_PIECE 4096

/* Calls fn for the body of c in pieces of 1..`piece` bytes, read from the
 * live tables through one buffer, then for a loading key's partial bytes
 * (saved_body_len bytes in all).  False if a read of the tables failed. */
static bool for_each_chunk(const cfr_chain *c, size_t piece, cfr_piece_fn fn, void *arg) {
    uint64_t body = cfr_dump_body_len(c);
    size_t cap = body < piece ? (size_t)body : piece;
    uint8_t fallback[FALLBACK_PIECE];
    uint8_t *buf = cfr_alloc(cap ? cap : 1);
    if (!buf) {
        buf = fallback;
        cap = cap < sizeof fallback ? cap : sizeof fallback;
    }
    bool ok = true;
    for (uint64_t at = 0; ok && at < body;) {
        size_t n = body - at < cap ? (size_t)(body - at) : cap;
        ok = cfr_dump_body_range(c, at, buf, n);
        if (ok) fn(arg, buf, n);
        at += n;
    }
    if (buf != fallback) cfr_free(buf);
    const cfr_loader *l = c->load;
    if (ok && l && l->partial_len) {
        for (size_t at = 0; at < l->partial_len; at += piece)
            fn(arg, l->partial + at, l->partial_len - at < piece ? l->partial_len - at : piece);
    }
    return ok;
}

/* ---- RDB ---- */

static void save_piece(void *arg, const uint8_t *b, size_t n) {
    RedisModule_SaveStringBuffer(arg, (const char *)b, n);
}

void cfr_rdb_save(RedisModuleIO *io, void *value) {
    cfr_chain *c = value;
    size_t hl;
    uint8_t *h = cfr_dump_header(c, &hl);
    if (!h) {
        RedisModule_LogIOError(io, "warning", "cuckoo: out of memory while saving a filter");
        return;
    }
    RedisModule_SaveUnsigned(io, c->load ? (uint64_t)c->load->gen << 1 : 1);
    RedisModule_SaveStringBuffer(io, (const char *)h, hl);
    cfr_free(h);
    RedisModule_SaveUnsigned(io, saved_body_len(c));
    if (!for_each_chunk(c, cfr_lim.chunk_bytes, save_piece, io))
        RedisModule_LogIOError(io, "warning", "cuckoo: a filter could not be read while saving");
}

static bool io_failed(RedisModuleIO *io) {
    return RedisModule_IsIOError && RedisModule_IsIOError(io);
}

/* Reads one RDB string, 1..end - *at bytes, and appends it to c's body at
 * *at.  No writer saves an empty piece; refusing one means every piece read
 * moves *at, so a forged count cannot spin. */
static cfr_result load_piece(RedisModuleIO *io, cfr_chain *c, uint64_t *at, uint64_t end) {
    /* The last image ends the load (cfr_load_append frees the loader): no
     * piece may follow it. */
    if (!c->load) return CFR_BAD_CHUNK;
    size_t n = 0;
    char *b = RedisModule_LoadStringBuffer(io, &n);
    cfr_result r = CFR_BAD_CHUNK;
    if (!io_failed(io) && b && n > 0 && n <= end - *at) {
        r = cfr_load_append(c, &cfr_lim, *at, (const uint8_t *)b, n);
        *at += n;
    }
    if (b) RedisModule_Free(b);
    return r;
}

/* Encoding 1: the byte count, then pieces until it is reached.  A live key
 * (complete) has its whole body; a loading one less. */
static cfr_result load_body(RedisModuleIO *io, cfr_chain *c, bool complete) {
    uint64_t bytes = RedisModule_LoadUnsigned(io);
    if (io_failed(io) || bytes > c->load->d.body_len || complete != (bytes == c->load->d.body_len))
        return CFR_BAD_HEADER;
    cfr_result r = CFR_OK;
    for (uint64_t at = 0; at < bytes && r == CFR_OK;) r = load_piece(io, c, &at, bytes);
    return r;
}

/* Encoding 0: a count of pieces, each a complete image but a last partial
 * one, so at most one per image and one more.  The count allows one piece
 * more than a complete body has: a piece after the last image is refused
 * (load_piece), and the body length is read before the load ends. */
static cfr_result load_body_v0(RedisModuleIO *io, cfr_chain *c) {
    uint64_t pieces = RedisModule_LoadUnsigned(io);
    if (io_failed(io) || pieces > (uint64_t)c->load->d.nsubs + 1) return CFR_BAD_HEADER;
    uint64_t body_len = c->load->d.body_len;
    cfr_result r = CFR_OK;
    uint64_t at = 0;
    for (uint64_t i = 0; i < pieces && r == CFR_OK; i++) r = load_piece(io, c, &at, body_len);
    return r;
}

void *cfr_rdb_load(RedisModuleIO *io, int encver) {
    if (encver < 0 || encver > CFR_ENCODING_VERSION) return NULL;
    uint64_t state = RedisModule_LoadUnsigned(io);
    uint64_t complete = state & 1, gen = state >> 1;
    size_t hl = 0;
    char *h = RedisModule_LoadStringBuffer(io, &hl);
    if (io_failed(io) || !h) {
        if (h) RedisModule_Free(h);
        return NULL;
    }
    cfr_chain *c = NULL;
    cfr_result r = gen > CFR_ITER_GEN_MASK || (complete && gen)
                       ? CFR_BAD_HEADER
                       : cfr_load_begin((const uint8_t *)h, hl, &cfr_lim, (uint32_t)gen, &c);
    RedisModule_Free(h);
    if (r != CFR_OK) {
        RedisModule_LogIOError(io, "warning", "cuckoo: invalid filter header in RDB");
        return NULL;
    }
    r = encver == 0 ? load_body_v0(io, c) : load_body(io, c, complete == 1);
    if (r == CFR_OK && (complete == 1) != cfr_load_done(c)) r = CFR_BAD_CHUNK;
    if (r != CFR_OK) {
        RedisModule_LogIOError(io, "warning", "cuckoo: invalid filter data in RDB");
        cfr_chain_free(c);
        return NULL;
    }
    return c;
}

/* ---- AOF rewrite: the dump stream as CF.LOADCHUNK commands ---- */

typedef struct aof_ctx {
    RedisModuleIO *io;
    RedisModuleString *key;
    uint32_t gen; /* the generation the header was tagged with */
    uint64_t at;  /* body bytes emitted so far */
} aof_ctx;

static void emit_piece(void *arg, const uint8_t *b, size_t n) {
    aof_ctx *a = arg;
    a->at += n;
    RedisModule_EmitAOF(a->io, "CF.LOADCHUNK", "slb", a->key, cfr_iter_tag(a->gen, a->at + 1),
                        (const char *)b, n);
}

void cfr_aof_rewrite(RedisModuleIO *io, RedisModuleString *key, void *value) {
    cfr_chain *c = value;
    size_t hl;
    uint8_t *h = cfr_dump_header(c, &hl);
    if (!h) {
        RedisModule_LogIOError(io, "warning", "cuckoo: out of memory in AOF rewrite");
        return;
    }
    /* A restore in progress keeps its generation, so the client's next
     * chunk still fits after the rewritten AOF is replayed. */
    aof_ctx a = {io, key, c->load ? c->load->gen : 0, 0};
    RedisModule_EmitAOF(io, "CF.LOADCHUNK", "slb", key, cfr_iter_tag(a.gen, 1), (const char *)h,
                        hl);
    cfr_free(h);
    if (!for_each_chunk(c, cfr_lim.chunk_bytes, emit_piece, &a))
        RedisModule_LogIOError(io, "warning", "cuckoo: a filter could not be read in AOF rewrite");
}

static void digest_piece(void *arg, const uint8_t *b, size_t n) {
    RedisModule_DigestAddStringBuffer(arg, (const char *)b, n);
}

/* DEBUG DIGEST covers the persisted bytes, so a replica can be compared. */
void cfr_digest(RedisModuleDigest *md, void *value) {
    cfr_chain *c = value;
    size_t hl;
    uint8_t *h = cfr_dump_header(c, &hl);
    if (h) {
        RedisModule_DigestAddStringBuffer(md, (const char *)h, hl);
        cfr_free(h);
    }
    /* Fixed pieces, so the digest does not depend on CHUNK_BYTES. */
    for_each_chunk(c, (size_t)1 << 16, digest_piece, md);
    RedisModule_DigestEndSequence(md);
}
