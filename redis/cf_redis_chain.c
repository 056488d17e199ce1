/*
 * cf_redis_chain.c -- the chain of sub-filters behind one key, and its dump
 * stream (layout in cf_redis_dump.h).  Uses only the public library API.
 *
 * Insert, in full:
 *   1. NX: if any sub-filter may hold the item, answer "exists".
 *   2. If the chain is marked exhausted (an earlier insert found it full and
 *      unable to grow, and no delete has freed a slot since), refuse at once
 *      unless it can grow now: a full key costs O(1) per refused item.
 *   3. Try the sub-filters from the newest to the oldest, skipping
 *      - those marked full (an earlier insert found no room there and no
 *        delete has freed a slot since: retrying would redo a futile,
 *        max_kicks-long search), and
 *      - those whose two buckets already hold 2b copies of this fingerprint
 *        (nothing can move there).
 *      A sub-filter is marked full when an insert fails there (really_full()
 *      discounts failures next to copies of the item in a lightly loaded
 *      table: they say little about the rest of it).
 *   4. Grow by one sub-filter (within EXPANSION, the cap and the key's memory
 *      limit) and insert there -- also when only copies of the item stood in
 *      the way, as RedisBloom does; the cap bounds what duplicates can cost.
 *   5. If growing is impossible after a failure for lack of room, retry the
 *      newest sub-filter once even when marked full (its other buckets may
 *      have room); if that fails too, mark the chain exhausted.
 * The marks are part of the persisted state, so primaries, replicas and
 * reloaded servers take the same branches.
 */
#include "cf_redis_chain.h"

#include "cf_redismodule.h"

#include <stdlib.h>
#include <string.h>

/* The seed of every key this module creates: replicas must build the same
 * tables.  A key loaded from a dump keeps the seed its first sub-filter
 * carries (`cuckoo export` of a file made with another seed), and its later
 * sub-filters take that seed too. */
#define CFR_SEED 0x6366726564697331ull /* "cfredis1" */

/* ---- memory: all through the Redis allocator, so MEMORY USAGE is real ---- */

/* Set once at load (module argument SANITIZER_MALLOC 1): sanitizer test runs
 * use libc malloc so AddressSanitizer sees the module's heap; Redis's
 * jemalloc arenas are invisible to it.  MEMORY USAGE stays exact either way
 * (it sums the sizes the library reports). */
static bool cfr_libc_malloc = false;

void cfr_use_libc_malloc(bool on) {
    cfr_libc_malloc = on;
}

void *cfr_alloc(size_t n) {
    if (cfr_libc_malloc) return malloc(n);
    /* TryAlloc returns NULL on failure; plain Alloc would abort the server. */
    if (RedisModule_TryAlloc) return RedisModule_TryAlloc(n);
    return RedisModule_Alloc(n);
}

void cfr_free(void *p) {
    if (!p) return;
    if (cfr_libc_malloc)
        free(p);
    else
        RedisModule_Free(p);
}

static void *cfr_alloc_cb(void *ctx, size_t n) {
    (void)ctx;
    return cfr_alloc(n);
}

static void cfr_free_cb(void *ctx, void *p) {
    (void)ctx;
    cfr_free(p);
}

/* Tables come zeroed from calloc: jemalloc (and glibc) map fresh pages for
 * large sizes, so CF.RESERVE of any size answers at once and each page is
 * zeroed by the kernel when an insert first touches it.  Redis counts the
 * whole size in used_memory (and maxmemory) at once.  Without TryCalloc
 * (Redis < 7.4) a refused allocation aborts the server, as Redis's own
 * allocations do; MAX_KEY_BYTES bounds every request beforehand. */
static void *cfr_calloc_cb(void *ctx, size_t n) {
    (void)ctx;
    if (cfr_libc_malloc) return calloc(1, n);
    if (RedisModule_TryCalloc) return RedisModule_TryCalloc(1, n);
    return RedisModule_Calloc(1, n);
}

const cf_allocator cfr_allocator = {cfr_alloc_cb, cfr_free_cb, NULL, cfr_calloc_cb};

