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
 *     i2 = alt(i1, fp)                       (an involution: alt(i2) == i1)
 *
 * alt keeps 3 in 4 items' partner buckets inside the same block of at most
 * 4 KiB (one page walk per lookup) and sends the others anywhere in the
 * table, (H(fp) - i1) mod nb, so blocks share load; docs/FORMAT.md gives the
 * exact function, which is part of the file format.
 *
 * Guarantees (checked by the test suite):
 *   1. No false negatives: an item inserted and not deleted is always found,
 *      also after an insert that failed because the filter was full.
 *   2. A failed insert (CF_E_FULL) changes nothing: the eviction path is
 *      found first (breadth-first, bounded by max_kicks) and only then moved.
 *   3. The same item can be stored up to 2b times; cf_count() is an upper
 *      bound on the copies stored (fingerprint collisions add to it).
 *   4. Determinism: same configuration and seed, same operations in the same
 *      order => byte-identical table.
 *   5. FPP at load a is about 1 - (1 - 1/(2^f - 1))^(2ba) <= 2b/2^f.
 *
 * Threads: a plain filter may be read from many threads at once (cf_contains
 * and friends are const and allocate nothing); writes need external locking.
 * A filter created with CF_CONCURRENT in cfg.flags needs no lock of the
 * caller's: cf_insert, cf_insert_unique, cf_delete, cf_contains, cf_count,
 * their _hash forms, cf_insert_batch, cf_contains_batch, cf_get_stats,
 * cf_memory_usage, cf_serialize, cf_save and cf_clear may run at the same
 * time on it from any number of threads (only cf_free must come after all
 * of them).  Then:
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
 *   - The allocator must be thread-safe when max_kicks exceeds 1022 (each
 *     eviction search then allocates its own scratch) and return memory
 *     aligned for uint64_t (malloc's is; else cf_new returns CF_E_PARAM).
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

#define CF_VERSION_MAJOR 0
#define CF_VERSION_MINOR 1
#define CF_VERSION_PATCH 0
#define CF_VERSION_STRING "0.1.0"

#if defined(_WIN32)
#define CF_API
#elif defined(__GNUC__)
#define CF_API __attribute__((visibility("default")))
#else
#define CF_API
#endif

/* ------------------------------------------------------------------------
 * Status codes.  One table generates the enum, the names and the messages;
 * success is 0 and every failure is negative.
 * ---------------------------------------------------------------------- */
#define CF_STATUS_TABLE(X)                                                                     \
    X(CF_OK, 0, "success")                                                                     \
    X(CF_E_FULL, -1, "filter is full; nothing was changed")                                    \
    X(CF_E_NOT_FOUND, -2, "item not found")                                                    \
    X(CF_E_EXISTS, -3, "item already present")                                                 \
    X(CF_E_PARAM, -4, "invalid argument")                                                      \
    X(CF_E_NOMEM, -5, "out of memory")                                                         \
    X(CF_E_IO, -6, "input/output error")                                                       \
    X(CF_E_CORRUPT, -7, "inconsistent parameters or contents in serialized filter")            \
    X(CF_E_VERSION, -8, "unsupported format version")                                          \
    X(CF_E_TRUNCATED, -9, "serialized filter is truncated")                                    \
    X(CF_E_MAGIC, -10, "not a cuckoo filter (bad magic number)")                               \
    X(CF_E_CHECKSUM, -11, "checksum mismatch")                                                 \
    X(CF_E_TOO_LARGE, -12, "size overflows or exceeds what this machine can address")          \
    X(CF_E_READONLY, -13, "filter is read-only")

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
 * it.  NULL means malloc/free.  alloc returns NULL on failure; free(NULL)
 * must not be called by the library.
 * ---------------------------------------------------------------------- */
typedef struct cf_allocator {
    void *(*alloc)(void *ctx, size_t size);
    void (*free)(void *ctx, void *ptr);
    void *ctx;
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
#define CF_MAX_BUCKET_SIZE 8          /* bucket_size is one of 1, 2, 4, 8 */
#define CF_DEFAULT_BUCKET_SIZE 4
#define CF_DEFAULT_MAX_KICKS 500
#define CF_MAX_KICKS_LIMIT 65535
#define CF_DEFAULT_TARGET_FPP 0.001

/* cf_config.flags */
/* Semi-sorted buckets: with bucket_size 4 and 5..16-bit fingerprints, each
 * bucket stores its four fingerprints sorted, their 4-bit prefixes as one
 * 12-bit code: one bit less per item at the same false-positive rate, for a
 * little more work per lookup. */
#define CF_SEMI_SORT 1u
/* Thread-safe: every function may be called on the filter from any number
 * of threads at once, with no lock of the caller's (see "Threads" at the
 * top).  Combines with no other flag (CF_E_PARAM).  Not stored in files:
 * cf_serialize and cf_save write a plain filter, and loaded ones are plain. */
#define CF_CONCURRENT 2u

typedef struct cf_config {
    /* Items the filter must hold.  Required (> 0) unless num_buckets is set. */
    uint64_t capacity;
    /* False-positive probability wanted at full load, in (0, 1).  Used to
     * choose fingerprint_bits when that is 0.  Default CF_DEFAULT_TARGET_FPP. */
    double target_fpp;
    /* 0 = derive from target_fpp as ceil(log2(2b / target_fpp)), raised if
     * needed to the width the table needs to reach max_load (README,
     * "Sizing"); else 1..32.
     * The stored width is one bit less with CF_SEMI_SORT (the FPP is that
     * of this width). */
    unsigned fingerprint_bits;
    /* Slots per bucket: 1, 2, 4 or 8; 0 = CF_DEFAULT_BUCKET_SIZE. */
    unsigned bucket_size;
    /* Eviction budget per insert: the number of buckets the breadth-first
     * search for a free slot may visit, 1..CF_MAX_KICKS_LIMIT.  Bounds insert
     * latency at high load; 0 = CF_DEFAULT_MAX_KICKS.  Budgets up to 1022
     * search on the stack; larger ones allocate 16 bytes per step once, on
     * the first insert that needs to evict. */
    unsigned max_kicks;
    /* Load factor used for sizing from capacity; 0 = the default for the
     * bucket size (cf_default_max_load), else in (0, 1]. */
    double max_load;
    /* 0 = derive from capacity as ceil(capacity / (bucket_size * max_load));
     * else exactly this many buckets (any value >= 1, not only powers of two). */
    uint64_t num_buckets;
    /* Hash seed.  Same seed, same operations => same bytes.  Stored in files. */
    uint64_t seed;
    /* CF_SEMI_SORT, CF_CONCURRENT or 0. */
    unsigned flags;
    /* NULL = malloc/free.  The pointed-to struct is copied by cf_new. */
    const cf_allocator *allocator;
} cf_config;

/* Fills cfg with the defaults: capacity 0, target_fpp CF_DEFAULT_TARGET_FPP,
 * derived fingerprint bits and buckets, bucket size 4, max_kicks 500,
 * default max_load, seed 0, malloc/free.  cfg must not be NULL. */
CF_API void cf_config_init(cf_config *cfg);

/* The load factor that inserts reliably reach for bucket size b with the
 * default max_kicks (measured; see README): b=1: 0.40, b=2: 0.84, b=4: 0.95,
 * b=8: 0.98.  Returns 0 for an unsupported b. */
CF_API double cf_default_max_load(unsigned bucket_size);

/* ------------------------------------------------------------------------
 * Lifetime.
 * ---------------------------------------------------------------------- */

/* Creates an empty filter from cfg and stores it in *out.
 * Returns CF_OK, CF_E_PARAM (NULL argument, capacity 0 without num_buckets,
 * target_fpp outside (0, 1) or too small for 32-bit fingerprints, width or
 * bucket size out of range, max_kicks above CF_MAX_KICKS_LIMIT, max_load
 * outside (0, 1], an allocator with only one of alloc/free, unknown flags,
 * CF_SEMI_SORT without bucket size 4 and a width of 5..16 bits,
 * CF_CONCURRENT with another flag or a misaligning allocator),
 * CF_E_TOO_LARGE (the table's bit count overflows 64 bits or size_t), or
 * CF_E_NOMEM.  On failure *out is set to NULL. */
CF_API cf_status cf_new(const cf_config *cfg, cf_filter **out);

/* Releases f and everything it owns (or unmaps a mapped filter).  NULL is fine. */
CF_API void cf_free(cf_filter *f);

/* ------------------------------------------------------------------------
 * Operations on keys (any bytes).  key may be NULL when len is 0.
 * ---------------------------------------------------------------------- */

/* Inserts one copy of key.  Returns CF_OK, CF_E_FULL (no free slot was
 * reachable within max_kicks, or 2b copies already fill both buckets; the
 * filter is unchanged), CF_E_READONLY (mapped filter), CF_E_PARAM, or
 * CF_E_NOMEM (only with max_kicks above 1022, when the eviction search's
 * scratch cannot be allocated; the filter is unchanged). */
CF_API cf_status cf_insert(cf_filter *f, const void *key, size_t len);

/* Like cf_insert, but returns CF_E_EXISTS without inserting when
 * cf_contains would answer true (which may be a false positive). */
CF_API cf_status cf_insert_unique(cf_filter *f, const void *key, size_t len);

/* True if key may be in the filter; false if it certainly is not.
 * False when f is NULL. */
CF_API bool cf_contains(const cf_filter *f, const void *key, size_t len);

/* Removes one copy of key's fingerprint.  Returns CF_OK, CF_E_NOT_FOUND,
 * CF_E_READONLY or CF_E_PARAM.
 * Only delete items you know were inserted: a never-inserted key whose
 * fingerprint and buckets collide with a stored item's would remove that
 * item's fingerprint instead, creating a false negative. */
CF_API cf_status cf_delete(cf_filter *f, const void *key, size_t len);

/* An upper bound on the copies of key stored: the number of slots in its two
 * buckets holding its fingerprint (0 when f is NULL). */
CF_API size_t cf_count(const cf_filter *f, const void *key, size_t len);

/* ------------------------------------------------------------------------
 * Operations on 64-bit hashes.  Everything after hashing works on the hash,
 * so a program can hash once and probe many filters that share a seed, or
 * bring its own hash.  cf_X(f, key, len) == cf_X_hash(f, cf_hash(f, key, len)).
 * ---------------------------------------------------------------------- */

/* XXH3-64 of key with the filter's seed. */
CF_API uint64_t cf_hash(const cf_filter *f, const void *key, size_t len);

CF_API cf_status cf_insert_hash(cf_filter *f, uint64_t h);
CF_API cf_status cf_insert_unique_hash(cf_filter *f, uint64_t h);
CF_API bool cf_contains_hash(const cf_filter *f, uint64_t h);
CF_API cf_status cf_delete_hash(cf_filter *f, uint64_t h);
CF_API size_t cf_count_hash(const cf_filter *f, uint64_t h);

/* Looks up n hashes, writing out[i] = cf_contains_hash(f, hashes[i]), and
 * returns how many were found (0, with out untouched, when f or hashes is
 * NULL).  Faster than a loop of single lookups on large
 * tables: it works ahead and keeps many memory reads in flight.  out may be
 * NULL to only count. */
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
    uint64_t items;          /* fingerprints stored                               */
    uint64_t num_buckets;    /* nb                                                */
    uint64_t slots;          /* nb * bucket_size                                  */
    unsigned bucket_size;    /* b                                                 */
    unsigned fingerprint_bits; /* f                                               */
    unsigned max_kicks;      /* eviction budget per insert                        */
    unsigned flags;          /* cf_config.flags                                   */
    uint64_t seed;           /* hash seed                                         */
    double load_factor;      /* items / slots                                     */
    double bits_per_item;    /* table bits / items (0 when empty)                 */
    unsigned bits_per_slot;  /* f, or f - 1 when semi-sorted                      */
    double expected_fpp;     /* 1 - (1 - 1/(2^f - 1))^(2b * load): FPP now        */
    size_t table_bytes;      /* bytes of the bucket table: ceil(nb * b * f / 8),
                                ceil(nb * (4f - 4) / 8) when semi-sorted          */
    size_t memory_bytes;     /* everything the filter allocated (cf_memory_usage) */
    uint64_t total_kicks;    /* fingerprints moved by inserts since creation      */
    uint64_t failed_inserts; /* inserts that returned CF_E_FULL                   */
    bool read_only;          /* true for a mapped filter                          */
} cf_stats;

/* Fills *out.  f and out must not be NULL. */
CF_API void cf_get_stats(const cf_filter *f, cf_stats *out);

/* Bytes allocated for f (table, scratch space and handle); 0 for NULL. */
CF_API size_t cf_memory_usage(const cf_filter *f);

/* The FPP of a table with bucket size b and f-bit fingerprints at load
 * factor load: 1 - (1 - 1/(2^f - 1))^(2 * b * load). */
CF_API double cf_theoretical_fpp(unsigned fingerprint_bits, unsigned bucket_size, double load);

/* Removes every item; keeps the parameters and the memory. */
CF_API cf_status cf_clear(cf_filter *f);

/* ------------------------------------------------------------------------
 * Serialization (format documented in docs/FORMAT.md).  The file is a
 * header followed by the bucket table exactly as it sits in memory, so a
 * read-only filter can use a mapped file in place.
 * ---------------------------------------------------------------------- */

/* Bytes cf_serialize will write for f. */
CF_API size_t cf_serialized_size(const cf_filter *f);

/* Writes f to dst (cap bytes).  Returns CF_OK and sets *written, or
 * CF_E_PARAM (NULL) or CF_E_TRUNCATED (cap too small; nothing meaningful
 * written).  written may be NULL. */
CF_API cf_status cf_serialize(const cf_filter *f, void *dst, size_t cap, size_t *written);

/* Rebuilds a filter from len bytes at src, validating every field, the
 * invariants and the checksum before returning.  Never reads past len and
 * never allocates more than the input justifies.  Returns CF_OK,
 * CF_E_TRUNCATED, CF_E_MAGIC, CF_E_VERSION, CF_E_CORRUPT, CF_E_CHECKSUM,
 * CF_E_TOO_LARGE, CF_E_PARAM or CF_E_NOMEM.  a may be NULL (malloc/free). */
CF_API cf_status cf_deserialize(const void *src, size_t len, const cf_allocator *a,
                                cf_filter **out);

/* Writes f to path atomically: a temporary file in the same directory,
 * fsync, rename, fsync of the directory.  On failure the old file (if any)
 * is untouched.  Returns CF_OK, CF_E_PARAM or CF_E_IO. */
CF_API cf_status cf_save(const cf_filter *f, const char *path);

/* Reads and validates a filter file (statuses as cf_deserialize, plus CF_E_IO). */
CF_API cf_status cf_load(const char *path, const cf_allocator *a, cf_filter **out);

/* Maps a filter file read-only and uses its table in place: O(1) in the
 * file's size after validating the header (the checksum over the table is
 * verified only when verify is true, which reads the whole file).  Lookups
 * work; writes return CF_E_READONLY.  cf_free unmaps.  Statuses as cf_load. */
CF_API cf_status cf_map(const char *path, bool verify, cf_filter **out);

/* ------------------------------------------------------------------------
 * Bloom filter, for comparison at equal memory.  k indexes are derived by
 * double hashing from one 64-bit XXH3 hash.
 * ---------------------------------------------------------------------- */
typedef struct cf_bloom cf_bloom;

typedef struct cf_bloom_config {
    uint64_t capacity;    /* items; required unless num_bits is set                 */
    double target_fpp;    /* in (0, 1); used with capacity; default 0.01            */
    uint64_t num_bits;    /* 0 = ceil(-capacity * ln(fpp) / ln(2)^2); else exactly   */
    unsigned num_hashes;  /* 0 = optimal k for num_bits and capacity; else 1..64     */
    uint64_t seed;
    const cf_allocator *allocator;
} cf_bloom_config;

typedef struct cf_bloom_stats {
    uint64_t num_bits;
    unsigned num_hashes;
    uint64_t items;        /* adds performed (duplicates count again)           */
    double bits_per_item;  /* num_bits / items (0 when empty)                   */
    double expected_fpp;   /* (1 - e^(-k * items / num_bits))^k                 */
    size_t memory_bytes;
} cf_bloom_stats;

CF_API void cf_bloom_config_init(cf_bloom_config *cfg);

/* The k that minimises the FPP for m bits and n items: max(1, round(m/n ln 2)). */
CF_API unsigned cf_bloom_optimal_k(uint64_t num_bits, uint64_t items);

/* Returns CF_OK, CF_E_PARAM (neither capacity nor num_bits; num_bits without
 * num_hashes or capacity to derive k from; fpp outside (0, 1); k > 64; an
 * allocator with only one of alloc/free), CF_E_TOO_LARGE or CF_E_NOMEM.
 * On failure *out = NULL. */
CF_API cf_status cf_bloom_new(const cf_bloom_config *cfg, cf_bloom **out);
CF_API void cf_bloom_free(cf_bloom *b);
CF_API uint64_t cf_bloom_hash(const cf_bloom *b, const void *key, size_t len);
CF_API void cf_bloom_add(cf_bloom *b, const void *key, size_t len);
CF_API void cf_bloom_add_hash(cf_bloom *b, uint64_t h);
CF_API bool cf_bloom_contains(const cf_bloom *b, const void *key, size_t len);
CF_API bool cf_bloom_contains_hash(const cf_bloom *b, uint64_t h);
CF_API void cf_bloom_get_stats(const cf_bloom *b, cf_bloom_stats *out);
CF_API size_t cf_bloom_memory_usage(const cf_bloom *b);

#ifdef __cplusplus
}
#endif
#endif /* CUCKOOFILTER_H */
