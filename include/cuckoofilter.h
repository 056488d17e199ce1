/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cuckoofilter.h -- the one public header of libcuckoofilter.
 *
 * A cuckoo filter answers "have I seen x?" with no false negatives and a
 * tunable false-positive probability (FPP), like a Bloom filter, but it can
 * also delete items, and a lookup reads at most two buckets.  Each item is
 * stored as an f-bit fingerprint in one of two candidate buckets of b slots:
 *
 *     h  = XXH3-64(key, seed)
 *     fp = nonzero f-bit value taken from the low 32 bits of h
 *     i1 = range(h, nb)                      (multiply-high, any nb >= 1)
 *     i2 = alt(i1, fp) = (c(fp) - i1) mod nb (an involution: alt(i2) == i1)
 *
 * c(fp) is a point of the table chosen by a nonlinear mix of the
 * fingerprint alone (two multiplications and an xor-shift), so an item
 * moves to its other bucket without its key, any nb works, and narrow
 * fingerprints still fill the table; docs/FORMAT.md gives the exact
 * function (hash_id 2), which is part of the file format.  Files written
 * before version 0.2 (hash_id 1, a purely multiplicative c) still load and
 * keep their own map.
 *
 * Guarantees (checked by the test suite):
 *   1. No false negatives: an item inserted and not deleted is always found,
 *      also after an insert that failed because the filter was full.
 *   2. A failed insert (CF_E_FULL) leaves the table and the items unchanged
 *      (only the failed_inserts statistic counts it): the eviction path is
 *      found first (breadth-first, bounded by max_kicks) and only then moved.
 *   3. The same item can be stored up to 2b times; cf_count() is an upper
 *      bound on the copies stored (fingerprint collisions add to it).
 *   4. Determinism: same configuration and seed, same operations in the same
 *      order => byte-identical table.
 *   5. FPP at load a is about 1 - (1 - 1/(2^f - 1))^(2ba) <= 2b/2^f.
 *
 * CF_GROW filters are chains of such tables (inserts add a table when the
 * newest is full); guarantees 1, 2, 4 and the FPP bound (target_fpp, for
 * the whole chain) hold for them, 3 with cf_delete's rule for them.  With
 * cfg.growth_mode = CF_GROWTH_INPLACE a CF_GROW filter is instead one
 * table that doubles in place (lookups stay at two buckets); guarantees 1,
 * 3, 4 and the bound hold, and 2 with one exception (cf_insert).
 *
 * Threads: a plain filter may be read from many threads at once (cf_contains
 * and friends are const and allocate nothing); writes need external locking.
 * A filter created with CF_CONCURRENT in cfg.flags (or made so by
 * cf_make_concurrent) needs no lock of the caller's: cf_insert,
 * cf_insert_unique, cf_delete, cf_contains, cf_count, their _hash forms,
 * cf_insert_batch, cf_contains_batch, cf_get_stats, cf_memory_usage,
 * cf_serialize, cf_save and cf_clear may run at the same time on it from
 * any number of threads (only cf_free must come after all of them).  Then:
 *   - Lookups take no lock and never return a false negative: an item
 *     inserted before the lookup began and not deleted is found, also while
 *     evictions move fingerprints.  A lookup reads again when an eviction
 *     moved a fingerprint in one of its two stripes meanwhile, and waits
 *     while a move is under way there (two stores; longer only if the
 *     moving thread is preempted).
 *   - Writers lock stripes of consecutive buckets (at most 4096 stripes,
 *     costing at most 1% of the table; one stripe on tiny tables), one
 *     stripe per plain insert, two per delete, two or three per eviction
 *     move, always in ascending order.  A failed insert stores nothing and
 *     loses no item (moves it made before other writers made its path
 *     stale only put items in their other bucket).
 *   - cf_insert_unique checks and inserts in one step, under the locks of
 *     both of the key's buckets: of several threads calling it with the
 *     same key, at most one gets CF_OK.
 *   - cf_get_stats, cf_serialize, cf_save and cf_clear lock every stripe,
 *     in order, and see one consistent table (writers wait meanwhile,
 *     during cf_save until the file is written and synced; lookups do not
 *     wait).  Counters are exact when no writer is running.
 *   - Guarantee 4 (determinism) holds for one thread: a concurrent filter
 *     used by one thread makes the same table as a plain one.
 *   - The allocator must be thread-safe when max_kicks exceeds 62 (an
 *     eviction search that visits more buckets allocates its own scratch)
 *     and return memory aligned for uint64_t (malloc's is; else cf_new
 *     returns CF_E_PARAM).
 *   - Stack: an insert (plain or concurrent) uses about 1 KiB of the
 *     calling thread's stack for its eviction search, and a few hundred
 *     bytes besides; every call works on threads with 16 KiB stacks
 *     (PTHREAD_STACK_MIN; the test suite runs them there).
 * Processes: a file is replaced by rename on every save, never modified in
 * place, so any number of readers (cf_load, cf_map) may run beside writers;
 * writers that read, change and save a file take its lock (cf_file_lock_acquire)
 * so that none loses another's changes.
 *
 * Every function that can fail returns a cf_status; questions that cannot
 * fail return plain values.  The library never prints and never uses errno.
 */
#ifndef CUCKOOFILTER_H
#define CUCKOOFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The project's version; CMake's project(VERSION) must say the same
 * (checked when configuring, cmake/CheckHeaderVersion.cmake). */
#define CF_VERSION_MAJOR 1
#define CF_VERSION_MINOR 0
#define CF_VERSION_PATCH 0
#define CF_VERSION_STRING "1.0.0"

/* Exported symbols: the library is built with -fvisibility=hidden.  It
 * needs GCC or Clang on a POSIX system (docs/C-API.md, "Requirements"). */
#if defined(__GNUC__)
#define CF_API __attribute__((visibility("default")))
#define CF_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define CF_API
#define CF_DEPRECATED(msg)
#endif

/* ------------------------------------------------------------------------
 * Status codes.  One table generates the enum, the names and the messages;
 * success is 0 and every failure is negative.
 * ---------------------------------------------------------------------- */
#define CF_STATUS_TABLE(X)                                                               \
    X(CF_OK, 0, "success")                                                               \
    X(CF_E_FULL, -1, "filter is full; nothing was changed")                              \
    X(CF_E_NOT_FOUND, -2, "item not found")                                              \
    X(CF_E_EXISTS, -3, "item already present")                                           \
    X(CF_E_PARAM, -4, "invalid argument")                                                \
    X(CF_E_NOMEM, -5, "out of memory")                                                   \
    X(CF_E_IO, -6, "input/output error")                                                 \
    X(CF_E_CORRUPT, -7, "inconsistent parameters or contents in serialized filter")      \
    X(CF_E_VERSION, -8, "unsupported format version")                                    \
    X(CF_E_TRUNCATED, -9, "serialized filter is truncated")                              \
    X(CF_E_MAGIC, -10, "not a cuckoo filter (bad magic number)")                         \
    X(CF_E_CHECKSUM, -11, "checksum mismatch")                                           \
    X(CF_E_TOO_LARGE, -12, "size overflows or exceeds what this machine can address")    \
    X(CF_E_READONLY, -13, "filter is read-only")                                         \
    X(CF_E_NOT_REGULAR, -14, "not a regular file (a directory, FIFO, device or socket)") \
    X(CF_E_LOCKED, -15, "file is locked by another writer")                              \
    X(CF_E_TRAILING, -16, "trailing bytes after the filter")                             \
    X(CF_E_INVAL, -17, "not valid in the filter's state (a clock set backwards)")

typedef enum cf_status {
#define CF_STATUS_ENUM_(name, value, msg) name = value,
    CF_STATUS_TABLE(CF_STATUS_ENUM_)
#undef CF_STATUS_ENUM_
} cf_status;

/* A static English message for s; never NULL (unknown codes get a generic one). */
CF_API const char *cf_strerror(cf_status s);

/* The symbolic name of s ("CF_E_FULL"); never NULL. */
CF_API const char *cf_status_name(cf_status s);

/* The version of the library actually linked, e.g. "0.1.0". */
CF_API const char *cf_version_string(void);

/* ------------------------------------------------------------------------
 * Memory.  Every allocation of a filter goes through its allocator, so an
 * embedding program (a Redis module, a test injecting failures) sees all of
 * it.  NULL means malloc/free/calloc.  alloc returns NULL on failure;
 * free(NULL) must not be called by the library.
 *
 * calloc (optional, may be NULL) returns size zeroed bytes, or NULL on
 * failure, to be released with free.  cf_new takes the bucket table from it
 * when present (else alloc + memset).  A calloc that maps fresh pages
 * (glibc's and jemalloc's do for large sizes) makes creating a filter of any
 * size O(1): the kernel zeroes each page on its first touch, so the cost
 * moves to the inserts (and reads) that first reach each 4 KiB page, and
 * the memory is counted by the allocator at once but resident only as pages
 * are touched.
 *
 * realloc (optional, may be NULL) resizes the block ptr of old_size bytes
 * to new_size > old_size bytes, keeping its contents, and returns it (moved
 * or not), or NULL on failure with ptr untouched.  A CF_GROWTH_INPLACE
 * filter's doubling grows its table with it, so the old table and the new
 * one need not exist side by side (glibc's realloc, the default, moves a
 * large block with mremap); without it a doubling allocates the new table,
 * copies and frees the old one: 1.5 times the new table for that moment.
 * ---------------------------------------------------------------------- */
typedef struct cf_allocator {
    void *(*alloc)(void *ctx, size_t size);
    void (*free)(void *ctx, void *ptr);
    void *ctx;
    void *(*calloc)(void *ctx, size_t size);
    void *(*realloc)(void *ctx, void *ptr, size_t old_size, size_t new_size);
} cf_allocator;