/* ---- chain lifetime ---- */

/* Generations of new chains start from a module-wide counter, so a key
 * deleted and created again mid-dump does not repeat its predecessor's. */
static uint32_t cfr_next_gen = 0;

static cfr_chain *chain_alloc(uint32_t cap_subs) {
    cfr_chain *c = cfr_alloc(sizeof *c);
    if (!c) return NULL;
    memset(c, 0, sizeof *c);
    c->gen = cfr_next_gen;
    cfr_next_gen += 7; /* odd: consecutive keys get distinct generations mod 2^12 */
    c->subs = cfr_alloc(sizeof *c->subs * cap_subs);
    if (!c->subs) {
        cfr_free(c);
        return NULL;
    }
    memset(c->subs, 0, sizeof *c->subs * cap_subs);
    c->cap_subs = cap_subs;
    return c;
}

/* Makes room for one more sub-filter slot (the array doubles). */
static bool ensure_slot(cfr_chain *c) {
    if (c->nsubs < c->cap_subs) return true;
    uint32_t cap = c->cap_subs * 2;
    cfr_sub *subs = cfr_alloc(sizeof *subs * cap);
    if (!subs) return false;
    memset(subs, 0, sizeof *subs * cap);
    memcpy(subs, c->subs, sizeof *subs * c->nsubs);
    cfr_free(c->subs);
    c->subs = subs;
    c->cap_subs = cap;
    return true;
}

static void load_state_free(cfr_chain *c) {
    cfr_free(c->load_lens);
    cfr_free(c->load_flags);
    cfr_free(c->partial);
    c->load_lens = c->load_flags = NULL;
    c->partial = NULL;
    c->partial_len = c->partial_cap = 0;
    c->loading = false;
}

void cfr_chain_free(cfr_chain *c) {
    if (!c) return;
    for (uint32_t i = 0; i < c->nsubs; i++) cf_free(c->subs[i].f);
    cfr_free(c->subs);
    load_state_free(c);
    cfr_free(c);
}

void cfr_chain_touch(cfr_chain *c) {
    c->gen++;
}

size_t cfr_chain_memory(const cfr_chain *c) {
    size_t n = sizeof *c + sizeof *c->subs * c->cap_subs + c->partial_cap;
    for (uint32_t i = 0; i < c->nsubs; i++) n += cf_memory_usage(c->subs[i].f);
    if (c->loading) n += 2 * sizeof(uint64_t) * c->load_nsubs;
    return n;
}

/* Builds one sub-filter of nb buckets (0: sized from p->capacity) if the
 * key's limit allows it. */
static cfr_result sub_new(const cfr_params *p, uint64_t nb, uint64_t used_bytes,
                          const cfr_limits *lim, cf_filter **out) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = p->capacity;
    cfg.num_buckets = nb;
    cfg.bucket_size = p->bucket_size;
    cfg.fingerprint_bits = p->fingerprint_bits;
    cfg.max_kicks = p->max_kicks;
    cfg.seed = p->seed;
    cfg.flags = p->flags;
    cfg.allocator = &cfr_allocator;
    /* The library sizes the table; the limit is checked before allocating. */
    cf_shape shape;
    if (cf_config_resolve(&cfg, &shape) != CF_OK || shape.table_bytes > lim->max_key_bytes ||
        used_bytes > lim->max_key_bytes - shape.table_bytes)
        return CFR_NOMEM;
    return cf_new(&cfg, out) == CF_OK ? CFR_OK : CFR_NOMEM;
}

cfr_result cfr_chain_new(const cfr_params *p, const cfr_limits *lim, cfr_chain **out,
                         const char **err) {
    *out = NULL;
    cfr_chain *c = chain_alloc(1);
    if (!c) {
        *err = "ERR Insufficient memory";
        return CFR_NOMEM;
    }
    c->expansion = p->expansion;
    c->capacity = p->capacity;
    cfr_params own = *p;
    own.seed = CFR_SEED;
    own.flags = 0;
    cfr_result r = sub_new(&own, 0, cfr_chain_memory(c), lim, &c->subs[0].f);
    if (r != CFR_OK) {
        *err = "ERR Insufficient memory: the filter would exceed the module's per-key limit "
               "(MAX_KEY_BYTES) or the server's memory";
        cfr_chain_free(c);
        return r;
    }
    c->nsubs = 1;
    *out = c;
    return CFR_OK;
}

