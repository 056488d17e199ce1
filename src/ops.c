/*
 * ops.c -- insert, lookup, delete and count, on keys and on hashes.
 *
 *   h ─► fp = fingerprint(h)        i1 = range(h, nb)      i2 = alt(i1, fp)
 *
 *   lookup:  fp in bucket i1  or  fp in bucket i2          (two bucket reads)
 *   insert:  free slot in i1, else in i2, else evict.c's path search
 *   delete:  clear one copy of fp, from i1 first, then i2
 *
 * An item may sit in either bucket after evictions, so delete and count look
 * at both.  When i1 == i2 (alt maps the bucket to itself) there is one bucket.
 *
 * The partner bucket (cf__alt_index in cf_internal.h) mirrors i1 about a
 * point chosen by the fingerprint alone, c = range(mix(fp), nb):
 *
 *   0          i2               c/2               i1                    nb
 *   |..........[ ]...............|................[ ]....................|
 *                              i1 + i2 = c  (mod nb)
 *
 * so moving an item needs only its fingerprint, any nb works, and the
 * partner costs three multiplications.  (Partners in the same 4 KiB block for
 * 3 in 4 items were tried first: a lookup then walks one page, worth ~13% on
 * single lookups at 100M items in a standalone loop (bench/lookup_floor.c);
 * but the other items need global partners for the table to fill, and
 * mixing the fingerprint, choosing between the two kinds and handling the
 * table's last block cost ~25 more instructions a lookup, which lost more
 * than the page saved: docs/BENCHMARKS.md.)
 */
#include "bucket.h"
#include "grow.h"
#include "concurrent.h"
#include "hash.h"

static bool cf__bad_key(const void *key, size_t len) {
    return key == NULL && len != 0;
}

uint64_t cf_hash(const cf_filter *f, const void *key, size_t len) {
    if (cf__bad_key(key, len)) return 0; /* no bytes to hash: the header's contract */
    if (f == NULL) return cf__xxh3(key, len, 0);
    return cf__hash_keyed(&f->hkey, key, len);
}

/* Semi-sorted buckets: both words read before either is searched. */
static inline bool cf__contains_semi(const cf_filter *f, uint64_t i1, uint64_t i2, uint32_t fp) {
    uint64_t w1 = cf__bucket_bits_at(f, i1), w2 = cf__bucket_bits_at(f, i2);
    return cf__semisort_find_word(f, w1, fp) >= 0 || cf__semisort_find_word(f, w2, fp) >= 0;
}

/* Layouts without SWAR (semi-sorted, wide buckets) out of line: inlined,
 * they made every lookup save and restore four more registers. */
__attribute__((noinline)) bool cf__contains_other(const cf_filter *f, uint64_t i1, uint64_t i2,
                                                  uint32_t fp) {
    if (f->semi_sort) return cf__contains_semi(f, i1, i2, fp);
    return cf__bucket_has(f, i1, fp) || cf__bucket_has(f, i2, fp);
}

/* Grown and concurrent filters have their own code (grow.c, concurrent.c):
 * every public function tests for both with one unlikely branch on the
 * flags, so plain filters pay one test. */
static inline bool cf__special(const cf_filter *f) {
    return __builtin_expect((f->flags & (CF_GROW | CF_CONCURRENT)) != 0, 0);
}

/* Out of line: inlined, the two calls cost plain lookups register saves. */
__attribute__((noinline)) static bool cf__contains_special(const cf_filter *f, uint64_t h) {
    if (f->flags & CF_GROW) return cf__grow_contains_hash(f, h);
    return cf__cc_contains(f, h);
}

bool cf_contains_hash(const cf_filter *f, uint64_t h) {
    if (f == NULL) return false;
    if (cf__special(f)) return cf__contains_special(f, h);
    return cf__contains_hashed(f, h);
}

bool cf_contains(const cf_filter *f, const void *key, size_t len) {
    if (f == NULL || cf__bad_key(key, len)) return false;
    uint64_t h = cf__hash_keyed(&f->hkey, key, len);
    if (cf__special(f)) return cf__contains_special(f, h);
    return cf__contains_hashed(f, h);
}