/* The filter: an opaque handle, created by cf_new, cf_deserialize, cf_load
 * or cf_map and released by cf_free. */
typedef struct cf_filter cf_filter;

/* ------------------------------------------------------------------------
 * Configuration.
 * ---------------------------------------------------------------------- */

/* Limits of the parameters. */
#define CF_MIN_FINGERPRINT_BITS 1
#define CF_MAX_FINGERPRINT_BITS 32
#define CF_MAX_BUCKET_SIZE 8 /* bucket_size is one of 1, 2, 4, 8 */
#define CF_DEFAULT_BUCKET_SIZE 4
#define CF_DEFAULT_MAX_KICKS 500
#define CF_MAX_KICKS_LIMIT 65535
#define CF_DEFAULT_TARGET_FPP 0.001

/* cf_config.flags, a set of cf_flag values (the three comments below, in
 * the enum's order).
 * CF_SEMI_SORT -- semi-sorted buckets: with bucket_size 4 and 5..16-bit fingerprints, each
 * bucket stores its four fingerprints sorted, their 4-bit prefixes as one
 * 12-bit code: one bit less per item at the same false-positive rate, for a
 * little more work per lookup. */
/* CF_CONCURRENT -- thread-safe: every function may be called on the filter from any number
 * of threads at once, with no lock of the caller's (see "Threads" at the
 * top).  Combines with no other flag (CF_E_PARAM).  Not stored in files:
 * cf_serialize and cf_save write a plain filter, and loaded ones are plain
 * (cf_make_concurrent makes one thread-safe again). */
/* CF_GROW -- growth: when an insert finds no room in the newest table, a new table of
 * `growth` times as many buckets is added (up to CF_MAX_TABLES tables and
 * max_bytes of tables), so inserts fail only at those limits.  Every
 * table's fingerprints are wide enough that the sum of all tables' FPPs
 * stays under target_fpp, however many are added: table k's FPP at full
 * load is at most a quarter of what the earlier tables left of the target
 * (target * 3^k / 4^(k+1) when each used its whole share; docs/GROWTH.md).
 * capacity (or num_buckets) and
 * fingerprint_bits describe the first table; CF_SEMI_SORT applies to every
 * table whose width allows it (5..16 bits).  Not combinable with
 * CF_CONCURRENT (CF_E_PARAM). */
typedef enum cf_flag { CF_SEMI_SORT = 1u << 0, CF_CONCURRENT = 1u << 1, CF_GROW = 1u << 2 } cf_flag;
/* Each constant that was a macro before 1.0 is still one, naming itself
 * (glibc's idiom), so that `#ifdef CF_GROW` keeps telling programs which
 * features the header has. */
#define CF_SEMI_SORT CF_SEMI_SORT
#define CF_CONCURRENT CF_CONCURRENT
#define CF_GROW CF_GROW
/* cf_config.growth_mode: how a CF_GROW filter grows.
 * CF_GROWTH_CHAIN (the default, and what every file and Redis key written
 * before it holds): a chain of tables; a lookup probes every table.
 * CF_GROWTH_INPLACE: one table of 2^k buckets of four fixed-width slots
 * that doubles in place when an insert finds no room; a lookup reads two
 * buckets however often it doubled.  Each slot holds a variable-length
 * fingerprint (a marker bit ends it), and each doubling moves one bit of
 * every stored fingerprint into the bucket index, so old items keep
 * shorter fingerprints and new ones full ones (design and FPP arithmetic:
 * docs/GROWTH.md, and docs/ARCHITECTURE.md).  Slots are 15 bits when target_fpp allows
 * twenty doublings within it (target_fpp >= 0.54%), 16 when it does with 16
 * (>= 0.27%), else 32 bits; an insert whose doubling could take the FPP at
 * full load past target_fpp returns CF_E_FULL (with 15-bit slots at 1%,
 * after about 38 doublings).  Memory:
 * one table, between a half and all of it used; a doubling grows it with
 * the allocator's realloc (realloc(3) by default: large blocks move by
 * mremap, no copy, no second table), while an allocator without one gets
 * the doubled table allocated before the old one is freed (1.5 times the
 * new table for a moment).  Bucket size 4 only; no CF_SEMI_SORT; files are
 * format version 4 (cf_serialize, cf_serialize_range); cf_grow_set_limits
 * sets its max_bytes; cf_merge takes another in-place filter (below); the
 * other cf_grow_* return CF_E_PARAM.  The
 * Redis module uses it for keys created with GROWTH INPLACE (docs/REDIS.md).
 * Chosen per filter; the default stays CF_GROWTH_CHAIN (RedisBloom's
 * growth; format version 2, which every reader of grown files knows). */
typedef enum cf_growth_mode { CF_GROWTH_CHAIN = 0, CF_GROWTH_INPLACE = 1 } cf_growth_mode;
#define CF_GROWTH_CHAIN CF_GROWTH_CHAIN
#define CF_GROWTH_INPLACE CF_GROWTH_INPLACE
/* cf_stats.growth_limit: what stops a CF_GROW filter from growing now,
 * which is why an insert it has no room for returns CF_E_FULL.  (Its other
 * reasons: one key's copies filling its buckets, which cf_count shows;
 * and, in place, a key still without room after the one doubling an
 * insert may make, a knot of a tiny table: growth_limit stays OPEN.)  A
 * mapped filter reports what would stop it were it writable.
 * CF_GROWTH_OPEN: it can grow (and every filter without CF_GROW).
 * CF_GROWTH_LIMIT_BYTES: the tables with the next one (chain), or the
 * doubled table (in place), would pass max_bytes.
 * CF_GROWTH_LIMIT_TABLES: a chain holds max_tables (cf_grow_set_limits)
 * or CF_MAX_TABLES tables.
 * CF_GROWTH_LIMIT_FPP: target_fpp: a chain has too little of it left for a
 * table of 32-bit fingerprints, or an in-place table, doubled and then
 * filled, could pass it (a larger target_fpp or wider slots move it).
 * CF_GROWTH_LIMIT_SIZE: the next size is past what the library addresses
 * (an in-place table of 2^(65 - W) buckets; a chain's next table past
 * PTRDIFF_MAX / 2 bytes). */
typedef enum cf_growth_limit {
    CF_GROWTH_OPEN = 0,
    CF_GROWTH_LIMIT_BYTES = 1,
    CF_GROWTH_LIMIT_TABLES = 2,
    CF_GROWTH_LIMIT_FPP = 3,
    CF_GROWTH_LIMIT_SIZE = 4
} cf_growth_limit;
#define CF_GROWTH_OPEN CF_GROWTH_OPEN
#define CF_GROWTH_LIMIT_BYTES CF_GROWTH_LIMIT_BYTES
#define CF_GROWTH_LIMIT_TABLES CF_GROWTH_LIMIT_TABLES
#define CF_GROWTH_LIMIT_FPP CF_GROWTH_LIMIT_FPP
#define CF_GROWTH_LIMIT_SIZE CF_GROWTH_LIMIT_SIZE
/* The most tables a CF_GROW filter holds (lookups probe each one). */
#define CF_MAX_TABLES 64
#define CF_DEFAULT_GROWTH 2
#define CF_MAX_GROWTH 65536

typedef struct cf_config {
    /* Items the filter must hold.  Required (> 0) unless num_buckets is set. */
    uint64_t capacity;
    /* False-positive probability wanted at full load, in (0, 1).  Used to
     * choose fingerprint_bits when that is 0.  Default CF_DEFAULT_TARGET_FPP. */
    double target_fpp;
    /* 0 = derive from target_fpp as ceil(log2(2b / target_fpp)), raised if
     * needed to the width the table needs to reach max_load (docs/C-API.md,
     * "Sizing"); else 1..32.
     * The stored width is one bit less with CF_SEMI_SORT (the FPP is that
     * of this width). */
    unsigned fingerprint_bits;
    /* Slots per bucket: 1, 2, 4 or 8; 0 = CF_DEFAULT_BUCKET_SIZE. */
    unsigned bucket_size;
    /* Eviction budget per insert: the number of buckets the breadth-first
     * search for a free slot may visit, 1..CF_MAX_KICKS_LIMIT.  Bounds insert
     * latency at high load; 0 = CF_DEFAULT_MAX_KICKS.  A search that
     * visits more than 62 buckets allocates 16 bytes per step of the budget
     * through the filter's allocator and frees them before the insert
     * returns (smaller ones use 1 KiB of stack): no memory stays with the
     * filter. */
    unsigned max_kicks;
    /* Load factor used for sizing from capacity; 0 = the default for the
     * bucket size (cf_default_max_load), else in (0, 1]. */
    double max_load;
    /* 0 = derive from capacity as ceil(capacity / (bucket_size * max_load));
     * else exactly this many buckets (any value >= 1, not only powers of two). */
    uint64_t num_buckets;
    /* Hash seed.  Same seed, same operations => same bytes.  Stored in files. */
    uint64_t seed;
    /* cf_flag values or'ed: CF_SEMI_SORT, CF_GROW, CF_CONCURRENT, or 0. */
    unsigned flags;
    /* NULL = malloc/free.  The pointed-to struct is copied by cf_new. */
    const cf_allocator *allocator;
    /* CF_GROW only: each new table has `growth` times the buckets of the
     * previous one, 1..CF_MAX_GROWTH (1 = equal tables, as RedisBloom's
     * EXPANSION 1); 0 = CF_DEFAULT_GROWTH. */
    unsigned growth;
    /* CF_GROW only: the most bytes all tables together may take (the sum of
     * cf_stats.table_bytes); an insert that would need a table past it
     * returns CF_E_FULL and changes nothing.  0 = no limit. */
    uint64_t max_bytes;
    /* CF_GROW only: a cf_growth_mode, CF_GROWTH_CHAIN (0, the default) or
     * CF_GROWTH_INPLACE.
     * With CF_GROWTH_INPLACE, capacity (or num_buckets) is rounded up to a
     * power of two of buckets, fingerprint_bits is 0 (derived) or the slot
     * width, 15, 16 or 32, growth is ignored, and max_bytes limits the table.
     * Any other value: CF_E_PARAM. */
    unsigned growth_mode;
    /* Items that expire: each item is forgotten about expire_after time
     * units after it was written, in the caller's units of the clock that
     * cf_set_time sets (seconds, milliseconds, ...).  0 = never (every
     * other kind).  Makes an expiring filter ("Kinds of filter" below):
     * fingerprint_bits (or the width target_fpp derives) is the
     * fingerprint, and each slot adds a stamp of a few bits.  Not with
     * CF_GROW, CF_CONCURRENT or CF_SEMI_SORT (CF_E_PARAM). */
    uint64_t expire_after;
} cf_config;

