/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_chain.h -- what one Redis key holds: one cuckoo filter of the
 * library, grown by the library (CF_GROW) and steered by the module.
 *
 *   key ──► cfr_chain ──► cf_filter
 *                          chain keys (GROWTH CHAIN, the default): one
 *                            table until it must grow; then (EXPANSION
 *                            e > 0) CF_GROW with growth e: tables of nb,
 *                            nb*e, nb*e^2 ... buckets, each with fingerprints
 *                            wide enough that the sum of their FPPs stays
 *                            below the key's bound; a lookup probes each
 *                          in-place keys (GROWTH INPLACE): CF_GROW with
 *                            CF_GROWTH_INPLACE from creation: one table of
 *                            2^k buckets of 4 slots that doubles when full,
 *                            below the key's ERROR_RATE; a lookup reads two
 *                            buckets however often it doubled
 *                          EXPANSION 0: one table, never grows
 *                          expiring keys (EXPIRE): one table whose items
 *                            expire (cfg.expire_after, in milliseconds);
 *                            never grows, its expired slots are reused
 *
 * The module adds only what RedisBloom's clients expect on top of the
 * library's growth: a table for an item's copies (cf_grow_add_table), the
 * MAX_FILTERS cap and the MAX_KEY_BYTES limit (cf_grow_set_limits), the
 * "exhausted" mark, the deleted-items count, and CF.COMPACT (cf_grow_trim).
 * Everything is a pure function of the key's persisted state (the filter's
 * bytes plus the small header of its dump stream, cf_redis_dump.h), so a
 * replica that replays the same commands, or loads the same RDB, ends
 * byte-identical.
 */
#ifndef CF_REDIS_CHAIN_H
#define CF_REDIS_CHAIN_H

#include "cf_redis_dump.h"
#include "cuckoofilter.h"
#include "key/cf_redis_load.h"
#include "server/cf_redis_alloc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The library's table cap bounds every lookup to 2 * CF_MAX_TABLES bucket
 * reads whatever the configuration says. */
#define CFR_DEFAULT_MAX_FILTERS 32
#define CFR_DEFAULT_MAX_KEY_BYTES ((uint64_t)4 << 30)
/* MAX_KEY_BYTES may not exceed this: dump positions must fit an iterator's
 * 40 position bits (cf_redis_dump.h) with room for the headers. */
#define CFR_MAX_KEY_BYTES_LIMIT ((uint64_t)1 << 39)
#define CFR_DEFAULT_CHUNK_BYTES ((size_t)1 << 20)

/* Module-wide limits, set once when the module loads. */
typedef struct cfr_limits {
    uint32_t max_filters;   /* tables per key, 1..CF_MAX_TABLES */
    uint64_t max_key_bytes; /* table bytes one key may use (cfg.max_bytes) */
    size_t chunk_bytes;     /* largest SCANDUMP / AOF chunk and RDB piece */
} cfr_limits;

/* What CF.RESERVE (or auto-creation) asks for. */
typedef struct cfr_params {
    uint64_t capacity;
    unsigned bucket_size;      /* 1, 2, 4 or 8 */
    unsigned fingerprint_bits; /* 1..32: the first table's */
    unsigned max_kicks;        /* 1..65535 */
    uint32_t expansion;        /* 0 or a power of two */
    /* In-place growth (bucket_size 4, expansion > 0): fingerprint_bits is
     * then the slot width, 0 (derived), 16 or 32, and target_fpp the bound
     * the key's doublings keep (cf_config.target_fpp). */
    bool inplace;
    double target_fpp;
    /* Milliseconds an item lives (cf_config.expire_after); 0: never
     * expires.  An expiring key has expansion 0 (the library refuses
     * expiring + growing). */
    uint64_t expire_after;
} cfr_params;

typedef struct cfr_chain {
    cf_filter *f; /* NULL while loading */
    /* f's table count and bucket size, kept by the module so an insert
     * does not gather statistics (not persisted). */
    unsigned tables, bucket_size;
    bool inplace;  /* f grows in place (CF_GROWTH_INPLACE); its image says so */
    bool expiring; /* f's items expire (cf_stats.expire_after > 0); its image says so */
    /* 2 for an in-place key (it doubles, whatever EXPANSION > 0 asked). */
    uint32_t expansion;
    /* CFR_CHAIN_EXHAUSTED: an insert found the filter full and unable to
     * grow; later inserts are refused without a search until a delete (or
     * COMPACT) frees room.  Persisted. */
    uint32_t flags;
    uint64_t capacity;
    uint64_t deleted;
    /* Changes with every insert (refused ones too), delete and compaction
     * (not persisted): SCANDUMP tags its chunks with it, so a dump read
     * across a write is refused by LOADCHUNK. */
    uint32_t gen;
    /* A restore in progress (CF.LOADCHUNK, an RDB value, COPY): the dump
     * header has been accepted and images arrive in order; f is NULL
     * until the last one.  Other commands refuse a loading key. */
    cfr_loader *load;
} cfr_chain;

/* Creates a key's filter.  CFR_OK, CFR_NOMEM (limit or allocation); on
 * failure *err says why in a reply-ready string. */
cfr_result cfr_chain_new(const cfr_params *p, const cfr_limits *lim, cfr_chain **out,
                         const char **err);
void cfr_chain_free(cfr_chain *c);
/* CF.RESERVE's spelling of the options, for the library's explanations
 * (cf_config_explain). */