/* SWAR layouts: stores fp in the first free slot of `bucket` if it has one.
 * The word is written back whole to the address it was read from, so the
 * store's address does not depend on the bucket's contents: a store whose
 * address waits for a cache miss would hold back the next inserts' reads
 * (they cannot be ordered against it), and inserts would run one at a time. */
static inline bool cf__place_swar(cf_filter *f, uint64_t bucket, uint32_t fp) {
    cf__bitpos p = cf__bitpos_of(f->table, bucket * f->bucket_bits);
    uint64_t w = cf__load64le(p.at);
    uint64_t z = cf__zero_lanes(f, (w >> p.shift) & f->bucket_mask);
    if (z == 0) return false;
    /* The lowest set bit of z is the top bit of the first free lane. */
    unsigned lane = (unsigned)__builtin_ctzll(z) + 1 - f->fp_bits;
    cf__store64le(p.at, w | ((uint64_t)fp << (p.shift + lane)));
    return true;
}

/* Stores fp in the first free slot of i1, else of i2; false if both are
 * full. */
static inline bool cf__place(cf_filter *f, cf__slots p) {
    if (f->swar) return cf__place_swar(f, p.i1, p.fp) || cf__place_swar(f, p.i2, p.fp);
    uint64_t bucket = p.i1;
    int s = cf__bucket_find(f, bucket, 0);
    if (s < 0) {
        bucket = p.i2;
        s = cf__bucket_find(f, bucket, 0);
    }
    if (s < 0) return false;
    cf__slot_set(f, bucket, (unsigned)s, p.fp);
    return true;
}

cf_status cf__insert_slots(cf_filter *f, uint64_t i1, uint64_t i2, uint32_t fp) {
    cf__slots p = {i1, i2, fp};
    /* Reading bucket i1 decides whether i2 is needed; start i2's read now so
     * a full i1 does not cost a second memory round trip. */
    cf__prefetch_bucket(f, p.i2);
    if (!cf__place(f, p)) {
        cf_status st = cf__evict_insert(f, p.i1, p.i2, p.fp);
        if (st != CF_OK) {
            f->failed_inserts += st == CF_E_FULL;
            return st;
        }
    }
    f->items++;
    return CF_OK;
}

cf_status cf_insert_hash(cf_filter *f, uint64_t h) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    CF__RETURN_IF(f->read_only, CF_E_READONLY);
    if (cf__special(f))
        return f->flags & CF_GROW ? cf__grow_insert_hash(f, h) : cf__cc_insert(f, h, false);
    cf__slots p = cf__locate(f, h);
    return cf__insert_slots(f, p.i1, p.i2, p.fp);
}

cf_status cf_insert(cf_filter *f, const void *key, size_t len) {
    CF__RETURN_IF(f == NULL || cf__bad_key(key, len), CF_E_PARAM);
    return cf_insert_hash(f, cf__hash_keyed(&f->hkey, key, len));
}

cf_status cf_insert_unique_hash(cf_filter *f, uint64_t h) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    CF__RETURN_IF(f->read_only, CF_E_READONLY);
    if (cf__special(f))
        return f->flags & CF_GROW ? cf__grow_insert_unique_hash(f, h) : cf__cc_insert(f, h, true);
    cf__slots p = cf__locate(f, h);
    CF__RETURN_IF(cf__contains_at(f, p), CF_E_EXISTS);
    return cf__insert_slots(f, p.i1, p.i2, p.fp);
}

cf_status cf_insert_unique(cf_filter *f, const void *key, size_t len) {
    CF__RETURN_IF(f == NULL || cf__bad_key(key, len), CF_E_PARAM);
    return cf_insert_unique_hash(f, cf__hash_keyed(&f->hkey, key, len));
}

/* SWAR layouts: clears the first slot of `bucket` holding fp, if any,
 * writing the word back where it was read (as cf__place_swar does). */