/* Fills cfg with the defaults: capacity 0, target_fpp CF_DEFAULT_TARGET_FPP,
 * derived fingerprint bits and buckets, bucket size 4, max_kicks 500,
 * default max_load, seed 0, malloc/free, growth CF_DEFAULT_GROWTH, no
 * max_bytes.  cfg must not be NULL. */
CF_API void cf_config_init(cf_config *cfg);

/* The load factor that inserts reliably reach for bucket size b with the
 * default max_kicks (measured; docs/C-API.md, "Sizing"): b=1: 0.40, b=2: 0.84, b=4: 0.95,
 * b=8: 0.98.  Returns 0 for an unsupported b. */
CF_API double cf_default_max_load(unsigned bucket_size);

/* What a configuration resolves to: the filter cf_new would build from it,
 * computed without allocating, so a program can size, budget or describe a
 * filter (a memory limit, a width for a target FPP) without repeating the
 * library's formulas. */
typedef struct cf_shape {
    uint64_t num_buckets;      /* nb                                              */
    uint64_t slots;            /* nb * bucket_size                                */
    unsigned bucket_size;      /* b                                               */
    unsigned fingerprint_bits; /* f, given or derived (see cf_config)             */
    unsigned bits_per_slot;    /* f, or f - 1 when semi-sorted                    */
    unsigned max_kicks;        /* eviction budget per insert                      */
    unsigned flags;            /* cf_config.flags                                 */
    double max_load;           /* cfg->max_load, or cf_default_max_load(b)        */
    double fpp_at_max_load;    /* cf_theoretical_fpp(f, b, max_load)              */
    size_t table_bytes;        /* the new filter's cf_stats.table_bytes           */
    size_t serialized_size;    /* its cf_serialized_size                          */
} cf_shape;

/* Resolves cfg exactly as cf_new does (defaults, derived width and bucket
 * count, every check) and describes the result in *out, allocating nothing.
 * It describes single tables: configurations with CF_GROW or CF_CONCURRENT
 * return CF_E_PARAM (create the filter and ask cf_get_stats or
 * cf_table_stats).  Otherwise it returns CF_OK exactly when cf_new(cfg)
 * would succeed given the memory, else the status cf_new would return:
 * CF_E_PARAM (also for a NULL argument) or CF_E_TOO_LARGE.  On failure *out
 * (when not NULL) is zeroed. */
CF_API cf_status cf_config_resolve(const cf_config *cfg, cf_shape *out);

/* ------------------------------------------------------------------------
 * Kinds of filter.  A filter is one of five kinds, chosen by cf_config
 * when it is made (or by cf_make_growable / cf_make_concurrent later); the
 * functions below take every kind, and where a kind behaves differently,
 * it is said here once rather than in each function.
 *
 *   kind        made with                  lookups read   memory          files
 *   plain       (default)                  2 buckets      one table       version 1
 *   chain       CF_GROW                    2 per table    tables added,   version 2
 *                                                         x growth each
 *   in place    CF_GROW +                  2 buckets      one table,      version 4
 *               CF_GROWTH_INPLACE                         doubled
 *   concurrent  CF_CONCURRENT              2 buckets      one table +     version 1
 *                                                         lock stripes    (as plain)
 *   expiring    cfg.expire_after > 0       2 buckets      one table, a    version 7
 *                                                         stamp per slot
 *
 * What only some kinds take (the others return CF_E_PARAM):
 *   cf_merge            plain, chain, in place, expiring (two of one kind)
 *   cf_serialize_range  plain, chain, in place, expiring
 *   cf_set_time         expiring
 *   cf_grow_*           chain (cf_grow_set_limits: in place too)
 *   cf_make_concurrent  plain (not semi-sorted, not mapped)
 *   cf_make_growable    plain
 *   cf_view_init        plain (cuckoofilter_inline.h)
 *   inspection calls    plain (CF_EXPERIMENTAL_API, below)
 * CF_SEMI_SORT combines with plain and chain; CF_CONCURRENT with nothing;
 * expire_after with none of the flags.
 *
 * Expiring (cfg.expire_after > 0): every slot holds the item's fingerprint
 * and a stamp of s bits, the stamp span (the clock's time, cf_set_time,
 * divided by span = ceil(expire_after / k), modulo 2^s) in which it was
 * written; k = min(2^s - 1, expire_after) stamps make a window.  s is the
 * largest of 4, 3, 2, 1 whose slot (f + s bits) costs at most 1.35 times
 * the fingerprint's f bits (s = 4 from f = 12, 3 from 9, 2 from 6), but 3
 * where only that makes a bucket one 64-bit word (f = 13 in buckets of
 * four); f is at most 28.  The table has room for the items written in
 * k + 1 spans (an item lives up to that long), so at equal target_fpp it
 * takes (f + s) / f * (k + 1) / k times a plain filter's memory per item
 * written in a window: 1.41 at the default target (16/13 * 8/7).  An item written at time t is found at every time
 * before t + expire_after (no false negatives), and from t + (k + 1) *
 * span on it is gone (k * span is expire_after rounded up to a multiple
 * of k): cf_set_time removes it.  Lookups compare fingerprints only, and
 * the FPP is a plain table's of f-bit fingerprints over the live items.
 * cf_insert stores a copy stamped now, as for the other kinds;
 * cf_insert_unique of an item already present stores nothing, stamps
 * every entry matching it now (a refresh: it lives a window from now) and
 * returns CF_E_EXISTS.  cf_delete removes one copy: of the entries that
 * match it, the oldest, so that an item whose fingerprint collides keeps
 * its own window.  cf_merge
 * takes another expiring filter of the same shape, expire_after and clock
 * (CF_E_PARAM otherwise: set both clocks alike first).  Nothing else
 * differs: a filter sized for the items alive in one window never fills
 * however long the stream, since expired items leave their slots (at the
 * rate it was sized for, capacity items per window; the table keeps room
 * for the peak it reaches once a tick, more of it in small tables, so the
 * resolved max_load is below the bucket size's default; with buckets of 1,
 * and rarely 2 in small tables, a stream can still fill it).
 *
 * Inserting (cf_insert and its _hash, _u64, _unique and _batch forms):
 * chain: the key goes to the newest table; when that has no room a table
 * is added and the key goes there.  CF_E_FULL only when the new table would
 * pass max_bytes, CF_MAX_TABLES (or cf_grow_set_limits' cap) or 32-bit
 * fingerprints, or when the key's own copies fill both its buckets in the
 * newest table (2b copies: tables are added for want of room, never for one
 * key; cf_grow_add_table adds one on request); CF_E_NOMEM when the table
 * cannot be allocated (in every case the filter is unchanged).
 * in place: when the key's two buckets are full, the table doubles
 * (at most once per insert; when entries reach max_load of the slots it
 * doubles without an eviction search) and the key goes there.  CF_E_FULL
 * when the doubling would pass max_bytes or let the FPP at full load pass
 * target_fpp (then a last eviction search is tried), when the key is
 * already stored 4 times or more and its buckets are full (a key's copies
 * never split), or, rarely, when even the doubled table has no path for it
 * (tiny tables): that one case keeps the doubled table, with the same
 * contents.  CF_E_NOMEM when the doubled table cannot be allocated (the
 * filter is unchanged).
 *
 * Deleting (cf_delete and its forms):
 * chain: a copy is removed when exactly one table holds key's fingerprint
 * (that copy is then key's own), or when the deletes of key not yet
 * carried out, this one included, are as many as the copies matching key
 * in all tables.  Otherwise one of the copies may be another item's (one
 * that collides with key in another table), and the delete is *owed*: it
 * returns CF_OK, for key is deleted, and its copy stays a false positive
 * until the chain can tell it apart; an insert of key then takes the owed
 * delete back instead of storing another copy (cf_insert_unique answers
 * CF_E_EXISTS: the copy is key's again), and owed deletes are carried out
 * once their ambiguity has cleared (the colliding item deleted): all are
 * retried before a table is added.
 * So churn of
 * the same keys never piles up copies or tables, and no item becomes a
 * false negative.  A delete is owed for keys stored again after the filter
 * grew, and for a fraction of deletes near target_fpp otherwise; a key
 * deleted more times than copies match it answers CF_E_NOT_FOUND.  Owed
 * deletes are saved with the filter (format version 8; none: version 2)
 * and merged by cf_merge.  Recording one may need memory: CF_E_NOMEM,
 * nothing changed.
 * in place: the longest stored fingerprint matching key in its two
 * buckets is removed (a shorter one may be another item's; the longest,
 * if not key's own, belongs to an item that key's own entry also
 * matches, so no item is lost).  An item stored before its index bits ran
 * out (after 8 doublings for 15-bit slots) was copied into both halves
 * of its bucket: deleting it removes one copy, and the other stays a
 * false positive.
 *
 * Counting: cf_count is summed over a chain's tables.
 * ---------------------------------------------------------------------- */