/* ---- operations ---- */

static void sub_params(const cfr_chain *c, cfr_params *p) {
    cf_stats st;
    cf_get_stats(c->subs[0].f, &st);
    p->capacity = c->capacity;
    p->bucket_size = st.bucket_size;
    p->fingerprint_bits = st.fingerprint_bits;
    p->max_kicks = st.max_kicks;
    p->expansion = c->expansion;
    p->seed = st.seed;
    p->flags = st.flags;
}

static cfr_result chain_grow(cfr_chain *c, const cfr_limits *lim) {
    if (c->expansion == 0) return CFR_FULL;
    if (c->nsubs >= lim->max_filters) return CFR_MAX_FILTERS;
    if (!ensure_slot(c)) return CFR_NOMEM;
    cfr_params p;
    sub_params(c, &p);
    cf_stats last;
    cf_get_stats(c->subs[c->nsubs - 1].f, &last);
    if (last.num_buckets > UINT64_MAX / c->expansion) return CFR_NOMEM;
    cf_filter *f = NULL;
    cfr_result r = sub_new(&p, last.num_buckets * c->expansion, cfr_chain_memory(c), lim, &f);
    if (r != CFR_OK) return r;
    c->subs[c->nsubs].f = f;
    c->subs[c->nsubs].flags = 0;
    c->nsubs++;
    return CFR_OK;
}

/* 2b: when an item's two buckets hold this many copies of its fingerprint,
 * no eviction can make room for another. */
static size_t two_buckets(const cf_filter *f) {
    cf_stats st;
    cf_get_stats(f, &st);
    return 2 * (size_t)st.bucket_size;
}

/* Whether a failed insert shows the table full.  A failure of an item with
 * no copy in its buckets does.  One with copies (or colliding fingerprints)
 * there may be about those two buckets only, so it counts only once the
 * table is at least half as loaded as it is sized for. */
static bool really_full(const cf_filter *f, size_t copies) {
    if (copies == 0) return true;
    cf_stats st;
    cf_get_stats(f, &st);
    return st.load_factor >= 0.5 * cf_default_max_load(st.bucket_size);
}

/* Grows the chain and puts h in the new sub-filter. */
static cfr_result grow_and_insert(cfr_chain *c, const cfr_limits *lim, uint64_t h) {
    cfr_result r = chain_grow(c, lim);
    if (r != CFR_OK) return r;
    return cf_insert_hash(c->subs[c->nsubs - 1].f, h) == CF_OK ? CFR_OK : CFR_FULL;
}

