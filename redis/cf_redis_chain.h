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
 * sub-filters' bytes plus the small header below), so a replica that replays
 * the same commands, or loads the same RDB, ends byte-identical.
 *
 * The dump stream (SCANDUMP, LOADCHUNK, RDB, AOF, COPY all use it) is a
 * header followed by each sub-filter in the library's file format:
 *
 *   offset  size  field
 *   0       8     magic "CFRDUMP\0"
 *   8       2     dump version (1)
 *   10      2     reserved, 0
 *   12      4     nsubs (1..max_filters)
 *   16      4     expansion (0 or a power of two <= 32768)
 *   20      4     reserved, 0
 *   24      8     requested capacity of the first sub-filter
 *   32      8     items deleted so far (CF.INFO)
 *   40      8     body length = sum of the sub-filter lengths
 *   48      16*n  per sub-filter: u64 serialized length, u64 flags (bit 0: full)
 *   48+16n  8     FNV-1a 64 of every byte before it
 * All integers little-endian.  Each sub-filter carries its own XXH3 checksum.
 */
#ifndef CF_REDIS_CHAIN_H
#define CF_REDIS_CHAIN_H

#include "cuckoofilter.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Hard ceiling on sub-filters per key: bounds every lookup to 2 * this many
 * bucket reads whatever the configuration says. */
#define CFR_MAX_FILTERS_LIMIT 1024
#define CFR_DEFAULT_MAX_FILTERS 32
#define CFR_DEFAULT_MAX_KEY_BYTES ((uint64_t)4 << 30)
#define CFR_DEFAULT_CHUNK_BYTES ((size_t)1 << 20)
#define CFR_DUMP_FIXED 48u
#define CFR_DUMP_PER_SUB 16u
#define CFR_SUB_FULL 1u

/* Module-wide limits, set once when the module loads. */
typedef struct cfr_limits {
    uint32_t max_filters;  /* sub-filters per key, 1..CFR_MAX_FILTERS_LIMIT */
    uint64_t max_key_bytes;/* memory one key may use; checked before allocating */
    size_t chunk_bytes;    /* largest SCANDUMP / AOF chunk */
} cfr_limits;

/* What CF.RESERVE (or auto-creation) asks for. */
typedef struct cfr_params {
    uint64_t capacity;
    unsigned bucket_size;      /* 1, 2, 4 or 8 */
    unsigned fingerprint_bits; /* 1..32 */
    unsigned max_kicks;        /* 1..65535 */
    uint32_t expansion;        /* 0 or a power of two */
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
    uint64_t capacity;
    uint64_t deleted;
    /* SCANDUMP's copy of the serialized body, so a dump in many chunks costs
     * O(size) in total; dropped by any write and at the end of a dump. */
    uint8_t *dump_cache;
    size_t dump_cache_len;
    /* LOADCHUNK in progress: the header has been accepted and sub-filters
     * arrive in order.  Other commands refuse a loading key. */
    bool loading;
    uint32_t load_nsubs;
    uint64_t *load_lens;   /* expected length of each sub-filter */
    uint64_t *load_flags;
    uint64_t load_body_len;
    uint64_t load_received;/* body bytes accepted so far */
    uint8_t *partial;      /* bytes of the sub-filter being received */
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
    double expected_fpp; /* union bound over sub-filters at their current loads */
} cfr_info;
void cfr_chain_info(const cfr_chain *c, cfr_info *out);
size_t cfr_chain_memory(const cfr_chain *c);

/* Invalidates SCANDUMP's cached bytes; every write calls it. */
void cfr_chain_touch(cfr_chain *c);

/* ---- the dump stream ---- */
size_t cfr_dump_header_len(uint32_t nsubs);
/* Writes the header of a live chain into a new buffer (cfr_free it). */
uint8_t *cfr_dump_header(const cfr_chain *c, size_t *len);
/* Serializes sub-filter i into a new buffer (cfr_free it), or NULL. */
uint8_t *cfr_dump_sub(const cfr_chain *c, uint32_t i, size_t *len);
/* Fills the SCANDUMP cache (the body) if it is missing; false on no memory. */
bool cfr_dump_cache_fill(cfr_chain *c);

/* Starts loading from a header: a new chain in the loading state. */
cfr_result cfr_load_begin(const uint8_t *hdr, size_t len, const cfr_limits *lim,
                          cfr_chain **out);
/* Appends body bytes at body offset `at` (must equal the bytes received so far). */
cfr_result cfr_load_append(cfr_chain *c, const cfr_limits *lim, uint64_t at, const uint8_t *data,
                           size_t len);
/* True when every sub-filter has arrived (the chain is live again). */
static inline bool cfr_load_done(const cfr_chain *c) { return !c->loading; }

/* A deep copy through the dump stream (COPY); NULL on failure. */
cfr_chain *cfr_chain_clone(const cfr_chain *c, const cfr_limits *lim);

#endif /* CF_REDIS_CHAIN_H */