/* ------------------------------------------------------------------------
 * Explaining a refusal.  When cf_new refuses a configuration, the library
 * says why in one sentence -- the option, its value, the reason and what
 * would work -- so that every front end (the cuckoo command, Python, the
 * Redis module) prints the same reasons, each in its own spelling of the
 * options.
 * ---------------------------------------------------------------------- */
typedef enum cf_option {
    CF_OPT_CAPACITY,         /* cf_config.capacity, cf_bloom_config.capacity       */
    CF_OPT_TARGET_FPP,       /* cf_config.target_fpp, cf_bloom_config.target_fpp   */
    CF_OPT_FINGERPRINT_BITS, /* cf_config.fingerprint_bits                         */
    CF_OPT_BUCKET_SIZE,      /* cf_config.bucket_size                              */
    CF_OPT_MAX_KICKS,        /* cf_config.max_kicks                                */
    CF_OPT_MAX_LOAD,         /* cf_config.max_load                                 */
    CF_OPT_NUM_BUCKETS,      /* cf_config.num_buckets                              */
    CF_OPT_GROWTH,           /* cf_config.growth                                   */
    CF_OPT_MAX_BYTES,        /* cf_config.max_bytes                                */
    CF_OPT_GROWTH_MODE,      /* cf_config.growth_mode (an unknown value)           */
    CF_OPT_NUM_BITS,         /* cf_bloom_config.num_bits                           */
    CF_OPT_NUM_HASHES,       /* cf_bloom_config.num_hashes                         */
    CF_OPT_SEMI_SORT,        /* the flag CF_SEMI_SORT (a switch: no value)         */
    CF_OPT_CONCURRENT,       /* the flag CF_CONCURRENT (a switch)                  */
    CF_OPT_GROW,             /* the flag CF_GROW with CF_GROWTH_CHAIN (a switch)   */
    CF_OPT_GROW_INPLACE,     /* CF_GROW with CF_GROWTH_INPLACE (a switch)          */
    CF_OPT_EXPIRE_AFTER,     /* cf_config.expire_after                             */
    CF_OPTION_COUNT
} cf_option;

/* How a front end spells the options in sentences.  For an option with a
 * value, name[o] is written just before the value ("--fpp " and "fpp="
 * give "--fpp 1e-20" and "fpp=1e-20"); for a switch it is the whole
 * spelling ("--semi-sort", "semi_sort=True").  A NULL table or entry uses
 * the C names ("target_fpp=", "CF_SEMI_SORT"). */
typedef struct cf_option_names {
    const char *name[CF_OPTION_COUNT];
} cf_option_names;

/* The status cf_new(cfg) would return for cfg's values (CF_OK, CF_E_PARAM
 * or CF_E_TOO_LARGE; it allocates nothing, so a configuration that would
 * only run out of memory is CF_OK), and, when it is not CF_OK, one
 * sentence in buf (cap bytes, always NUL-terminated when cap > 0,
 * truncated to fit; buf may be NULL when cap is 0): the option and its
 * value, why it is refused, and what would work, e.g.
 *   "--fpp 1e-20 needs 67-bit fingerprints, and they have at most 32: ask
 *    for --fpp 1.86e-09 or more".
 * The sentence names options with names (see cf_option_names); the numbers
 * in it are the library's own.  *needed (may be NULL) receives the length
 * of the whole sentence (0 when CF_OK), so a caller can retry with a
 * larger buffer; 256 bytes hold every sentence with names of up to 24
 * bytes.  Not covered: what only creating the filter shows (an allocator
 * whose memory is not aligned for CF_CONCURRENT). */
CF_API cf_status cf_config_explain(const cf_config *cfg, const cf_option_names *names, char *buf,
                                   size_t cap, size_t *needed);

/* ------------------------------------------------------------------------
 * Lifetime.
 * ---------------------------------------------------------------------- */

/* Creates an empty filter from cfg and stores it in *out.
 * Returns CF_OK, CF_E_PARAM (NULL argument, capacity 0 without num_buckets,
 * target_fpp outside (0, 1) or too small for 32-bit fingerprints, width or
 * bucket size out of range, max_kicks above CF_MAX_KICKS_LIMIT, max_load
 * outside (0, 1], an allocator with only one of alloc/free, unknown flags,
 * CF_SEMI_SORT without bucket size 4 and a width of 5..16 bits; with
 * CF_GROW: growth above CF_MAX_GROWTH, the first table larger than a nonzero
 * max_bytes, an explicit fingerprint_bits whose full-load FPP is not below
 * target_fpp; CF_CONCURRENT with another flag (CF_GROW included) or an
 * allocator whose memory is not aligned for uint64_t; expire_after with
 * any flag, or with fingerprints wider than 28 bits),
 * CF_E_TOO_LARGE (the table's bit count overflows 64 bits or size_t), or
 * CF_E_NOMEM.  On failure *out is set to NULL. */
CF_API cf_status cf_new(const cf_config *cfg, cf_filter **out);

/* The name of f's kind ("Kinds of filter" above): "plain", "chain",
 * "in place", "concurrent" or "expiring" -- the names the cuckoo command, Python and
 * the docs use; a static string, NULL for a NULL f. */
CF_API const char *cf_kind_name(const cf_filter *f);

/* Releases f and everything it owns (or unmaps a mapped filter).  NULL is fine. */
CF_API void cf_free(cf_filter *f);

/* Turns the single-table filter *f into a CF_GROW filter whose first table
 * is that table, as it is (no rehashing): later tables follow cfg->growth,
 * cfg->max_bytes and cfg->target_fpp, the bound of the whole filter, which
 * must be above the table's FPP at full load (cf_stats.fpp_bound).
 * target_fpp 0 asks for the library's choice (cf_config_init sets another
 * default, so set 0 yourself): four times fpp_bound (the bound cf_new
 * gives a CF_GROW filter with this first table), at least
 * (CF_MAX_TABLES + 4) times the full-load FPP of 32-bit fingerprints (a
 * table near 32 bits still leaves budget for more tables), and at most
 * (1 + fpp_bound) / 2.  The other fields of cfg are ignored.  On CF_OK *f is
 * the new handle, which owns the old one's table (do not free the old
 * handle).  Returns CF_OK, CF_E_PARAM (NULL, *f already grows, is
 * concurrent or is mapped, target_fpp not 0 and not in (fpp_bound, 1),
 * growth above CF_MAX_GROWTH, the table above a nonzero max_bytes) or
 * CF_E_NOMEM; on failure *f is unchanged. */
CF_API cf_status cf_make_growable(cf_filter **f, const cf_config *cfg);

/* Makes the plain filter f a CF_CONCURRENT one, in place, keeping its
 * table and counters: for a filter loaded with cf_load or cf_deserialize
 * (files never carry the flag).  Call it before any other thread sees f.
 * The allocator f was loaded with must then meet CF_CONCURRENT's terms
 * ("Threads" at the top).  Returns CF_OK, CF_E_PARAM (NULL, f grows, is
 * semi-sorted, is already concurrent, is mapped by cf_map, or its
 * allocator's memory is not aligned for uint64_t) or CF_E_NOMEM (f
 * unchanged). */
CF_API cf_status cf_make_concurrent(cf_filter *f);

/* Changes f's eviction budget (cf_config.max_kicks; every table of a
 * CF_GROW filter): later inserts search at most max_kicks buckets, and
 * cf_serialize and cf_save record the new budget.  E.g. 1 for an insert
 * that should only take a free slot of the key's own buckets, cheaply,
 * then the old budget again.  Not while other threads use f.  Returns
 * CF_OK, CF_E_PARAM (NULL f, max_kicks 0 or above CF_MAX_KICKS_LIMIT) or
 * CF_E_READONLY (mapped by cf_map). */
CF_API cf_status cf_set_max_kicks(cf_filter *f, unsigned max_kicks);

/* Steering a CF_GROW filter (programs with their own growth policy, e.g.
 * the Redis module).  Each returns CF_E_PARAM for NULL or a filter without
 * CF_GROW, CF_E_READONLY for a mapped one, and keeps every rule cf_insert's
 * growth keeps (shapes, sizes, the FPP bound, max_bytes).
 *
 * cf_grow_add_table: adds the next table now, as an insert that finds no
 * room would (also when only one key's copies fill the newest table).
 * CF_OK, CF_E_FULL (a limit: max_bytes, the table cap, 32-bit fingerprints;
 * nothing changed) or CF_E_NOMEM.
 *
 * cf_grow_set_limits: from now on no table is added past max_tables tables
 * (1..CF_MAX_TABLES; 0 = CF_MAX_TABLES; held by this handle, not saved)
 * or max_bytes of tables (0 = none; saved as cfg.max_bytes).  CF_E_PARAM
 * also when max_bytes is below the tables' bytes now or max_tables above
 * CF_MAX_TABLES.  The one cf_grow_* call a CF_GROWTH_INPLACE filter takes:
 * max_bytes then bounds its doublings (max_tables has nothing to cap).
 *
 * cf_grow_append: adds `table`, a writable single-table filter, as the
 * newest table and takes ownership of it (on CF_OK only): for tables built
 * or loaded elsewhere.  It must share the seed, bucket size and eviction
 * budget of the newest table, have growth times its buckets, keep the sum
 * of full-load FPPs below target_fpp and the bytes within max_bytes;
 * otherwise CF_E_PARAM and nothing changes.
 *
 * cf_grow_trim: frees the newest tables while they hold no item, never the
 * first; *dropped (may be NULL) receives how many.  Lookups then probe fewer
 * tables, and later growth starts again from the newest table kept. */
