/*
 * cf_redis_chain.h -- what one Redis key holds: a chain of cuckoo filters.
 *
 * A key starts as one sub-filter sized for the requested capacity.  When an
 * insert finds every sub-filter really full (the library's bounded
 * breadth-first eviction found no free slot), a sub-filter of
 * last_buckets * expansion buckets is appended, up to a cap.  All sub-filters
 * share one seed, so an item is hashed once (cf_hash on the first) and every
 * later probe uses the *_hash calls.
 *
 *   key ──► cfr_chain ──► [ sub 0: nb ] [ sub 1: nb*e ] [ sub 2: nb*e^2 ] ...
 *                           oldest                           newest
 *
 * Everything here is a pure function of the chain's persisted state (the
 * sub-filters' bytes plus the small header of its dump stream,
 * cf_redis_dump.h), so a replica that replays the same commands, or loads
 * the same RDB, ends byte-identical.
 */
#ifndef CF_REDIS_CHAIN_H
#define CF_REDIS_CHAIN_H

#include "cf_redis_dump.h"
#include "cuckoofilter.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CFR_MAX_FILTERS_LIMIT (cf_redis_dump.h), the hard ceiling on sub-filters
 * per key, bounds every lookup to 2 * that many bucket reads whatever the
 * configuration says. */
#define CFR_DEFAULT_MAX_FILTERS 32
#define CFR_DEFAULT_MAX_KEY_BYTES ((uint64_t)4 << 30)
/* MAX_KEY_BYTES may not exceed this: dump positions must fit an iterator's
 * 40 position bits (cf_redis_dump.h) with room for the headers. */
#define CFR_MAX_KEY_BYTES_LIMIT ((uint64_t)1 << 39)
#define CFR_DEFAULT_CHUNK_BYTES ((size_t)1 << 20)

/* Module-wide limits, set once when the module loads. */
typedef struct cfr_limits {
    uint32_t max_filters;   /* sub-filters per key, 1..CFR_MAX_FILTERS_LIMIT */
    uint64_t max_key_bytes; /* memory one key may use; checked before allocating */
    size_t chunk_bytes;     /* largest SCANDUMP / AOF chunk */
} cfr_limits;

/* What CF.RESERVE (or auto-creation) asks for. */
typedef struct cfr_params {
    uint64_t capacity;
    unsigned bucket_size;      /* 1, 2, 4 or 8 */
    unsigned fingerprint_bits; /* 1..32 */
    unsigned max_kicks;        /* 1..65535 */
    uint32_t expansion;        /* 0 or a power of two */
    /* Internal to the chain: new keys use the module's seed and no flags;
     * a grown sub-filter copies its key's first one. */
    uint64_t seed;
    unsigned flags;
} cfr_params;

typedef struct cfr_sub {
    cf_filter *f;
    uint64_t flags; /* CFR_SUB_FULL: an insert found no room; cleared by a delete */
} cfr_sub;

typedef struct cfr_chain {
    cfr_sub *subs;
    uint32_t nsubs;
    uint32_t cap_subs;
    uint32_t expansion;
    /* CFR_CHAIN_EXHAUSTED: an insert found every sub-filter full and the
     * chain unable to grow; later inserts are refused without a search until
     * a delete (or COMPACT) frees room.  Persisted. */
    uint32_t flags;
    uint64_t capacity;
    uint64_t deleted;
    /* Changes with every insert (refused ones too), delete and compaction
     * (not persisted): SCANDUMP tags its chunks with it, so a dump read
     * across a write is refused by LOADCHUNK. */
    uint32_t gen;
    /* LOADCHUNK in progress: the header has been accepted and sub-filters
     * arrive in order.  Other commands refuse a loading key. */
    bool loading;
    uint32_t load_nsubs;
    uint32_t load_gen;   /* generation the header chunk was tagged with */
    uint64_t *load_lens; /* expected length of each sub-filter */
    uint64_t *load_flags;
    uint64_t load_body_len;
    uint64_t load_received; /* body bytes accepted so far */
    uint8_t *partial;       /* bytes of the sub-filter being received */
    size_t partial_len;
    size_t partial_cap;
} cfr_chain;