cfr_result cfr_chain_insert(cfr_chain *c, const cfr_limits *lim, const void *item, size_t len,
                            bool nx) {
    uint64_t h = cf_hash(c->subs[0].f, item, len);
    if (nx) {
        for (uint32_t i = 0; i < c->nsubs; i++)
            if (cf_contains_hash(c->subs[i].f, h)) return CFR_EXISTS;
    }
    cfr_chain_touch(c);
    if (c->flags & CFR_CHAIN_EXHAUSTED) {
        /* The limits may have been raised since (a restart with other
         * module arguments): growing is the only way in, and cheap to try. */
        cfr_result r = grow_and_insert(c, lim, h);
        if (r == CFR_OK) c->flags &= ~(uint32_t)CFR_CHAIN_EXHAUSTED;
        return r;
    }
    bool room_failure = false, newest_tried = false;
    size_t max_copies = two_buckets(c->subs[0].f); /* every sub-filter has the same b */
    for (uint32_t i = c->nsubs; i-- > 0;) {
        cfr_sub *s = &c->subs[i];
        if (s->flags & CFR_SUB_FULL) {
            room_failure = true;
            continue;
        }
        size_t copies = cf_count_hash(s->f, h);
        if (copies >= max_copies) continue;
        newest_tried |= i == c->nsubs - 1;
        cf_status rc = cf_insert_hash(s->f, h);
        if (rc == CF_OK) return CFR_OK;
        if (rc == CF_E_FULL && really_full(s->f, copies)) {
            s->flags |= CFR_SUB_FULL;
            room_failure = true;
        }
    }
    /* Only copies of the item stand in the way: a new sub-filter takes more
     * (RedisBloom's behaviour; MAX_FILTERS and MAX_KEY_BYTES bound it). */
    if (!room_failure) return c->expansion == 0 ? CFR_FULL : grow_and_insert(c, lim, h);
    cfr_result r = grow_and_insert(c, lim, h);
    if (r == CFR_OK) return r;
    /* No growth possible (EXPANSION 0, the cap, the memory limit): a "full"
     * sub-filter may still have room in this item's buckets, so retry the
     * newest one -- at most one extra search per insert. */
    cf_filter *last = c->subs[c->nsubs - 1].f;
    if (!newest_tried && cf_count_hash(last, h) < max_copies && cf_insert_hash(last, h) == CF_OK)
        return CFR_OK;
    /* Every sub-filter is full and none can be added: refuse later inserts
     * without searching until a delete frees a slot. */
    c->flags |= CFR_CHAIN_EXHAUSTED;
    return r;
}

bool cfr_chain_contains(const cfr_chain *c, const void *item, size_t len) {
    uint64_t h = cf_hash(c->subs[0].f, item, len);
    for (uint32_t i = 0; i < c->nsubs; i++)
        if (cf_contains_hash(c->subs[i].f, h)) return true;
    return false;
}

uint64_t cfr_chain_count(const cfr_chain *c, const void *item, size_t len) {
    uint64_t h = cf_hash(c->subs[0].f, item, len);
    uint64_t n = 0;
    for (uint32_t i = 0; i < c->nsubs; i++) n += cf_count_hash(c->subs[i].f, h);
    return n;
}

bool cfr_chain_delete(cfr_chain *c, const void *item, size_t len) {
    uint64_t h = cf_hash(c->subs[0].f, item, len);
    for (uint32_t i = c->nsubs; i-- > 0;) {
        if (cf_delete_hash(c->subs[i].f, h) == CF_OK) {
            c->subs[i].flags &= ~(uint64_t)CFR_SUB_FULL;
            c->flags &= ~(uint32_t)CFR_CHAIN_EXHAUSTED;
            c->deleted++;
            cfr_chain_touch(c);
            return true;
        }
    }
    return false;
}

uint32_t cfr_chain_compact(cfr_chain *c) {
    uint32_t kept = 1, dropped = 0;
    for (uint32_t i = 1; i < c->nsubs; i++) {
        cf_stats st;
        cf_get_stats(c->subs[i].f, &st);
        if (st.items == 0) {
            cf_free(c->subs[i].f);
            dropped++;
        } else {
            c->subs[kept++] = c->subs[i];
        }
    }
    for (uint32_t i = kept; i < c->nsubs; i++) c->subs[i].f = NULL;
    c->nsubs = kept;
    if (dropped) {
        c->flags &= ~(uint32_t)CFR_CHAIN_EXHAUSTED; /* the chain may grow again */
        cfr_chain_touch(c);
    }
    return dropped;
}

void cfr_chain_info(const cfr_chain *c, cfr_info *out) {
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < c->nsubs; i++) {
        cf_stats st;
        cf_get_stats(c->subs[i].f, &st);
        out->table_bytes += st.table_bytes;
        out->buckets += st.num_buckets;
        out->items += st.items;
        out->bucket_size = st.bucket_size;
        out->fingerprint_bits = st.fingerprint_bits;
        out->max_kicks = st.max_kicks;
        out->fpp_bound += st.expected_fpp; /* a union bound: one probe per sub-filter */
    }
    out->memory_bytes = cfr_chain_memory(c);
}

/* ---- the dump stream ---- */