CF_API cf_status cf_grow_add_table(cf_filter *f);
CF_API cf_status cf_grow_set_limits(cf_filter *f, unsigned max_tables, uint64_t max_bytes);
CF_API cf_status cf_grow_append(cf_filter *f, cf_filter *table);
CF_API cf_status cf_grow_trim(cf_filter *f, unsigned *dropped);

/* ------------------------------------------------------------------------
 * Operations on keys (any bytes).  key may be NULL when len is 0.  A NULL
 * key with len > 0 is refused everywhere, never read: CF_E_PARAM where a
 * status is returned, false from cf_contains, 0 from cf_count and cf_hash
 * (and the same from cf_bloom_*).
 * ---------------------------------------------------------------------- */

/* Inserts one copy of key.  Returns CF_OK, CF_E_FULL (no free slot was
 * reachable within max_kicks, or 2b copies already fill both buckets; the
 * filter is unchanged), CF_E_READONLY (mapped filter), CF_E_PARAM, or
 * CF_E_NOMEM (only with max_kicks above 62, when the scratch of an eviction
 * search that outgrew the stack cannot be allocated; the filter is
 * unchanged).  The growing kinds add room instead of refusing, up to their
 * limits ("Kinds of filter" above: what CF_E_FULL and CF_E_NOMEM mean for
 * each). */
CF_API cf_status cf_insert(cf_filter *f, const void *key, size_t len);

/* Like cf_insert, but returns CF_E_EXISTS without inserting when
 * cf_contains would answer true (which may be a false positive). */
CF_API cf_status cf_insert_unique(cf_filter *f, const void *key, size_t len);

/* True if key may be in the filter; false if it certainly is not.
 * False when f is NULL. */
CF_API bool cf_contains(const cf_filter *f, const void *key, size_t len);

/* Removes one copy of key's fingerprint.  Returns CF_OK, CF_E_NOT_FOUND,
 * CF_E_READONLY or CF_E_PARAM (and CF_E_NOMEM for a CF_GROW chain whose
 * delete must be owed: "Deleting" above).
 * Only delete items you know were inserted: a never-inserted key whose
 * fingerprint and buckets collide with a stored item's would remove that
 * item's fingerprint instead, creating a false negative.  The growing
 * kinds' rules: "Kinds of filter" above. */
CF_API cf_status cf_delete(cf_filter *f, const void *key, size_t len);

/* An upper bound on the copies of key stored: the number of slots in its two
 * buckets holding its fingerprint (0 when f is NULL); with CF_GROW, summed
 * over the tables. */
CF_API size_t cf_count(const cf_filter *f, const void *key, size_t len);

/* ------------------------------------------------------------------------
 * Operations on 64-bit integer keys.  cf_X_u64(f, key) == cf_X(f, bytes, 8)
 * where bytes holds key in little-endian order, on every host: the same
 * hash, so a key added one way is found, counted and deleted the other way,
 * and files do not depend on which was used.  Faster than passing the 8
 * bytes (no detour through memory, XXH3's 8-byte path only).  For loops
 * of lookups, cuckoofilter_inline.h compiles these (and cf_contains_hash)
 * into the caller (cf_view).  The statuses
 * and rules are those of the byte-key forms above; f NULL gives CF_E_PARAM,
 * false or 0.
 * ---------------------------------------------------------------------- */
CF_API cf_status cf_insert_u64(cf_filter *f, uint64_t key);
CF_API cf_status cf_insert_unique_u64(cf_filter *f, uint64_t key);
CF_API bool cf_contains_u64(const cf_filter *f, uint64_t key);
CF_API cf_status cf_delete_u64(cf_filter *f, uint64_t key);
CF_API size_t cf_count_u64(const cf_filter *f, uint64_t key);

/* ------------------------------------------------------------------------
 * Operations on 64-bit hashes.  Everything after hashing works on the hash,
 * so a program can hash once and probe many filters that share a seed, or
 * bring its own hash.  cf_X(f, key, len) == cf_X_hash(f, cf_hash(f, key, len)).
 * ---------------------------------------------------------------------- */

/* XXH3-64 of key with the filter's seed (f may be NULL: seed 0).  0 for a
 * NULL key with len > 0, which has no hash: the identity above holds for
 * valid keys only. */
CF_API uint64_t cf_hash(const cf_filter *f, const void *key, size_t len);

CF_API cf_status cf_insert_hash(cf_filter *f, uint64_t h);
CF_API cf_status cf_insert_unique_hash(cf_filter *f, uint64_t h);
CF_API bool cf_contains_hash(const cf_filter *f, uint64_t h);
CF_API cf_status cf_delete_hash(cf_filter *f, uint64_t h);
CF_API size_t cf_count_hash(const cf_filter *f, uint64_t h);

/* Looks up n hashes, writing out[i] = cf_contains_hash(f, hashes[i]), and
 * returns how many were found (0, with out untouched, when f or hashes is
 * NULL).  Faster than a loop of single lookups on large tables: it works
 * ahead and keeps many memory reads in flight; and on x86-64 CPUs with
 * AVX-512 or AVX2 (checked at run time) it looks up eight or four keys of a
 * plain, in-place or expiring filter at a time, faster in cache too.  out
 * may be NULL to only count. */
CF_API size_t cf_contains_batch(const cf_filter *f, const uint64_t *hashes, size_t n, bool *out);

/* Inserts n hashes in order, locating and prefetching the buckets of later
 * hashes ahead so that many memory reads are in flight.  Stops at the first failure: returns CF_OK when
 * all were inserted, else that insert's status (CF_E_FULL: hashes[*inserted]
 * and later ones were not inserted, the earlier ones were).  inserted may be
 * NULL. */
CF_API cf_status cf_insert_batch(cf_filter *f, const uint64_t *hashes, size_t n, size_t *inserted);

/* ------------------------------------------------------------------------
 * Introspection.
 * ---------------------------------------------------------------------- */
typedef struct cf_stats {
    uint64_t items;            /* fingerprints stored                               */
    uint64_t num_buckets;      /* nb                                                */
    uint64_t slots;            /* nb * bucket_size                                  */
    unsigned bucket_size;      /* b                                                 */
    unsigned fingerprint_bits; /* f                                               */
    unsigned max_kicks;        /* eviction budget per insert                        */
    unsigned flags;            /* cf_config.flags                                   */
    uint64_t seed;             /* hash seed                                         */
    double load_factor;        /* items / slots                                     */
    double bits_per_item;      /* table bits / items (0 when empty)                 */
    unsigned bits_per_slot;    /* f, or f - 1 when semi-sorted                      */
    double expected_fpp;       /* 1 - (1 - 1/(2^f - 1))^(2b * load): FPP now        */
    size_t table_bytes;        /* bytes of the bucket table: ceil(nb * b * f / 8),
                                ceil(nb * (4f - 4) / 8) when semi-sorted          */
    size_t memory_bytes;       /* everything the filter allocated (cf_memory_usage) */
    uint64_t total_kicks;      /* fingerprints moved by inserts since creation      */
    uint64_t failed_inserts;   /* inserts that returned CF_E_FULL                   */
    bool read_only;            /* true for a mapped filter                          */
    unsigned format_version;   /* file format version (docs/FORMAT.md) cf_serialize
                                writes and cf_deserialize/cf_load/cf_map read    */
    /* Added with CF_GROW.  For a CF_GROW filter the fields above cover all
     * tables: items, num_buckets, slots, table_bytes, memory_bytes and
     * total_kicks are sums, load_factor and bits_per_item are over the sum,
     * fingerprint_bits and bits_per_slot are the newest table's,
     * expected_fpp is the sum of the tables' FPPs now (the union bound:
     * a lookup is a false positive when any table's is), and
     * failed_inserts counts inserts the whole filter refused. */
    unsigned tables;    /* 1, or the tables of a CF_GROW filter              */
    unsigned growth;    /* CF_GROW: cf_config.growth; else 0                 */
    uint64_t max_bytes; /* CF_GROW: cf_config.max_bytes (0 = none); else 0   */
    double fpp_bound;   /* what expected_fpp can reach: with CF_GROW, the
                                sum of the tables' FPPs at full load, always
                                below target_fpp; else the FPP at full load  */
    double target_fpp;  /* CF_GROW: the bound every table added respects;
                                else 0 (single tables do not store it)       */
    /* Added with CF_GROWTH_INPLACE: the growth mode (CF_GROWTH_CHAIN for
     * every filter without it) and the doublings since creation.  For an
     * in-place filter, fingerprint_bits is the length a new entry gets
     * (slot width - 1), bits_per_slot the slot width, load_factor counts
     * occupied slots (items plus the copies doublings made of used-up
     * entries), expected_fpp is 2S/nb (S: the sum of 2^-length over entries), fpp_bound the
     * FPP once every free slot is filled, tables 1, growth 2. */
    unsigned growth_mode;
    uint64_t doublings;
    /* A cf_growth_limit: CF_GROWTH_OPEN, or what stops the filter growing
     * now (CF_GROWTH_LIMIT_*, above). */
    unsigned growth_limit;
    /* Added with expiring filters (cfg.expire_after); 0 for every other
     * kind.  For an expiring filter fingerprint_bits is the fingerprint,
     * bits_per_slot the fingerprint and its stamp, and expected_fpp and
     * fpp_bound those of the fingerprint over the live items. */
    uint64_t expire_after; /* cfg.expire_after                                   */
    uint64_t expire_span;  /* one stamp's time: ceil(expire_after / stamps)      */
    unsigned stamp_bits;   /* bits of the stamp in each slot                     */
    unsigned stamps;       /* stamps in a window: an item lives stamps * span
                              (at least expire_after), and is gone one span
                              later at the latest                              */
    uint64_t now;          /* the filter's clock: the last cf_set_time (0 at first) */
} cf_stats;