typedef enum cfr_result {
    CFR_OK = 0,
    CFR_EXISTS,       /* NX insert: may already be present */
    CFR_FULL,         /* no room and the chain may not (or need not) grow */
    CFR_MAX_FILTERS,  /* growth refused: the sub-filter cap is reached */
    CFR_NOMEM,        /* growth refused: allocation failed or the key limit */
    CFR_BAD_POSITION, /* LOADCHUNK out of order */
    CFR_STALE,        /* LOADCHUNK: chunks of two generations (a write mid-dump) */
    CFR_BAD_HEADER,   /* LOADCHUNK / RDB header invalid */
    CFR_BAD_CHUNK     /* a sub-filter failed validation */
} cfr_result;

/* The allocator every filter and chain uses (the Redis module allocator). */
extern const cf_allocator cfr_allocator;
void *cfr_alloc(size_t n);
void cfr_free(void *p);
/* For sanitizer runs only: allocate with libc malloc instead of Redis's. */
void cfr_use_libc_malloc(bool on);

/* Creates a chain with one sub-filter.  CFR_OK, CFR_NOMEM (limit or
 * allocation); on failure *err says why in a reply-ready string. */
cfr_result cfr_chain_new(const cfr_params *p, const cfr_limits *lim, cfr_chain **out,
                         const char **err);
void cfr_chain_free(cfr_chain *c);

cfr_result cfr_chain_insert(cfr_chain *c, const cfr_limits *lim, const void *item, size_t len,
                            bool nx);
bool cfr_chain_contains(const cfr_chain *c, const void *item, size_t len);
uint64_t cfr_chain_count(const cfr_chain *c, const void *item, size_t len);
bool cfr_chain_delete(cfr_chain *c, const void *item, size_t len);
/* Drops sub-filters left empty by deletes (never the first).  Returns how many. */
uint32_t cfr_chain_compact(cfr_chain *c);

typedef struct cfr_info {
    uint64_t table_bytes, memory_bytes, buckets, items;
    unsigned bucket_size, fingerprint_bits, max_kicks;
    /* The sum over sub-filters of their FPP at their current load: a bound
     * on the chance that a lookup of an absent item answers 1. */
    double fpp_bound;
} cfr_info;
void cfr_chain_info(const cfr_chain *c, cfr_info *out);
size_t cfr_chain_memory(const cfr_chain *c);

/* Records a write: the key's generation changes (dumps in flight go stale). */
void cfr_chain_touch(cfr_chain *c);

/* ---- the dump stream (layout in cf_redis_dump.h) ---- */
/* Writes the header of a live chain, or of a loading one (what it expects
 * in full), into a new buffer (cfr_free it). */
uint8_t *cfr_dump_header(const cfr_chain *c, size_t *len);
/* Body bytes of a live chain: the sum of its sub-filters' serialized sizes. */
uint64_t cfr_dump_body_len(const cfr_chain *c);
/* Copies body bytes [off, off + len) of a live chain from its tables as
 * they are now; false if the range is outside the body. */
bool cfr_dump_body_range(const cfr_chain *c, uint64_t off, uint8_t *dst, size_t len);
/* Serializes sub-filter i into a new buffer (cfr_free it), or NULL. */
uint8_t *cfr_dump_sub(const cfr_chain *c, uint32_t i, size_t *len);

/* Starts loading from a header: a new chain in the loading state, whose
 * later chunks must carry generation gen. */
cfr_result cfr_load_begin(const uint8_t *hdr, size_t len, const cfr_limits *lim, uint32_t gen,
                          cfr_chain **out);
/* Appends body bytes at body offset `at` (must equal the bytes received so far). */
cfr_result cfr_load_append(cfr_chain *c, const cfr_limits *lim, uint64_t at, const uint8_t *data,
                           size_t len);
/* True when every sub-filter has arrived (the chain is live again). */
static inline bool cfr_load_done(const cfr_chain *c) {
    return !c->loading;
}

/* A deep copy through the dump stream (COPY); NULL on failure. */
cfr_chain *cfr_chain_clone(const cfr_chain *c, const cfr_limits *lim);

#endif /* CF_REDIS_CHAIN_H */
