/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * kernel.h -- the writes of one bit-packed table, inlined where they are
 * used: insert (place, else evict.c's path search), delete (take) and count.
 *
 *   h ─► fp = fingerprint(h)        i1 = range(h, nb)      i2 = alt(i1, fp)
 *
 *   insert:  free slot in i1, else in i2, else evict.c's path search
 *            (a balanced table's: the bucket whose first free slot is earlier)
 *   delete:  clear one copy of fp, from i1 first, then i2
 *
 * An item may sit in either bucket after evictions, so delete and count look
 * at both.  When i1 == i2 (alt maps the bucket to itself) there is one bucket.
 * Lookups are bucket.h's cf__contains_at; batches are batch.c's.  These
 * work on one plain table: api/ops.c calls them for a plain filter, chain.c
 * for each table of a grown one, merge.c to add another table's contents.
 */
#ifndef CF_KERNEL_H
#define CF_KERNEL_H

#include "table/bucket.h"

/* SWAR layouts: stores fp in the first free slot of the bucket whose bits
 * start at p, if it has one.  Free lanes are zero lanes; bits above the
 * bucket's lanes cannot change the lowest set bit of z (borrows move up).
 * The word is written back whole to the address it was read from, so the
 * store's address does not depend on the bucket's contents: a store whose
 * address waits for a cache miss would hold back the next inserts' reads
 * (they cannot be ordered against it), and inserts would run one at a time. */
static inline bool cf__place_at(cf__table *f, cf__bitpos p, uint32_t fp) {
    uint64_t w = cf__load64le(p.at);
    uint64_t z = cf__zero_lanes(f, w >> p.shift);
    if (z == 0) return false;
    /* The lowest set bit of z is the top bit of the first free lane. */
    unsigned lane = (unsigned)__builtin_ctzll(z) + 1 - f->fp_bits;
    cf__store64le(p.at, w | ((uint64_t)fp << (p.shift + lane)));
    return true;
}

static inline bool cf__place_swar(cf__table *f, uint64_t bucket, uint32_t fp) {
    return cf__place_at(f, cf__bitpos_of(f->table, cf__bucket_bit(f, bucket)), fp);
}

/* Stores fp in the first free slot of i1, else of i2; false if both are
 * full.  For tables that are not balanced: a balanced one's inserts go to
 * cf__insert_balanced. */
static inline bool cf__place(cf__table *f, cf__slots p) {
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

/* Stores fp in bucket i1 or i2 (a free slot, else after the eviction
 * search) and counts it: CF_OK, or CF_E_FULL / CF_E_NOMEM with the table
 * unchanged and failed_inserts counting a CF_E_FULL.  Every insert of a
 * plain table, a grown filter's tables and a merge comes here.
 * It takes the slots as scalars, not as a cf__slots: a 24-byte struct
 * passed to a function that is not inlined goes through the stack, and the
 * callee's 16-byte reload of two 8-byte stores cannot be forwarded, so each
 * insert waited for the store buffer to drain, the previous insert's table
 * store (often a cache miss) included: inserts ran one at a time, 2.6x
 * slower at 2^25 buckets (issue 20). */
static inline cf_status cf__insert_slots(cf__table *f, uint64_t i1, uint64_t i2, uint32_t fp) {
    if (f->balance) return cf__insert_balanced(f, i1, i2, fp);
    cf__slots p = {i1, i2, fp};
    /* Reading bucket i1 decides whether i2 is needed; start i2's read now so
     * a full i1 does not cost a second memory round trip. */
    if (f->far) cf__prefetch_bucket(f, p.i2);
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

/* cf__insert_slots with every write reported to trace (cf_insert_traced):
 * the same choices (cf__fill_second's bucket, else the eviction path,
 * which cf__evict_insert_traced reports), so the table is the one an
 * untraced insert makes. */
static inline cf_status cf__insert_traced(cf__table *f, cf__slots p, cf__trace *trace) {
    uint64_t bucket = p.i1;
    int s = cf__bucket_find(f, p.i1, 0), s2 = cf__bucket_find(f, p.i2, 0);
    if (cf__fill_second(f, cf__rank_slot(s), cf__rank_slot(s2))) bucket = p.i2, s = s2;
    if (s >= 0) {
        cf__slot_set(f, bucket, (unsigned)s, p.fp);
        cf__trace_put(trace, CF_NO_BUCKET, 0, bucket, (unsigned)s, p.fp);
    } else {
        cf_status st = cf__evict_insert_traced(f, p.i1, p.i2, p.fp, trace);
        if (st != CF_OK) {
            f->failed_inserts += st == CF_E_FULL;
            return st;
        }
    }
    f->items++;
    return CF_OK;
}

/* Clears one copy of fp from i1, else from i2; false if neither holds it.
 * The layouts without SWAR (cf__take_k serves the others). */
static inline bool cf__take(cf__table *f, cf__slots p) {
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

/* The slow end of an insert whose two buckets are full: the eviction
 * search and the counting, out of line so that the kernels below keep
 * only the registers of the common case. */
__attribute__((noinline, unused)) static cf_status cf__insert_full(cf__table *f, uint64_t i1,
                                                                   uint64_t i2, uint32_t fp) {
    cf_status st = cf__evict_insert(f, i1, i2, fp);
    if (st != CF_OK) {
        f->failed_inserts += st == CF_E_FULL;
        return st;
    }
    f->items++;
    return CF_OK;
}

/* The second bucket of an insert kernel: its index, and where it starts. */
__attribute__((always_inline)) static inline uint64_t
cf__insert_k_alt(const cf__table *f, uint32_t fp, uint64_t i1, bool pow2) {
    return cf__alt_k(f, i1, cf__alt_point(f, fp), pow2);
}

__attribute__((always_inline)) static inline cf__bitpos
cf__insert_k_at(const cf__table *f, uint32_t fp, uint64_t i1, bool pow2, bool bytes) {
    uint64_t i2 = cf__insert_k_alt(f, fp, i1, pow2);
    return bytes ? (cf__bitpos){cf__bucket_at(f, i2), 0}
                 : cf__bitpos_of(f->table, cf__bucket_bit(f, i2));
}

/* Whether the insert kernels below carry a balanced table's insert inline,
 * or call cf__insert_balanced_hash: inline is faster where a table past the
 * caches waits on memory (with the calls, the extra instructions leave
 * fewer inserts in flight: at 201 MB, 1.04x first fit's time against
 * 0.87x inline); the call keeps the WebAssembly module within its size
 * budget (web/build.sh).  Either way the same slots are filled. */
#ifdef __EMSCRIPTEN__
#define CF__BALANCE_INLINE 0
#else
#define CF__BALANCE_INLINE 1
#endif

/* One insert kernel per addressing (CF__ADDR_*), as cf__contains_k is for
 * lookups: cf__insert_slots's choices (cf__fill_second's bucket, else the
 * eviction search) with the addresses computed without per-key tests of
 * f's shape.  A balanced table reads both buckets at once; another reads
 * i2 only when i1 is full. */
__attribute__((always_inline)) static inline cf_status cf__insert_k(cf__table *f, uint64_t h,
                                                                    bool pow2, bool bytes) {
    uint32_t fp = cf__fingerprint_masked(h, f->fp_mask);
    uint64_t i1 = cf__index1_k(f, h, pow2);
    cf__bitpos p1 = bytes ? (cf__bitpos){cf__bucket_at(f, i1), 0}
                          : cf__bitpos_of(f->table, cf__bucket_bit(f, i1));
    if (CF__BALANCE_INLINE && f->balance) {
        cf__bitpos p2 = cf__insert_k_at(f, fp, i1, pow2, bytes);
        uint64_t z1 = cf__zero_lanes(f, cf__load64le(p1.at) >> p1.shift);
        uint64_t z2 = cf__zero_lanes(f, cf__load64le(p2.at) >> p2.shift);
        if ((z1 | z2) == 0) return cf__insert_full(f, i1, cf__insert_k_alt(f, fp, i1, pow2), fp);
        cf__place_at(f, cf__fill_second(f, cf__rank_lanes(z1), cf__rank_lanes(z2)) ? p2 : p1, fp);
        f->items++;
        return CF_OK;
    }
    /* i2 is computed when it is needed: in a small table only when i1 is
     * full (fewer than 1 insert in 4 while it fills to 95%). */
    if (f->far) cf__prefetch_word(cf__insert_k_at(f, fp, i1, pow2, bytes).at);
    if (!cf__place_at(f, p1, fp) && !cf__place_at(f, cf__insert_k_at(f, fp, i1, pow2, bytes), fp))
        return cf__insert_full(f, i1, cf__insert_k_alt(f, fp, i1, pow2), fp);
    f->items++;
    return CF_OK;
}

/* cf__insert_slots for buckets that start on a byte (CF__ADDR_BYTES and
 * CF__ADDR_POW2_BYTES), for callers that located them already and started
 * their reads (the batch pipeline). */
static inline cf_status cf__insert_slots_bytes(cf__table *f, uint64_t i1, uint64_t i2,
                                               uint32_t fp) {
    if (f->balance) return cf__insert_balanced(f, i1, i2, fp);
    if (!cf__place_at(f, (cf__bitpos){cf__bucket_at(f, i1), 0}, fp) &&
        !cf__place_at(f, (cf__bitpos){cf__bucket_at(f, i2), 0}, fp))
        return cf__insert_full(f, i1, i2, fp);
    f->items++;
    return CF_OK;
}

/* The inserts of the layouts whose buckets do not start on a byte (and
 * those without SWAR), out of line, as cf__take_bits_hashed is for
 * deletes. */
__attribute__((noinline, unused)) static cf_status cf__insert_bits_hashed(cf__table *f,
                                                                          uint64_t h) {
    if (f->addr == CF__ADDR_BITS) return cf__insert_k(f, h, false, false);
    if (f->addr == CF__ADDR_POW2_BITS) return cf__insert_k(f, h, true, false);
    cf__slots p = cf__locate(f, h);
    return cf__insert_slots(f, p.i1, p.i2, p.fp);
}

/* Inserts h at its buckets: the kernel of f's addressing, byte-aligned
 * buckets (the commonest) inlined. */
static inline cf_status cf__table_insert(cf__table *f, uint64_t h) {
    if (!CF__BALANCE_INLINE && f->balance) return cf__insert_balanced_hash(f, h);
    if (f->addr == CF__ADDR_BYTES) return cf__insert_k(f, h, false, true);
    if (f->addr == CF__ADDR_POW2_BYTES) return cf__insert_k(f, h, true, true);
    return cf__insert_bits_hashed(f, h);
}

/* One delete kernel per addressing (CF__ADDR_*), as cf__contains_k is for
 * lookups: the addresses computed without per-key tests of f's shape, and
 * both buckets read before either is searched, so a delete costs one memory
 * round trip whichever bucket holds its copy.  A copy in i1 is taken first
 * (cf__take's order, which files' contents depend on).  Nothing is stored
 * before both words are read, so i2's word is what the table held even
 * when it overlaps i1's (adjacent buckets, or i1 == i2). */
__attribute__((always_inline)) static inline bool cf__take_k(cf__table *f, uint64_t h, bool pow2,
                                                             bool bytes) {
    uint32_t fp = cf__fingerprint_masked(h, f->fp_mask);
    uint64_t m = cf__alt_point(f, fp), i1 = cf__index1_k(f, h, pow2),
             i2 = cf__alt_k(f, i1, m, pow2);
    cf__bitpos p1, p2;
    if (bytes) {
        p1 = (cf__bitpos){cf__bucket_at(f, i1), 0};
        p2 = (cf__bitpos){cf__bucket_at(f, i2), 0};
    } else {
        p1 = cf__bitpos_of(f->table, cf__bucket_bit(f, i1));
        p2 = cf__bitpos_of(f->table, cf__bucket_bit(f, i2));
    }
    uint64_t w1 = cf__load64le(p1.at), w2 = cf__load64le(p2.at), v = f->lane_ones * fp;
    /* The lowest set bit of z is the top bit of the first matching lane;
     * bits above the bucket's lanes cannot change it (borrows move up). */
    uint64_t z = cf__zero_lanes(f, (w1 >> p1.shift) ^ v);
    if (z == 0) {
        z = cf__zero_lanes(f, (w2 >> p2.shift) ^ v);
        if (z == 0) return false;
        p1 = p2;
        w1 = w2;
    }
    unsigned lane = (unsigned)__builtin_ctzll(z) + 1 - f->fp_bits;
    cf__store64le(p1.at, w1 & ~(f->fp_mask << (p1.shift + lane)));
    return true;
}

/* The deletes of the layouts whose buckets do not start on a byte (and
 * those without SWAR), out of line: inlined beside the byte-aligned
 * kernels, their registers made every delete save and restore six. */
__attribute__((noinline, unused)) static bool cf__take_bits_hashed(cf__table *f, uint64_t h) {
    if (f->addr == CF__ADDR_BITS) return cf__take_k(f, h, false, false);
    if (f->addr == CF__ADDR_POW2_BITS) return cf__take_k(f, h, true, false);
    cf__slots p = cf__locate(f, h);
    if (f->far) cf__prefetch_bucket(f, p.i2); /* as for inserts */
    return cf__take(f, p);
}

/* Clears one copy of h's fingerprint, from i1 first: the kernel of f's
 * addressing, byte-aligned buckets (the commonest) inlined. */
static inline bool cf__take_hashed(cf__table *f, uint64_t h) {
    if (f->addr == CF__ADDR_BYTES) return cf__take_k(f, h, false, true);
    if (f->addr == CF__ADDR_POW2_BYTES) return cf__take_k(f, h, true, true);
    return cf__take_bits_hashed(f, h);
}

/* Removes one copy of h's fingerprint: CF_OK or CF_E_NOT_FOUND. */
static inline cf_status cf__table_delete(cf__table *f, uint64_t h) {
    if (!cf__take_hashed(f, h)) return CF_E_NOT_FOUND;
    f->items--;
    return CF_OK;
}

/* Copies of h's fingerprint in its buckets (an upper bound on h's count). */
static inline size_t cf__table_count(const cf__table *f, uint64_t h) {
    cf__slots p = cf__locate(f, h);
    size_t n = cf__bucket_count(f, p.i1, p.fp);
    if (p.i2 != p.i1) n += cf__bucket_count(f, p.i2, p.fp);
    return n;
}

#endif /* CF_KERNEL_H */