/* Fills *out.  Returns CF_OK, or CF_E_PARAM for a NULL argument (then
 * *out, when not NULL, is zeroed). */
CF_API cf_status cf_get_stats(const cf_filter *f, cf_stats *out);

/* Sets an expiring filter's clock to now (in the units of its
 * expire_after) for the calls that follow: inserts stamp their items with
 * it, and items whose window ended by now are removed at once, in one
 * pass over the table when now enters a later stamp span (a table's worth
 * of work once per span, O(1) otherwise; a jump past a whole window
 * clears the table), so lookups never see an expired item and inserts
 * reuse its slot.  The clock starts at 0; files keep it.  Returns CF_OK,
 * CF_E_PARAM (NULL f, or f is not an expiring filter), CF_E_INVAL (now
 * earlier than the clock: time never runs backwards; nothing changes) or
 * CF_E_READONLY (a mapped filter: its clock is the file's). */
CF_API cf_status cf_set_time(cf_filter *f, uint64_t now);

/* Fills *out with the statistics of table k alone (0 = the first and
 * oldest), as cf_get_stats reports a single-table filter (tables = 1,
 * growth 0); for a filter without CF_GROW, k = 0 is the whole filter.
 * Returns CF_OK, or CF_E_PARAM (NULL, or k >= cf_stats.tables). */
CF_API cf_status cf_table_stats(const cf_filter *f, unsigned k, cf_stats *out);

/* Bytes allocated for f (table, handle, and for CF_GROW and CF_CONCURRENT
 * their chain or stripes); 0 for NULL.  An eviction search's scratch is
 * held only during its insert, never counted here. */
CF_API size_t cf_memory_usage(const cf_filter *f);

/* The FPP of a table with bucket size b and f-bit fingerprints at load
 * factor load: 1 - (1 - 1/(2^f - 1))^(2 * b * load). */
CF_API double cf_theoretical_fpp(unsigned fingerprint_bits, unsigned bucket_size, double load);

/* Removes every item; keeps the parameters and the memory (with CF_GROW,
 * every table: inserts then fill the newest first). */
CF_API cf_status cf_clear(cf_filter *f);

/* Adds every fingerprint stored in src to dst, so that every item of either
 * is found in dst (no false negatives) and dst answers every key as one
 * filter built from both sets of items would.  Lets a filter be built in
 * parts (split keys, build each part, merge).
 * The two must have the same number of buckets, bucket size, fingerprint
 * width, seed, layout (flags) and partner map (files of 0.1.0 have another);
 * max_kicks may differ (dst's is used).  CF_GROW filters merge when grown
 * from the same first table with the same growth and target_fpp: src's
 * table k goes into dst's table k, which dst adds (as an insert would) if
 * it has fewer tables.  Fingerprints cannot move between tables without
 * their keys, so this needs room in each table of dst for the same table
 * of src (else CF_E_FULL): merging into an empty or lightly filled grown
 * filter works; two parts that both filled their first table do not.
 * Filters grown in place (CF_GROWTH_INPLACE) merge whatever their sizes
 * when seed and target_fpp (hence the slot width) agree: dst doubles up
 * to src's size if smaller, then takes each entry of src as the doublings
 * between their sizes would have carried it, doubling further where it
 * has no room (CF_E_FULL at max_bytes or the FPP bound).
 * All or nothing: on any failure dst's contents and statistics are as
 * before.  The call temporarily allocates a copy of dst's tables through
 * dst's allocator.  src is only read (it may be mapped).
 * Returns CF_OK, CF_E_PARAM (NULL argument, dst == src, either filter made
 * with CF_CONCURRENT (not merged yet), one grown and the other not, or the
 * shapes differ: compare cf_get_stats' (or cf_table_stats') num_buckets,
 * bucket_size, fingerprint_bits, seed and flags to tell which; in place:
 * seed and target_fpp),
 * CF_E_READONLY (dst is mapped), CF_E_FULL (dst cannot take every
 * fingerprint of src within its eviction budget, or cannot add a table it
 * needs: max_bytes, CF_MAX_TABLES), CF_E_CORRUPT (an in-place src mapped
 * without verification holds a slot no filter writes), or CF_E_NOMEM (the
 * copy, a table, or eviction scratch for a search beyond the stack's, with
 * max_kicks above 62). */
CF_API cf_status cf_merge(cf_filter *dst, const cf_filter *src);

/* ------------------------------------------------------------------------
 * The experimental tier.  The calls below are exported and tested like the
 * rest, but their names and structs may still change in a minor release
 * (the stable core above keeps its names and ABI across 1.x).  A program
 * that uses them says so by defining CF_EXPERIMENTAL_API before including
 * this header, and rebuilds against each release.
 * ---------------------------------------------------------------------- */
#ifdef CF_EXPERIMENTAL_API

/* ------------------------------------------------------------------------
 * Inspecting a table: where a key goes, what a bucket holds, and the moves
 * an insert makes (teaching and debugging tools, e.g. the playground that
 * draws a filter at work).  Single-table filters only: plain ones, also
 * semi-sorted or mapped (cf_insert_traced needs a writable one); the
 * growing and concurrent kinds return CF_E_PARAM.
 * ---------------------------------------------------------------------- */

/* A key's place: its fingerprint (the f-bit value stored, 1..2^f - 1) and
 * its two candidate buckets (equal when the partner map sends the bucket to
 * itself). */
typedef struct cf_location {
    uint32_t fingerprint;
    uint64_t bucket1, bucket2;
} cf_location;

/* Sets *out to key's (or hash h's) place in f.  Returns CF_OK, or
 * CF_E_PARAM (NULL f or out, a NULL key with len > 0, or f not a single
 * table). */
CF_API cf_status cf_locate(const cf_filter *f, const void *key, size_t len, cf_location *out);
CF_API cf_status cf_locate_hash(const cf_filter *f, uint64_t h, cf_location *out);

/* Copies bucket `bucket`'s slots to slots[0 .. bucket_size): each the
 * fingerprint stored there, 0 for a free slot.  Slot order is the table's:
 * a semi-sorted bucket (CF_SEMI_SORT) keeps its fingerprints in ascending
 * order, free slots first.  Returns CF_OK, or CF_E_PARAM (NULL f or slots,
 * cap below the bucket size, bucket >= num_buckets, or f not a single
 * table). */
CF_API cf_status cf_read_bucket(const cf_filter *f, uint64_t bucket, uint32_t *slots, size_t cap);

/* One fingerprint written by an insert: moved from slot from_slot of
 * from_bucket to slot to_slot of to_bucket, or, for the new key's own
 * fingerprint, stored (from_bucket = CF_NO_BUCKET, from_slot 0). */
#define CF_NO_BUCKET UINT64_MAX
typedef struct cf_move {
    uint64_t from_bucket, to_bucket;
    uint32_t fingerprint;
    uint8_t from_slot, to_slot;
} cf_move;

/* cf_insert (cf_insert_hash), reporting what it wrote: the moves of the
 * eviction path in the order made, from its free end back to the key's
 * bucket, then the key's fingerprint (CF_NO_BUCKET) last; an insert that
 * found a free slot reports that one entry.  The table and the counters
 * change exactly as cf_insert changes them.  moves[0 .. cap) receive the
 * first cap entries (moves may be NULL when cap is 0) and *nmoves, when not
 * NULL, their number, also when it exceeds cap (as snprintf counts).
 * Slot numbers are those of the moment of the write: a semi-sorted bucket
 * sorts itself after each (cf_read_bucket shows where things are).
 * Returns the statuses of cf_insert, with *nmoves = 0 on failure (nothing
 * changed), and CF_E_PARAM also when f is not a single table. */
CF_API cf_status cf_insert_traced(cf_filter *f, const void *key, size_t len, cf_move *moves,
                                  size_t cap, size_t *nmoves);
CF_API cf_status cf_insert_traced_hash(cf_filter *f, uint64_t h, cf_move *moves, size_t cap,
                                       size_t *nmoves);
#endif /* CF_EXPERIMENTAL_API */

/* ------------------------------------------------------------------------
 * Serialization (format documented in docs/FORMAT.md).  The file is a
 * header followed by the bucket table exactly as it sits in memory, so a
 * read-only filter can use a mapped file in place.  A CF_GROW filter is
 * written as format version 2: a header followed by one version-1 record per
 * table, each mappable in place the same way; a CF_GROWTH_INPLACE filter as
 * version 4: a 128-byte header, its one table, a checksum (cf_map uses the
 * table in place).
 * ---------------------------------------------------------------------- */

/* Bytes cf_serialize will write for f. */
CF_API size_t cf_serialized_size(const cf_filter *f);

/* Writes f to dst (cap bytes).  Returns CF_OK and sets *written, or
 * CF_E_PARAM (NULL) or CF_E_TRUNCATED (cap too small; nothing meaningful
 * written).  written may be NULL. */
CF_API cf_status cf_serialize(const cf_filter *f, void *dst, size_t cap, size_t *written);