static inline bool cf__take_swar(cf_filter *f, uint64_t bucket, uint32_t fp) {
    cf__bitpos p = cf__bitpos_of(f->table, bucket * f->bucket_bits);
    uint64_t w = cf__load64le(p.at);
    uint64_t z = cf__zero_lanes(f, ((w >> p.shift) & f->bucket_mask) ^ (f->lane_ones * fp));
    if (z == 0) return false;
    /* The lowest set bit of z is the top bit of the first matching lane. */
    unsigned lane = (unsigned)__builtin_ctzll(z) + 1 - f->fp_bits;
    cf__store64le(p.at, w & ~(f->fp_mask << (p.shift + lane)));
    return true;
}

/* Clears one copy of fp from i1, else from i2; false if neither holds it. */
static inline bool cf__take(cf_filter *f, cf__slots p) {
    if (f->swar) return cf__take_swar(f, p.i1, p.fp) || cf__take_swar(f, p.i2, p.fp);
    uint64_t bucket = p.i1;
    int s = cf__bucket_find(f, bucket, p.fp);
    if (s < 0) {
        bucket = p.i2;
        s = cf__bucket_find(f, bucket, p.fp);
    }
    if (s < 0) return false;
    cf__slot_set(f, bucket, (unsigned)s, 0);
    return true;
}

cf_status cf_delete_hash(cf_filter *f, uint64_t h) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    CF__RETURN_IF(f->read_only, CF_E_READONLY);
    if (cf__special(f))
        return f->flags & CF_GROW ? cf__grow_delete_hash(f, h) : cf__cc_delete(f, h);
    cf__slots p = cf__locate(f, h);
    cf__prefetch_bucket(f, p.i2); /* as for inserts */
    if (!cf__take(f, p)) return CF_E_NOT_FOUND;
    f->items--;
    return CF_OK;
}

cf_status cf_delete(cf_filter *f, const void *key, size_t len) {
    CF__RETURN_IF(f == NULL || cf__bad_key(key, len), CF_E_PARAM);
    return cf_delete_hash(f, cf__hash_keyed(&f->hkey, key, len));
}

size_t cf_count_hash(const cf_filter *f, uint64_t h) {
    if (f == NULL) return 0;
    if (cf__special(f)) return f->flags & CF_GROW ? cf__grow_count_hash(f, h) : cf__cc_count(f, h);
    cf__slots p = cf__locate(f, h);
    size_t n = cf__bucket_count(f, p.i1, p.fp);
    if (p.i2 != p.i1) n += cf__bucket_count(f, p.i2, p.fp);
    return n;
}

size_t cf_count(const cf_filter *f, const void *key, size_t len) {
    if (f == NULL || cf__bad_key(key, len)) return 0;
    return cf_count_hash(f, cf__hash_keyed(&f->hkey, key, len));
}

/* 64-bit integer keys: the same as cf_X(f, bytes, 8) on the key's 8 bytes
 * in little-endian order, hashed without a detour through memory. */
cf_status cf_insert_u64(cf_filter *f, uint64_t key) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    return cf_insert_hash(f, cf__hash_u64(&f->hkey, key));
}

bool cf_contains_u64(const cf_filter *f, uint64_t key) {
    if (f == NULL) return false;
    uint64_t h = cf__hash_u64(&f->hkey, key);
    if (cf__special(f)) return cf__contains_special(f, h);
    return cf__contains_hashed(f, h);
}

cf_status cf_delete_u64(cf_filter *f, uint64_t key) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    return cf_delete_hash(f, cf__hash_u64(&f->hkey, key));
}

size_t cf_count_u64(const cf_filter *f, uint64_t key) {
    if (f == NULL) return 0;
    return cf_count_hash(f, cf__hash_u64(&f->hkey, key));
}

/* Keys hashed and prefetched ahead of the probes: enough to keep the
 * memory system's ~30 outstanding misses per core busy, small enough to
 * stay in registers and L1. */
#define CF__BATCH 16