/* Header of a live chain, or of a loading one (what it expects in full). */
uint8_t *cfr_dump_header(const cfr_chain *c, size_t *len) {
    uint32_t n = c->loading ? c->load_nsubs : c->nsubs;
    size_t hl = cfr_dump_header_len(n);
    uint8_t *h = cfr_alloc(hl);
    uint64_t *lens = cfr_alloc(sizeof *lens * n), *flags = cfr_alloc(sizeof *flags * n);
    if (!h || !lens || !flags) {
        cfr_free(h);
        cfr_free(lens);
        cfr_free(flags);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        lens[i] = c->loading ? c->load_lens[i] : cf_serialized_size(c->subs[i].f);
        flags[i] = c->loading ? c->load_flags[i] : c->subs[i].flags;
    }
    cfr_dump_fields d = {n, c->expansion, c->flags, c->capacity, c->deleted, 0};
    cfr_dump_header_write(h, &d, lens, flags);
    cfr_free(lens);
    cfr_free(flags);
    *len = hl;
    return h;
}

uint64_t cfr_dump_body_len(const cfr_chain *c) {
    uint64_t n = 0;
    for (uint32_t i = 0; i < c->nsubs; i++) n += cf_serialized_size(c->subs[i].f);
    return n;
}

bool cfr_dump_body_range(const cfr_chain *c, uint64_t off, uint8_t *dst, size_t len) {
    uint64_t start = 0; /* body offset of sub-filter i */
    for (uint32_t i = 0; i < c->nsubs && len > 0; i++) {
        uint64_t sl = cf_serialized_size(c->subs[i].f);
        if (off < start + sl) {
            uint64_t in = off - start;
            size_t n = sl - in < len ? (size_t)(sl - in) : len;
            if (cf_serialize_range(c->subs[i].f, in, dst, n) != CF_OK) return false;
            dst += n;
            off += n;
            len -= n;
        }
        start += sl;
    }
    return len == 0;
}

uint8_t *cfr_dump_sub(const cfr_chain *c, uint32_t i, size_t *len) {
    size_t n = cf_serialized_size(c->subs[i].f);
    uint8_t *buf = cfr_alloc(n ? n : 1);
    if (!buf) return NULL;
    if (cf_serialize(c->subs[i].f, buf, n, len) != CF_OK) {
        cfr_free(buf);
        return NULL;
    }
    return buf;
}

cfr_result cfr_load_begin(const uint8_t *hdr, size_t len, const cfr_limits *lim, uint32_t gen,
                          cfr_chain **out) {
    *out = NULL;
    cfr_dump_fields d;
    /* A dump from a server configured with a larger MAX_FILTERS still loads,
     * up to the hard ceiling; the body must fit the key's memory limit. */
    if (!cfr_dump_header_read(hdr, len, lim->max_key_bytes, &d)) return CFR_BAD_HEADER;
    cfr_chain *c = chain_alloc(d.nsubs);
    if (!c) return CFR_NOMEM;
    c->loading = true;
    c->load_nsubs = d.nsubs;
    c->load_gen = gen & CFR_ITER_GEN_MASK;
    c->expansion = d.expansion;
    c->flags = d.flags;
    c->capacity = d.capacity;
    c->deleted = d.deleted;
    c->load_body_len = d.body_len;
    c->load_lens = cfr_alloc(sizeof(uint64_t) * d.nsubs);
    c->load_flags = cfr_alloc(sizeof(uint64_t) * d.nsubs);
    if (!c->load_lens || !c->load_flags) {
        cfr_chain_free(c);
        return CFR_NOMEM;
    }
    for (uint32_t i = 0; i < d.nsubs; i++) {
        c->load_lens[i] = cfr_dump_sub_len(hdr, i);
        c->load_flags[i] = cfr_dump_sub_flags(hdr, i);
    }
    *out = c;
    return CFR_OK;
}