extern const cf_option_names cfr_option_names;
/* Whether an in-place key with p's width and target_fpp can be made
 * (cf_new's rules, asked of cf_config_explain on the smallest table); when
 * not, why (cap bytes of why): the library's sentence. */
bool cfr_inplace_check(const cfr_params *p, char *why, size_t cap);

cfr_result cfr_chain_insert(cfr_chain *c, const cfr_limits *lim, const void *item, size_t len,
                            bool nx);
/* cfr_chain_insert of n items by their hashes (cfr_chain_hash): out[i] the
 * result of the item whose hash is h[i], and the key as n cfr_chain_insert
 * calls in that order leave it (but for its generation, which moves once
 * per run of the batch).  Without NX, runs of items go through the
 * library's batch insert, which keeps many of their buckets' reads in
 * flight, and an item it refuses through cfr_chain_insert's path; with NX,
 * and for an in-place key or a full one, each item takes that path, after
 * a batch lookup has read all their buckets at once. */
void cfr_chain_insert_hashes(cfr_chain *c, const cfr_limits *lim, const uint64_t *h, size_t n,
                             bool nx, cfr_result *out);
/* True when a chain key is full at its sub-filter cap (marked exhausted,
 * with MAX_FILTERS tables): insert commands then answer "Maximum expansions
 * reached" before looking at any item, as RedisBloom does at its cap.  An
 * in-place key is never at a cap: marked exhausted, each insert still takes
 * a free slot of its own two buckets (O(1)). */
bool cfr_chain_at_cap(const cfr_chain *c, const cfr_limits *lim);
bool cfr_chain_contains(const cfr_chain *c, const void *item, size_t len);
/* The key's hash of an item, for cfr_chain_contains_hashes. */
uint64_t cfr_chain_hash(const cfr_chain *c, const void *item, size_t len);
/* found[i] = cfr_chain_contains of the item whose hash is h[i], for n
 * items at once: the library's batch, which keeps many of their buckets'
 * reads in flight. */
void cfr_chain_contains_hashes(const cfr_chain *c, const uint64_t *h, size_t n, bool *found);
uint64_t cfr_chain_count(const cfr_chain *c, const void *item, size_t len);
bool cfr_chain_delete(cfr_chain *c, const void *item, size_t len);
/* Drops the newest tables left empty by deletes (never the first).
 * Returns how many. */
uint32_t cfr_chain_compact(cfr_chain *c);

typedef struct cfr_info {
    uint64_t table_bytes, memory_bytes, buckets, items, doublings;
    unsigned tables, bucket_size, fingerprint_bits, max_kicks;
    double fpp_bound; /* cf_stats.fpp_bound: the FPP the key can reach */
    /* An expiring key's cf_stats fields (0 for the others). */
    uint64_t expire_after, expire_span, now;
    unsigned stamp_bits, stamps;
} cfr_info;
void cfr_chain_info(const cfr_chain *c, cfr_info *out);
size_t cfr_chain_memory(const cfr_chain *c);

/* An expiring key's clock, in the server's milliseconds.  Moves it to now
 * when now is in a later stamp span than the key's clock (cf_set_time then
 * removes what expired; within a span nothing a lookup or an insert sees
 * would change, so the clock stays, and a replica that is told only these
 * moves holds the same bytes).  Returns true when it moved: the caller
 * replicates the new clock (cfr_chain_info's now).  False for a key that
 * does not expire or a time not in a later span. */
bool cfr_clock_advance(cfr_chain *c, uint64_t now);
/* Sets an expiring key's clock to exactly t, as a master's replicated step
 * says.  CFR_OK; CFR_BAD_HEADER for a key that does not expire or a t
 * earlier than its clock (a clock never runs backwards; nothing changes). */
cfr_result cfr_clock_set(cfr_chain *c, uint64_t t);

/* Records a write: the key's generation changes (dumps in flight go stale). */
void cfr_chain_touch(cfr_chain *c);

/* ---- the dump stream (layout in cf_redis_dump.h) ---- */
/* Writes the header of a live key, or of a loading one (what it expects
 * in full), into a new buffer (cfr_free it). */
uint8_t *cfr_dump_header(const cfr_chain *c, size_t *len);
/* Body bytes of a live key (its filter's serialized size), or the complete
 * images of a loading one. */
uint64_t cfr_dump_body_len(const cfr_chain *c);
/* Copies body bytes [off, off + len) from the filter as it is now; false
 * if the range is outside the body. */
bool cfr_dump_body_range(const cfr_chain *c, uint64_t off, uint8_t *dst, size_t len);

/* Starts loading from a header: a new key in the loading state, whose
 * later chunks must carry generation gen. */
cfr_result cfr_load_begin(const uint8_t *hdr, size_t len, const cfr_limits *lim, uint32_t gen,
                          cfr_chain **out);
/* Appends body bytes at body offset `at` (must equal the bytes received so
 * far); the last one builds the key's filter. */
cfr_result cfr_load_append(cfr_chain *c, const cfr_limits *lim, uint64_t at, const uint8_t *data,
                           size_t len);
/* True when every image has arrived (the key is live again). */
static inline bool cfr_load_done(const cfr_chain *c) {
    return c->load == NULL;
}

/* A deep copy through the dump stream (COPY); NULL on failure. */
cfr_chain *cfr_chain_clone(const cfr_chain *c, const cfr_limits *lim);

#endif /* CF_REDIS_CHAIN_H */