/* Copies len bytes of f's serialized form (the bytes cf_serialize writes),
 * starting at byte offset, to dst -- without building the whole form, so a
 * large filter can be streamed in chunks with O(chunk) memory.  Each call
 * reads f as it is at that moment: pieces taken before and after a change to
 * f do not fit together, and cf_deserialize rejects their concatenation
 * (checksum or item count).  A range that reaches into the last 8 bytes (the
 * checksum) hashes the whole table once; any other range costs O(len).
 * CF_GROW (version 2): served table by table, each record as above; a
 * change is rejected when it falls in a table part of which was read
 * before it, but one confined to tables read wholly after it is not (the
 * version-2 header has no item count): a caller that streams across writes
 * must track them itself (the Redis module tags chunks with generations).
 * CF_GROWTH_INPLACE (version 4): header, table, trailer as for version 1;
 * the header's entry count and weight and the trailer reject a change
 * between pieces (a doubling also changes the size).
 * Returns CF_OK, or CF_E_PARAM (f NULL, dst NULL with len > 0, f made with
 * CF_CONCURRENT (not supported yet), or offset + len beyond
 * cf_serialized_size(f)). */
CF_API cf_status cf_serialize_range(const cf_filter *f, uint64_t offset, void *dst, size_t len);

/* Rebuilds a filter from len bytes at src, validating every field, the
 * invariants and the checksum before returning.  Never reads past len and
 * never allocates more than the input justifies.  Returns CF_OK,
 * CF_E_TRUNCATED, CF_E_MAGIC, CF_E_VERSION, CF_E_CORRUPT, CF_E_CHECKSUM,
 * CF_E_TOO_LARGE, CF_E_PARAM or CF_E_NOMEM.  a may be NULL (malloc/free). */
CF_API cf_status cf_deserialize(const void *src, size_t len, const cf_allocator *a,
                                cf_filter **out);

/* Reads the filter at the start of len bytes at src, which may go on after
 * it (filters written one after another to one stream or file): exactly as
 * cf_deserialize of the filter's own bytes, the length its header (or a
 * grown filter's record headers) gives, and *used receives that length.
 * A caller that wants the input to hold one filter and nothing else treats
 * *used < len as CF_E_TRAILING (cf_deserialize itself says CF_E_CORRUPT).
 * On CF_E_TRUNCATED, *used is how long the input must be before the call
 * can say more: never more than the filter's length, so a reader of a pipe
 * that reads up to *used bytes and calls again reads exactly one filter
 * and nothing of what follows it (an empty input asks for the first
 * header).  Returns CF_OK, CF_E_PARAM (out, src or used NULL), CF_E_TRUNCATED,
 * or as cf_deserialize; *used is 0 for every other status. */
CF_API cf_status cf_deserialize_prefix(const void *src, size_t len, const cf_allocator *a,
                                       cf_filter **out, size_t *used);

/* Writes f to path atomically: a temporary file in the same directory,
 * fsync, rename, fsync of the directory.  On failure the old file (if any)
 * is untouched and no temporary file is left.  A symbolic link at path is
 * followed: its target is replaced (the link stays), in the target's
 * directory.  The temporary file is unnamed while it is written (O_TMPFILE,
 * where the file system has it) and named "<target>.<pid>.<n>.tmp" only
 * from just before the rename, or the whole time elsewhere; a process
 * killed there leaves that name, which cf_file_lock_acquire removes later.
 * A write past RLIMIT_FSIZE raises SIGXFSZ, which kills the process unless
 * it ignores SIGXFSZ (then cf_save returns CF_E_IO).  Not a lock: two
 * unlocked savers of one path each write a whole file and the last rename
 * wins (see cf_file_lock_acquire).  Returns CF_OK, CF_E_PARAM, CF_E_NOT_REGULAR
 * (path is a directory, FIFO, device or socket, or a link to one: never
 * replaced) or CF_E_IO (also for a link that points nowhere). */
CF_API cf_status cf_save(const cf_filter *f, const char *path);

/* Reads and validates a filter file (statuses as cf_deserialize, plus
 * CF_E_IO, and CF_E_NOT_REGULAR for anything but a regular file: a FIFO is
 * refused at once, never waited on). */
CF_API cf_status cf_load(const char *path, const cf_allocator *a, cf_filter **out);

/* Maps a filter file read-only and uses its table in place: O(1) in the
 * file's size after validating the header (the checksum over the table is
 * verified only when verify is true, which reads the whole file).  Lookups
 * work; writes return CF_E_READONLY.  cf_free unmaps.  The handle (the
 * only allocation; a grown filter's chain too) comes from a (NULL:
 * malloc/free), as cf_load's and cf_bloom_map's do.  Statuses as cf_load.
 * A save (cf_save) replaces the file and leaves the mapping intact, but a
 * foreign program that truncates the file in place makes lookups on the
 * lost pages raise SIGBUS: a program that must survive that uses cf_load,
 * or handles SIGBUS (the cuckoo command prints an error and exits 2).
 * A grown filter's file (version 2) is mapped once, every table in place;
 * opening reads each table's header and padding, O(tables). */
CF_API cf_status cf_map(const char *path, const cf_allocator *a, bool verify, cf_filter **out);

/* ------------------------------------------------------------------------
 * Several writers of one file.  A read-modify-write (cf_load, changes,
 * cf_save) by two processes at once loses one's changes; each holding the
 * file's lock around it loses nothing:
 *
 *     cf_file_lock *lock;
 *     if (cf_file_lock_acquire(path, -1, NULL, &lock) == CF_OK) {
 *         ... cf_load(cf_file_lock_path(lock), ...), cf_insert ...,
 *         ... cf_save_locked(f, lock) ...
 *         cf_file_lock_release(lock);
 *     }
 *
 * Load and save the one file the lock resolved (cf_file_lock_path), not
 * path again: a symbolic link retargeted meanwhile would otherwise make the
 * save replace a file whose lock was never taken.  Hard links are separate
 * names of one file: a save replaces the name it was given (or resolved)
 * with a new file, so the other names keep the old contents from then on,
 * and each name has its own lock file; give writers one name.
 *
 * Safe concurrently with no lock: any number of cf_load and cf_map
 * (readers see the old file or the new one, never a mixture).  Needs the
 * lock: every writer whose result depends on the file's contents.  The
 * cuckoo command's add, delete, create, build (and any command that
 * writes a filter file) take the same lock, so programs and the command
 * can share files.
 * ---------------------------------------------------------------------- */
typedef struct cf_file_lock cf_file_lock;

/* Takes the exclusive advisory lock of the filter file at path: flock(2)
 * on "<target>.lock", where target is path with symbolic links followed
 * (as cf_save resolves it, so a link and its target share one lock).  The
 * lock file is created if needed and stays afterwards, unless no file is at
 * the target when the lock is released (a create that failed leaves no
 * stray lock file).  It must not be removed while writers run: a writer
 * that finds it replaced locks the new one, and a holder whose lock file
 * was removed or replaced is refused by cf_save_locked.  path need not
 * exist yet (a writer creating it locks too).  The target is resolved once,
 * here, and kept in the handle (cf_file_lock_path).
 * timeout_ms < 0 waits as long as it takes; 0 tries once; > 0 gives up
 * after about that many milliseconds (tries at most 64 ms apart).
 * The lock is held until cf_file_lock_release, or until the process exits or is
 * killed: the kernel releases it, so a crashed holder never blocks others.
 * It is advisory: cf_save and cf_load do not check it.  A second
 * cf_file_lock_acquire of the same file in the same process waits like another
 * process would (it is not reentrant).  With the lock held, it removes the
 * "<target>.<pid>.<n>.tmp" files (cf_save) of processes that no longer
 * exist (judged by pid on this machine: on a file system shared between
 * machines, lock from one machine or leave the cleaning to a human).
 * Returns CF_OK (*out holds the lock), CF_E_LOCKED (still held by another
 * at the timeout), CF_E_PARAM (NULL path or out, empty path, an allocator
 * with only one of alloc/free), CF_E_NOT_REGULAR (path exists and is not a
 * regular file), CF_E_IO (the lock file cannot be created or locked; a
 * dangling link) or CF_E_NOMEM.  On failure *out is NULL.  a may be NULL
 * (malloc/free); the handle is the only allocation. */
CF_API cf_status cf_file_lock_acquire(const char *path, int timeout_ms, const cf_allocator *a,
                                      cf_file_lock **out);

/* Releases the lock and frees the handle.  NULL is fine.  When no file
 * exists at the lock's target (nothing was ever saved), the lock file is
 * removed first. */
CF_API void cf_file_lock_release(cf_file_lock *lock);

/* The filter file the lock covers: the path given to cf_file_lock_acquire with its
 * symbolic links followed, resolved once when the lock was taken.  Valid
 * until cf_file_lock_release; NULL for a NULL lock.  Load this path (cf_load,
 * cf_map) under the lock, and save with cf_save_locked. */
CF_API const char *cf_file_lock_path(const cf_file_lock *lock);

/* cf_save to cf_file_lock_path(lock), with the lock checked again just
 * before the rename: when its lock file was removed or replaced while held
 * (so another writer may hold the new one and be saving too), nothing is
 * written and it returns CF_E_LOCKED; load again under a new lock and redo
 * the change.  A removal in the instant between that check and the rename
 * is not caught.  Other statuses as cf_save; CF_E_PARAM for a NULL f or
 * lock. */
CF_API cf_status cf_save_locked(const cf_filter *f, const cf_file_lock *lock);

/* ------------------------------------------------------------------------
 * Bloom filter, for comparison at equal memory.  k indexes are derived by
 * double hashing from one 64-bit XXH3 hash.
 * ---------------------------------------------------------------------- */
typedef struct cf_bloom cf_bloom;