static inline void cf__prefetch_slots(const cf_filter *f, cf__slots p) {
    cf__prefetch_bucket(f, p.i1);
    cf__prefetch_bucket(f, p.i2);
}

/* Batches run a ring of located keys: key j is located, and its buckets
 * prefetched, CF__BATCH keys before it is probed, so reads overlap. */
static inline void cf__ring_fill(const cf_filter *f, cf__slots *ring, const uint64_t *hashes,
                                 size_t n) {
    for (size_t j = 0; j < n && j < CF__BATCH; j++) {
        ring[j] = cf__locate(f, hashes[j]);
        cf__prefetch_slots(f, ring[j]);
    }
}

static inline cf__slots cf__ring_next(const cf_filter *f, cf__slots *ring, const uint64_t *hashes,
                                      size_t n, size_t j) {
    cf__slots p = ring[j % CF__BATCH];
    if (j + CF__BATCH < n) {
        ring[j % CF__BATCH] = cf__locate(f, hashes[j + CF__BATCH]);
        cf__prefetch_slots(f, ring[j % CF__BATCH]);
    }
    return p;
}

cf_status cf_insert_batch(cf_filter *f, const uint64_t *hashes, size_t n, size_t *inserted) {
    if (inserted != NULL) *inserted = 0;
    CF__RETURN_IF(f == NULL || (hashes == NULL && n != 0), CF_E_PARAM);
    CF__RETURN_IF(f->read_only, CF_E_READONLY);
    if (cf__special(f))
        return f->flags & CF_GROW ? cf__grow_insert_batch(f, hashes, n, inserted)
                                  : cf__cc_insert_batch(f, hashes, n, inserted);
    cf__slots ring[CF__BATCH];
    cf__ring_fill(f, ring, hashes, n);
    for (size_t j = 0; j < n; j++) {
        cf__slots p = cf__ring_next(f, ring, hashes, n, j);
        cf_status s = cf__insert_slots(f, p.i1, p.i2, p.fp);
        if (s != CF_OK) return s;
        if (inserted != NULL) *inserted = j + 1;
    }
    return CF_OK;
}

/* A located key of a batch: where its buckets start (byte offsets when
 * every bucket starts on a byte, else bit offsets) and its fingerprint. */
typedef struct cf__probe {
    uint64_t at[2];
    uint32_t fp;
} cf__probe;

static inline void cf__stage(const cf_filter *f, cf__probe *p, uint64_t h, bool bytes) {
    cf__slots s = cf__locate(f, h);
    uint64_t step = bytes ? f->bucket_bits / 8 : f->bucket_bits;
    p->at[0] = s.i1 * step;
    p->at[1] = s.i2 * step;
    p->fp = s.fp;
    cf__prefetch_word(bytes ? f->table + p->at[0] : cf__bitpos_of(f->table, p->at[0]).at);
    cf__prefetch_word(bytes ? f->table + p->at[1] : cf__bitpos_of(f->table, p->at[1]).at);
}

static inline bool cf__probe_semi(const cf_filter *f, const cf__probe *p) {
    uint64_t w1 = cf__bits_at(f->table, p->at[0]), w2 = cf__bits_at(f->table, p->at[1]);
    return cf__semisort_find_word(f, w1, p->fp) >= 0 || cf__semisort_find_word(f, w2, p->fp) >= 0;
}

/* Lanes above the bucket hold the next bucket's bits; a borrow never moves
 * down, and lane_highs covers the bucket's own lanes only, so no mask. */
static inline bool cf__probe_swar(const cf_filter *f, const cf__probe *p, bool bytes) {
    uint64_t v = f->lane_ones * p->fp, w1, w2;
    if (bytes) {
        w1 = cf__load64le(f->table + p->at[0]);
        w2 = cf__load64le(f->table + p->at[1]);
    } else {
        w1 = cf__bits_at(f->table, p->at[0]);
        w2 = cf__bits_at(f->table, p->at[1]);
    }
    return (cf__zero_lanes(f, w1 ^ v) | cf__zero_lanes(f, w2 ^ v)) != 0;
}

