/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * batch.c -- many hashes against one table: located and prefetched ahead of
 * their probes, so that the memory reads of many keys overlap.
 */
#include "table/batch.h"
#include "table/batch_x86.h"

/* Keys hashed and prefetched ahead of the probes: enough to keep the
 * memory system's ~30 outstanding misses per core busy, small enough to
 * stay in registers and L1. */
#define CF__BATCH 16

static inline void cf__prefetch_slots(const cf__table *f, cf__slots p) {
    cf__prefetch_bucket(f, p.i1);
    cf__prefetch_bucket(f, p.i2);
}

/* Batches run a ring of located keys: key j is located, and its buckets
 * prefetched, CF__BATCH keys before it is probed, so reads overlap. */
static inline void cf__ring_fill(const cf__table *f, cf__slots *ring, const uint64_t *hashes,
                                 size_t n) {
    for (size_t j = 0; j < n && j < CF__BATCH; j++) {
        ring[j] = cf__locate(f, hashes[j]);
        cf__prefetch_slots(f, ring[j]);
    }
}

static inline cf__slots cf__ring_next(const cf__table *f, cf__slots *ring, const uint64_t *hashes,
                                      size_t n, size_t j) {
    cf__slots p = ring[j % CF__BATCH];
    if (j + CF__BATCH < n) {
        ring[j % CF__BATCH] = cf__locate(f, hashes[j + CF__BATCH]);
        cf__prefetch_slots(f, ring[j % CF__BATCH]);
    }
    return p;
}

/* A located key of a batch: where its buckets start (byte offsets when
 * every bucket starts on a byte, else bit offsets) and its fingerprint. */
typedef struct cf__probe {
    uint64_t at[2];
    uint32_t fp;
} cf__probe;

static inline void cf__stage(const cf__table *f, cf__probe *p, uint64_t h, bool bytes) {
    cf__slots s = cf__locate(f, h);
    uint64_t step = bytes ? f->bucket_bits / 8 : f->bucket_bits;
    p->at[0] = s.i1 * step;
    p->at[1] = s.i2 * step;
    p->fp = s.fp;
    cf__prefetch_word(bytes ? f->table + p->at[0] : cf__bitpos_of(f->table, p->at[0]).at);
    cf__prefetch_word(bytes ? f->table + p->at[1] : cf__bitpos_of(f->table, p->at[1]).at);
}

static inline bool cf__probe_semi(const cf__table *f, const cf__probe *p) {
    uint64_t w1 = cf__bits_at(f->table, p->at[0]), w2 = cf__bits_at(f->table, p->at[1]);
    return cf__semisort_find_word(f, w1, p->fp) >= 0 || cf__semisort_find_word(f, w2, p->fp) >= 0;
}

/* Lanes above the bucket hold the next bucket's bits; a borrow never moves
 * down, and lane_highs covers the bucket's own lanes only, so no mask.
 * `keep` masks each lane to the bits compared: all of them in a plain
 * table (a constant, folded away), the fingerprint without its stamp in an
 * expiring one, whose lanes' top bits are stamp bits and so are zero after
 * the mask, where a zero lane's borrow lands. */
static inline bool cf__probe_swar(const cf__table *f, const cf__probe *p, bool bytes,
                                  uint64_t keep) {
    uint64_t v = f->lane_ones * p->fp, w1, w2;
    if (bytes) {
        w1 = cf__load64le(f->table + p->at[0]);
        w2 = cf__load64le(f->table + p->at[1]);
    } else {
        w1 = cf__bits_at(f->table, p->at[0]);
        w2 = cf__bits_at(f->table, p->at[1]);
    }
    return (cf__zero_lanes(f, (w1 ^ v) & keep) | cf__zero_lanes(f, (w2 ^ v) & keep)) != 0;
}

/* Keys located (and their buckets prefetched) ahead of their test. */
#define CF__PIPE 48

/* How a batch tests its buckets: SWAR on byte-aligned buckets (offsets in
 * bytes), SWAR at bit offsets, or semi-sorted buckets. */
typedef enum { CF__PROBE_BYTES, CF__PROBE_BITS, CF__PROBE_SEMI } cf__probe_kind;

static inline bool cf__probe_any(const cf__table *f, const cf__probe *p, cf__probe_kind kind,
                                 uint64_t keep) {
    return kind == CF__PROBE_SEMI ? cf__probe_semi(f, p)
                                  : cf__probe_swar(f, p, kind == CF__PROBE_BYTES, keep);
}

/* A batch as a pipeline: while key k of a chunk is tested, key k of the next
 * chunk is located and prefetched into the slot it frees.  The filter's
 * fields are copied to a local, which stores through `out` cannot alias, so
 * they stay in registers; `kind` is a constant in each instance (below).
 * Natively each instance is compiled with its constants folded in (the
 * plain tables' `keep` of all ones costs nothing there); the WebAssembly
 * module, whose size is budgeted (web/build.sh), shares one copy as the
 * compiler chooses: forced inline, its five copies cost it 2.4 KB. */
#if defined(__wasm__)
#define CF__BATCH_INLINE inline
#else
#define CF__BATCH_INLINE __attribute__((always_inline)) inline
#endif