/* Validates a complete sub-filter and appends it to the chain. */
static cfr_result load_finish_sub(cfr_chain *c, const uint8_t *buf, size_t len) {
    cf_filter *f = NULL;
    if (cf_deserialize(buf, len, &cfr_allocator, &f) != CF_OK) return CFR_BAD_CHUNK;
    cf_stats st;
    cf_get_stats(f, &st);
    bool ok = !st.read_only;
    if (ok && c->nsubs > 0) {
        /* One hash serves every sub-filter: they must agree on all that
         * turns a hash into buckets and fingerprints. */
        cf_stats first;
        cf_get_stats(c->subs[0].f, &first);
        ok = st.seed == first.seed && st.bucket_size == first.bucket_size &&
             st.fingerprint_bits == first.fingerprint_bits && st.flags == first.flags &&
             st.max_kicks == first.max_kicks;
    }
    if (!ok || c->nsubs >= c->cap_subs) {
        cf_free(f);
        return CFR_BAD_CHUNK;
    }
    c->subs[c->nsubs].f = f;
    c->subs[c->nsubs].flags = c->load_flags[c->nsubs];
    c->nsubs++;
    return CFR_OK;
}

cfr_result cfr_load_append(cfr_chain *c, const cfr_limits *lim, uint64_t at, const uint8_t *data,
                           size_t len) {
    (void)lim;
    if (!c->loading || at != c->load_received) return CFR_BAD_POSITION;
    if (len > c->load_body_len - c->load_received) return CFR_BAD_CHUNK;
    while (len > 0) {
        uint64_t want = c->load_lens[c->nsubs];
        size_t take = want - c->partial_len < len ? (size_t)(want - c->partial_len) : len;
        if (c->partial_len == 0 && take == want) {
            /* The whole sub-filter is in this chunk: no copy needed. */
            cfr_result r = load_finish_sub(c, data, take);
            if (r != CFR_OK) return r;
        } else {
            if (c->partial_len + take > c->partial_cap) {
                /* Grow with the bytes actually received, never to a size the
                 * header merely claims. */
                size_t cap = c->partial_cap ? c->partial_cap : 4096;
                while (cap < c->partial_len + take) cap *= 2;
                if (cap > want) cap = (size_t)want;
                uint8_t *p = cfr_alloc(cap);
                if (!p) return CFR_NOMEM;
                if (c->partial_len) memcpy(p, c->partial, c->partial_len);
                cfr_free(c->partial);
                c->partial = p;
                c->partial_cap = cap;
            }
            memcpy(c->partial + c->partial_len, data, take);
            c->partial_len += take;
            if (c->partial_len == want) {
                cfr_result r = load_finish_sub(c, c->partial, c->partial_len);
                cfr_free(c->partial);
                c->partial = NULL;
                c->partial_len = c->partial_cap = 0;
                if (r != CFR_OK) return r;
            }
        }
        data += take;
        len -= take;
        c->load_received += take;
    }
    if (c->nsubs == c->load_nsubs) load_state_free(c);
    return CFR_OK;
}

cfr_chain *cfr_chain_clone(const cfr_chain *c, const cfr_limits *lim) {
    size_t hl = 0;
    uint8_t *h = cfr_dump_header(c, &hl);
    if (!h) return NULL;
    cfr_chain *out = NULL;
    cfr_result r = cfr_load_begin(h, hl, lim, c->load_gen, &out);
    cfr_free(h);
    if (r != CFR_OK) return NULL;
    /* Through a bounded buffer: a copy never holds a second whole table. */
    uint64_t body = cfr_dump_body_len(c); /* the complete sub-filters */
    size_t cap = (size_t)(body < ((uint64_t)1 << 20) ? body : (uint64_t)1 << 20);
    uint8_t *buf = cfr_alloc(cap ? cap : 1);
    if (!buf) r = CFR_NOMEM;
    for (uint64_t at = 0; r == CFR_OK && at < body;) {
        size_t n = body - at < cap ? (size_t)(body - at) : cap;
        r = cfr_dump_body_range(c, at, buf, n) ? cfr_load_append(out, lim, at, buf, n) : CFR_NOMEM;
        at += n;
    }
    cfr_free(buf);
    if (r == CFR_OK && c->loading && c->partial_len)
        r = cfr_load_append(out, lim, body, c->partial, c->partial_len);
    if (r != CFR_OK) {
        cfr_chain_free(out);
        return NULL;
    }
    return out;
}