/* Keys located (and their buckets prefetched) ahead of their test. */
#define CF__PIPE 48

/* How a batch tests its buckets: SWAR on byte-aligned buckets (offsets in
 * bytes), SWAR at bit offsets, or semi-sorted buckets. */
typedef enum { CF__PROBE_BYTES, CF__PROBE_BITS, CF__PROBE_SEMI } cf__probe_kind;

static inline bool cf__probe_any(const cf_filter *f, const cf__probe *p, cf__probe_kind kind) {
    return kind == CF__PROBE_SEMI ? cf__probe_semi(f, p)
                                  : cf__probe_swar(f, p, kind == CF__PROBE_BYTES);
}

/* A batch as a pipeline: while key k of a chunk is tested, key k of the next
 * chunk is located and prefetched into the slot it frees.  The filter's
 * fields are copied to a local, which stores through `out` cannot alias, so
 * they stay in registers; `kind` is a constant in each instance (below). */
static inline size_t cf__batch(const cf_filter *filter, const uint64_t *hashes, size_t n, bool *out,
                               cf__probe_kind kind) {
    const cf_filter local = *filter, *f = &local;
    bool bytes = kind == CF__PROBE_BYTES;
    cf__probe pipe[CF__PIPE];
    size_t found = 0;
    size_t base = 0;
    for (size_t k = 0; k < n && k < CF__PIPE; k++) cf__stage(f, &pipe[k], hashes[k], bytes);
    /* Whole chunks followed by another whole chunk: no bounds in the loop. */
    for (; base + 2 * CF__PIPE <= n; base += CF__PIPE) {
        for (size_t k = 0; k < CF__PIPE; k++) {
            bool hit = cf__probe_any(f, &pipe[k], kind);
            cf__stage(f, &pipe[k], hashes[base + CF__PIPE + k], bytes);
            found += hit;
            if (out != NULL) out[base + k] = hit;
        }
    }
    /* The last one or two chunks. */
    for (; base < n; base += CF__PIPE) {
        size_t m = n - base < CF__PIPE ? n - base : CF__PIPE;
        size_t next = base + CF__PIPE;
        size_t mn = next >= n ? 0 : (n - next < CF__PIPE ? n - next : CF__PIPE);
        for (size_t k = 0; k < m; k++) {
            bool hit = cf__probe_any(f, &pipe[k], kind);
            if (k < mn) cf__stage(f, &pipe[k], hashes[next + k], bytes);
            found += hit;
            if (out != NULL) out[base + k] = hit;
        }
    }
    return found;
}

#define CF__BATCH_INSTANCE(name, kind)                                               \
    static size_t name(const cf_filter *f, const uint64_t *h, size_t n, bool *out) { \
        return cf__batch(f, h, n, out, kind);                                        \
    }
CF__BATCH_INSTANCE(cf__batch_bytes, CF__PROBE_BYTES)
CF__BATCH_INSTANCE(cf__batch_bits, CF__PROBE_BITS)
CF__BATCH_INSTANCE(cf__batch_semi, CF__PROBE_SEMI)

size_t cf_contains_batch(const cf_filter *f, const uint64_t *hashes, size_t n, bool *out) {
    if (f == NULL || hashes == NULL) return 0;
    if (cf__special(f))
        return f->flags & CF_GROW ? cf__grow_contains_batch(f, hashes, n, out)
                                  : cf__cc_contains_batch(f, hashes, n, out);
    if (f->swar)
        return (f->bucket_bits % 8 == 0 ? cf__batch_bytes : cf__batch_bits)(f, hashes, n, out);
    if (f->semi_sort) return cf__batch_semi(f, hashes, n, out);
    size_t found = 0;
    cf__slots ring[CF__BATCH];
    cf__ring_fill(f, ring, hashes, n);
    for (size_t j = 0; j < n; j++) {
        bool hit = cf__contains_at(f, cf__ring_next(f, ring, hashes, n, j));
        found += hit;
        if (out != NULL) out[j] = hit;
    }
    return found;
}