typedef struct cf_bloom_config {
    uint64_t capacity;   /* items; required unless num_bits is set                 */
    double target_fpp;   /* in (0, 1); used with capacity; default 0.01            */
    uint64_t num_bits;   /* 0 = ceil(-capacity * ln(fpp) / ln(2)^2); else exactly   */
    unsigned num_hashes; /* 0 = optimal k for num_bits and capacity; else 1..64     */
    uint64_t seed;
    const cf_allocator *allocator;
} cf_bloom_config;

typedef struct cf_bloom_stats {
    uint64_t num_bits;
    unsigned num_hashes;
    uint64_t items;       /* adds performed (duplicates count again)           */
    double bits_per_item; /* num_bits / items (0 when empty)                   */
    double expected_fpp;  /* (1 - e^(-k * items / num_bits))^k                 */
    size_t memory_bytes;
} cf_bloom_stats;

CF_API void cf_bloom_config_init(cf_bloom_config *cfg);

/* cf_config_explain for a Bloom filter's configuration: the status
 * cf_bloom_new would return for its values, and why, in one sentence. */
CF_API cf_status cf_bloom_config_explain(const cf_bloom_config *cfg, const cf_option_names *names,
                                         char *buf, size_t cap, size_t *needed);

/* The k that minimises the FPP for m bits and n items: max(1, round(m/n ln 2)). */
CF_API unsigned cf_bloom_optimal_k(uint64_t num_bits, uint64_t items);

/* Returns CF_OK, CF_E_PARAM (neither capacity nor num_bits; num_bits without
 * num_hashes or capacity to derive k from; fpp outside (0, 1); k > 64; an
 * allocator with only one of alloc/free), CF_E_TOO_LARGE or CF_E_NOMEM.
 * On failure *out = NULL. */
CF_API cf_status cf_bloom_new(const cf_bloom_config *cfg, cf_bloom **out);
/* Frees b (NULL: nothing); a mapped filter (cf_bloom_map) is unmapped. */
CF_API void cf_bloom_free(cf_bloom *b);
CF_API uint64_t cf_bloom_hash(const cf_bloom *b, const void *key, size_t len);
/* Sets key's (or hash h's, or the 64-bit integer key's: its 8 bytes in
 * little-endian order, as cf_insert_u64) k bits.  Returns CF_OK, CF_E_PARAM (b NULL, or
 * key NULL with len > 0) or CF_E_READONLY (b is mapped: cf_bloom_map);
 * nothing is changed on failure. */
CF_API cf_status cf_bloom_insert(cf_bloom *b, const void *key, size_t len);
CF_API cf_status cf_bloom_insert_hash(cf_bloom *b, uint64_t h);
CF_API cf_status cf_bloom_insert_u64(cf_bloom *b, uint64_t key);
CF_API bool cf_bloom_contains(const cf_bloom *b, const void *key, size_t len);
CF_API bool cf_bloom_contains_hash(const cf_bloom *b, uint64_t h);
CF_API bool cf_bloom_contains_u64(const cf_bloom *b, uint64_t key);
/* Fills *out; CF_OK, or CF_E_PARAM for a NULL argument (*out, when not
 * NULL, zeroed). */
CF_API cf_status cf_bloom_get_stats(const cf_bloom *b, cf_bloom_stats *out);
CF_API size_t cf_bloom_memory_usage(const cf_bloom *b);
/* Removes every item: every bit 0, items 0; keeps the parameters and the
 * memory.  CF_OK, CF_E_PARAM (NULL) or CF_E_READONLY (mapped). */
CF_API cf_status cf_bloom_clear(cf_bloom *b);
/* Adds every item of src to dst (dst's bits |= src's; items add up), so
 * that dst answers as one filter given both sets of keys: the union.  They
 * must have the same num_bits, num_hashes and seed (CF_E_PARAM otherwise,
 * and for NULL or dst == src); nothing can fail midway.  CF_OK, CF_E_PARAM
 * or CF_E_READONLY (dst mapped; src may be). */
CF_API cf_status cf_bloom_merge(cf_bloom *dst, const cf_bloom *src);

/* Bloom filters in bytes (docs/FORMAT.md, "Bloom filters"): a 40-byte
 * header (its own magic, "\x89CKB\r\n\x1a\n", so that neither kind's
 * reader takes the other's bytes: cf_deserialize says CF_E_MAGIC to a
 * Bloom image and cf_bloom_deserialize to a cuckoo one), the bit array
 * exactly as in memory, and an XXH3-64 trailer.  The same filter always
 * gives the same bytes; k, the bits, the seed and the items count survive,
 * so a filter read back answers every query as the one written.  A Bloom
 * filter has no lock: serializing one while another thread adds to it is
 * the caller's race, as any other read. */

/* Bytes cf_bloom_serialize will write for b (0 for NULL): 48 + ceil(m / 8). */
CF_API size_t cf_bloom_serialized_size(const cf_bloom *b);

/* Writes b to dst (cap bytes).  Returns CF_OK and sets *written, or
 * CF_E_PARAM (b or dst NULL) or CF_E_TRUNCATED (cap below
 * cf_bloom_serialized_size(b); nothing written).  written may be NULL and
 * is 0 on failure. */
CF_API cf_status cf_bloom_serialize(const cf_bloom *b, void *dst, size_t cap, size_t *written);

/* Rebuilds a Bloom filter from len bytes at src, allocated through a (NULL:
 * malloc/free; the handle and its bits, two allocations).  Every field is
 * validated, then the checksum, before anything is allocated; never reads
 * past len.  Returns CF_OK, or on failure sets *out = NULL and returns
 *   CF_E_PARAM      out or src NULL; an allocator with only one of alloc/free
 *   CF_E_MAGIC      not a Bloom image (a cuckoo filter's bytes too)
 *   CF_E_TRUNCATED  shorter than the header or than its sizes say
 *                   (a prefix of the magic included)
 *   CF_E_VERSION    a version other than 1
 *   CF_E_CORRUPT    k outside 1..64, no bits, reserved bytes not 0,
 *                   trailing bytes, padding bits set, or more bits set
 *                   than items * k adds can set
 *   CF_E_TOO_LARGE  the bit array exceeds PTRDIFF_MAX / 2 bytes
 *   CF_E_CHECKSUM   the trailer is not XXH3-64 of header and bits
 *   CF_E_NOMEM      an allocation failed (nothing is left allocated). */
CF_API cf_status cf_bloom_deserialize(const void *src, size_t len, const cf_allocator *a,
                                      cf_bloom **out);

/* cf_deserialize_prefix for a Bloom filter: reads the Bloom image at the
 * start of len bytes at src (as cf_bloom_deserialize of exactly its bytes),
 * *used its length; on CF_E_TRUNCATED, *used is how long the input must be
 * before the call can say more, never more than the image.  *used is 0 for
 * every other failure. */
CF_API cf_status cf_bloom_deserialize_prefix(const void *src, size_t len, const cf_allocator *a,
                                             cf_bloom **out, size_t *used);

/* Writes b to path atomically, as cf_save writes a cuckoo filter (a
 * temporary file in the same directory, fsync, rename, fsync of the
 * directory; a symbolic link's target is replaced; on failure the old file
 * is untouched and no temporary file is left).  The bytes are
 * cf_bloom_serialize's.  Returns CF_OK, CF_E_PARAM (b or path NULL, path
 * empty), CF_E_NOT_REGULAR (path is a directory, FIFO, device or socket)
 * or CF_E_IO. */
CF_API cf_status cf_bloom_save(const cf_bloom *b, const char *path);

/* Reads and validates a Bloom filter file: the header against the file's
 * size before anything is allocated, then the bits, read into the new
 * filter, then the checksum and the bits' checks.  Statuses as
 * cf_bloom_deserialize, plus CF_E_IO, and CF_E_NOT_REGULAR for anything
 * but a regular file (a FIFO is refused at once). */
CF_API cf_status cf_bloom_load(const char *path, const cf_allocator *a, cf_bloom **out);

/* Maps a Bloom filter file read-only and uses its bits in place: the
 * file's pages are the filter (shared with every process that maps it; no
 * copy is allocated, only the handle, through a).  The header is validated
 * against the file's size as cf_bloom_load does, and, since the Bloom
 * header has no check of its own, the trailer checksum and the bits'
 * checks always are too: opening reads the whole file once.  Lookups,
 * statistics, cf_bloom_serialize and cf_bloom_save work; cf_bloom_insert and
 * its _hash and _u64 forms return CF_E_READONLY.  cf_bloom_free unmaps.  As with
 * cf_map, a save (cf_bloom_save) replaces the file and leaves the mapping
 * intact, but a foreign program that truncates the file in place makes
 * reads of the lost pages raise SIGBUS.  Statuses as cf_bloom_load (CF_E_IO
 * also when the file was replaced in place between reading its header and
 * mapping it). */
CF_API cf_status cf_bloom_map(const char *path, const cf_allocator *a, cf_bloom **out);

/* ------------------------------------------------------------------------
 * Deprecated names (renamed in 1.0.0; removed in the next major version).
 * Each is the call it names, under its old name.
 * ---------------------------------------------------------------------- */
CF_API CF_DEPRECATED("use cf_file_lock_acquire") cf_status
    cf_lock_file(const char *path, int timeout_ms, const cf_allocator *a, cf_file_lock **out);
CF_API CF_DEPRECATED("use cf_file_lock_release") void cf_unlock_file(cf_file_lock *lock);
CF_API CF_DEPRECATED("use cf_bloom_insert") cf_status
    cf_bloom_add(cf_bloom *b, const void *key, size_t len);
CF_API CF_DEPRECATED("use cf_bloom_insert_hash") cf_status
    cf_bloom_add_hash(cf_bloom *b, uint64_t h);

#ifdef __cplusplus
}
#endif
#endif /* CUCKOOFILTER_H */