static CF__BATCH_INLINE size_t cf__batch(const cf__table *filter, const uint64_t *hashes, size_t n,
                                         bool *out, cf__probe_kind kind, uint64_t fp_mask,
                                         uint64_t keep) {
    cf__table local = *filter;
    local.fp_mask = fp_mask; /* what cf__locate takes as the fingerprint */
    const cf__table *f = &local;
    bool bytes = kind == CF__PROBE_BYTES;
    cf__probe pipe[CF__PIPE];
    size_t found = 0;
    size_t base = 0;
    for (size_t k = 0; k < n && k < CF__PIPE; k++) cf__stage(f, &pipe[k], hashes[k], bytes);
    /* Whole chunks followed by another whole chunk: no bounds in the loop. */
    for (; base + 2 * CF__PIPE <= n; base += CF__PIPE) {
        for (size_t k = 0; k < CF__PIPE; k++) {
            bool hit = cf__probe_any(f, &pipe[k], kind, keep);
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
            bool hit = cf__probe_any(f, &pipe[k], kind, keep);
            if (k < mn) cf__stage(f, &pipe[k], hashes[next + k], bytes);
            found += hit;
            if (out != NULL) out[base + k] = hit;
        }
    }
    return found;
}

/* Byte-aligned one-word buckets: eight or four keys at a time where the
 * CPU has AVX-512 or AVX2 (batch_x86.c; the last keys of a block here),
 * else the pipeline above. */
static size_t cf__batch_bytes(const cf__table *f, const uint64_t *hashes, size_t n, bool *out,
                              uint64_t fp_mask, uint64_t keep) {
#if CF__HAVE_BATCH_X86
    unsigned width = n >= 4 ? cf__batch_x86_width(f) : 0;
    if (width != 0) {
        size_t wide = n - n % width;
        size_t found = cf__batch_x86(f, width, hashes, wide, out, fp_mask, keep);
        return found + cf__batch(f, hashes + wide, n - wide, out != NULL ? out + wide : NULL,
                                 CF__PROBE_BYTES, fp_mask, keep);
    }
#endif
    return cf__batch(f, hashes, n, out, CF__PROBE_BYTES, fp_mask, keep);
}

#define CF__BATCH_INSTANCE(name, kind)                                               \
    static size_t name(const cf__table *f, const uint64_t *h, size_t n, bool *out) { \
        return cf__batch(f, h, n, out, kind, f->fp_mask, ~(uint64_t)0);              \
    }
CF__BATCH_INSTANCE(cf__batch_bits, CF__PROBE_BITS)
CF__BATCH_INSTANCE(cf__batch_semi, CF__PROBE_SEMI)

size_t cf__table_contains_batch_lanes(const cf__table *f, const uint64_t *hashes, size_t n,
                                      bool *out, uint64_t fp_mask, uint64_t keep) {
    if (f->bucket_bits % 8 == 0) return cf__batch_bytes(f, hashes, n, out, fp_mask, keep);
    return cf__batch(f, hashes, n, out, CF__PROBE_BITS, fp_mask, keep);
}

size_t cf__table_contains_batch(const cf__table *f, const uint64_t *hashes, size_t n, bool *out) {
    if (f->swar) {
        if (f->bucket_bits % 8 == 0)
            return cf__batch_bytes(f, hashes, n, out, f->fp_mask, ~(uint64_t)0);
        return cf__batch_bits(f, hashes, n, out);
    }
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

/* The first level of the eviction search that the insert of p will likely
 * run, read ahead: if both of p's buckets are full now, the other buckets
 * of their slots' fingerprints (the children cf__bfs_search computes
 * first) are prefetched.  p's buckets were prefetched CF__PEEK keys ago;
 * the table may change before p's insert, which only makes a prefetch
 * useless. */
static inline void cf__prefetch_children(const cf__table *f, cf__slots p) {
    uint64_t w[2] = {cf__load64le(cf__bucket_at(f, p.i1)), cf__load64le(cf__bucket_at(f, p.i2))};
    if (cf__zero_lanes(f, w[0]) != 0 || cf__zero_lanes(f, w[1]) != 0) return;
    for (int r = 0; r < 2; r++) {
        uint32_t fp[CF_MAX_BUCKET_SIZE];
        cf__word_read(f, w[r], fp);
        for (unsigned s = 0; s < f->bucket_size; s++)
            cf__prefetch_bucket(f, cf__alt_index(f, r == 0 ? p.i1 : p.i2, fp[s]));
    }
}

/* Keys between a key's buckets' prefetch and the peek at them for its
 * eviction search: half the ring. */
#define CF__PEEK (CF__BATCH / 2)

/* In a far table of byte-aligned buckets, each insert's eviction search's
 * first level is prefetched CF__PEEK keys ahead (cf__prefetch_children). */
cf_status cf__table_insert_batch(cf__table *f, const uint64_t *hashes, size_t n, size_t *inserted) {
    cf__slots ring[CF__BATCH];
    bool bytes = f->addr == CF__ADDR_BYTES || f->addr == CF__ADDR_POW2_BYTES;
    bool peek = bytes && f->far;
    cf__ring_fill(f, ring, hashes, n);
    for (size_t j = 0; j < n; j++) {
        if (peek && j + CF__PEEK < n) cf__prefetch_children(f, ring[(j + CF__PEEK) % CF__BATCH]);
        cf__slots p = cf__ring_next(f, ring, hashes, n, j);
        cf_status s = bytes ? cf__insert_slots_bytes(f, p.i1, p.i2, p.fp)
                            : cf__insert_slots(f, p.i1, p.i2, p.fp);
        if (s != CF_OK) return s;
        if (inserted != NULL) *inserted = j + 1;
    }
    return CF_OK;
}
