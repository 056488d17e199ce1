/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * inplace.h -- CF_GROW with CF_GROWTH_INPLACE: one table that doubles
 * in place, so a lookup reads two buckets however much the filter grew.
 *
 * The key's 64-bit hash h is read as an "infinite index" X = h, from the
 * top down, and a tag t = the low T bits of h:
 *
 *   X:  [ bucket index: top k bits | e: the next E bits | ...    | t ]
 *        bit 63                                                  bit 0
 *
 *   i1 = X >> (64 - k)            nb = 2^k buckets of 4 slots of W bits
 *   i2 = (X ^ H(t)) >> (64 - k)   H = a fixed 64-bit mix of t alone, so an
 *                                 entry moves to its other bucket without
 *                                 its key, and alt(alt(i)) = i (xor)
 *
 * A slot holds a variable-length fingerprint: t, then the bits of the
 * entry's current infinite index that follow its bucket's k bits (e, next
 * bit first), then a marker bit 1, then zeros:
 *
 *   slot (W bits):  [ t (T bits) | e_0 e_1 ... e_(len_e - 1) | 1 | 0 ... 0 ]
 *                    bit W-1                                       bit 0
 *
 * An empty slot is 0.  A new entry has len_e = E = W - 1 - T, so the
 * marker is bit 0 and the fingerprint is W - 1 bits long.  A lookup
 * compares, in each slot, the bits above the marker with the same bits of
 * its own full-length string for that bucket (t, then the E bits of X for
 * i1, of X ^ H(t) for i2, after the top k): a shorter entry is a prefix;
 * all slots of both buckets at once (SSE2 lanes, or SWAR in 64-bit words
 * without SIMD: the marker is the lowest set bit, v ^ (v - 1) masks it and
 * the bits below, lane by lane).
 *
 * Doubling (k -> k + 1): bucket i becomes buckets 2i and 2i + 1; an entry
 * goes to 2i + e_0, and the bits below t shift up by one (e_0 leaves, the
 * marker moves up: one fingerprint bit less).  Processed from the top bucket down
 * after the allocation grew, every bucket is read before it is written.
 * An entry whose e is used up (len_e = 0, after E doublings) cannot tell
 * its half: it is copied into both (as the Aleph filter's void entries),
 * keeping t, so it is never lost; the copy in the wrong half is only a
 * possible false positive.  Moving an entry to its other bucket xors its e
 * with the bits of H(t) after the top k.
 *
 * FPP.  An absent key matches an entry of fingerprint length len with
 * probability 2^-len.  With S = sum over entries of 2^-len, a lookup reads
 * two random buckets and its FPP is at most 2S / nb.  A doubling doubles
 * every entry's 2^-len (one bit less), or duplicates it (used up), so S
 * doubles with nb and the FPP stays where it was; each insert adds
 * 2^-(W-1) to S.  A first table filled to all 4 nb0 slots gives 2S/nb =
 * 8 * 2^-(W-1) = 16 / 2^W; each later generation fills the 2 nb slots a
 * doubling freed and adds 2 * 2nb * 2^-(W-1) / nb = 8 / 2^W.  After G
 * doublings the FPP at full load is at most (16 + 8G) / 2^W (old items are
 * geometrically fewer, so each generation adds the same amount): with
 * W = 15, 0.024% per doubling, 0.54% after 20; with W = 32, 4e-9 per
 * doubling.  The filter keeps S exactly (`weight`, in units of 2^-(W-1)),
 * reports 2S / nb as expected_fpp, and refuses a doubling after which the
 * table, filled, could pass target_fpp.  The slot width is the smallest of
 * 15, 16 and 32 in which 20 doublings fit: 15 bits when target_fpp >=
 * (16 + 160) / 2^15 = 0.54%, 16 from 0.27%.
 *
 * Slots.  W = 16 and 32 give buckets of one and two aligned 64-bit words;
 * W = 15 packs a bucket in 60 bits at bit 60 i, read with one unaligned
 * 64-bit load (byte 7.5 i, shifted by 0 or 4): 6% less memory than 16
 * bits wherever 20 doublings still fit.
 *
 * Memory.  nb * 4 * W bits: at a load between 47.5% (after a doubling) and
 * 95%, W / load bits per item.  A doubling grows the one allocation
 * (cf__realloc: the allocator's realloc; glibc's moves large blocks with
 * mremap), so no second table exists beside it; a doubled table of CF__HUGE_MIN bytes or
 * more from the default allocator is advised to use huge pages, as
 * cf__table_alloc does for every table.
 *
 * Deletes remove the LONGEST matching entry among the key's two buckets:
 * if it belongs to another item y, y's string agrees with the key's on
 * its whole length, so the key's own (shorter or equal) entry matches y
 * and y stays findable.
 */
#ifndef CF_INPLACE_H
#define CF_INPLACE_H

#include "kind/kind_ops.h"

#define CF__INPLACE_SLOTS 4u
/* Tag bits: the partner map has 2^T offsets.  XOR maps with 64 offsets fill
 * a four-slot table to ~96% (docs: PERFORMANCE.md, "Partner maps"). */
#define CF__INPLACE_TAG_NARROW 6u /* W = 15 and 16 */
#define CF__INPLACE_TAG32 8u
/* Doublings a slot width must hold within target_fpp to be chosen. */
#define CF__INPLACE_DESIGN_DOUBLINGS 20u

#define CF__INPLACE_ONES15 0x0000200040008001ull
#define CF__INPLACE_HIGHS15 0x0800100020004000ull
#define CF__INPLACE_MASK60 0x0fffffffffffffffull
#define CF__INPLACE_ONES16 0x0001000100010001ull
#define CF__INPLACE_HIGHS16 0x8000800080008000ull
#define CF__INPLACE_ONES32 0x0000000100000001ull
#define CF__INPLACE_HIGHS32 0x8000000080000000ull

typedef struct cf__inplace {
    unsigned level;     /* k: nb = 2^k, 1 <= k <= max_level                  */
    unsigned w;         /* slot width W: 15, 16 or 32                       */
    unsigned tag_bits;  /* T                                                */
    unsigned max_level; /* 65 - W: X's top k + E bits stay clear of t       */
    uint64_t entries;   /* nonzero slots (items plus used-up copies)        */
    uint64_t weight;    /* S in units of 2^-(W-1): sum of 2^(W-1-len)        */
    uint64_t doublings; /* since creation                                    */
    uint64_t max_bytes; /* limit on table_bytes; 0 = none                    */
    double target_fpp;  /* no doubling may let the full-load FPP pass it     */
    uint64_t full;      /* entries from which an insert whose two buckets are
                           full doubles at once instead of searching for an
                           eviction path: max_load of the slots (the last few
                           percent cost long searches)                       */
} cf__inplace;

/* The growth state of a CF__INPLACE handle (its state). */
static inline cf__inplace *cf__inplace_of(const cf_filter *f) {
    return (cf__inplace *)f->state;
}

/* The partner offset of tag t: two multiplications and an xor-shift, so
 * that the top k bits of the 64 offsets are spread for every k. */
static inline uint64_t cf__inplace_mix(uint64_t t) {
    uint64_t m = (t + 1) * CF__GOLDEN;
    m ^= m >> 29;
    return m * CF__GOLDEN;
}

/* The top bit of every nonzero lane of x, exactly. */
static inline uint64_t cf__inplace_nonzero(uint64_t x, uint64_t highs) {
    uint64_t lows = ~highs;
    return (((x & lows) + lows) | x) & highs;
}

/* A key's query string in one lane for the bucket whose infinite index is
 * x (h for i1, h ^ H(t) for i2) at level k: t, then E bits of x after the
 * top k, then a 0 where a full-length entry has its marker. */
static inline uint64_t cf__inplace_query(uint64_t x, unsigned k, uint64_t t, unsigned w,
                                         unsigned tb) {
    unsigned e = w - 1 - tb;
    return (t << (w - tb)) | (((x << k) >> (64 - e)) << 1);
}

/* Where a hash goes: its buckets and the query string for each. */
typedef struct cf__inplace_loc {
    uint64_t i1, i2, q1, q2; /* q: one lane, not broadcast */
} cf__inplace_loc;

/* With w and tb constants in each caller (cf__inplace_locate picks the pair). */
static inline cf__inplace_loc cf__inplace_locate_w(uint64_t h, unsigned k, unsigned w,
                                                   unsigned tb) {
    uint64_t t = h & (((uint64_t)1 << tb) - 1), x2 = h ^ cf__inplace_mix(t);
    cf__inplace_loc l = {h >> (64 - k), x2 >> (64 - k), cf__inplace_query(h, k, t, w, tb),
                         cf__inplace_query(x2, k, t, w, tb)};
    return l;
}

static inline cf__inplace_loc cf__inplace_locate(const cf__inplace *ip, uint64_t h) {
    if (ip->w == 15) return cf__inplace_locate_w(h, ip->level, 15, CF__INPLACE_TAG_NARROW);
    if (ip->w == 16) return cf__inplace_locate_w(h, ip->level, 16, CF__INPLACE_TAG_NARROW);
    return cf__inplace_locate_w(h, ip->level, 32, CF__INPLACE_TAG32);
}

/* The first bit of bucket i: buckets are 4 W bits, packed. */
static inline uint64_t cf__inplace_bucket_bit(unsigned w, uint64_t i) {
    return i * (CF__INPLACE_SLOTS * w);
}

/* Bytes of a table of nb >= 2 buckets (a power of two): 4 W bits each.
 * Callers check first that the product fits their size_t budget. */
static inline uint64_t cf__inplace_table_bytes(unsigned w, uint64_t nb) {
    return nb / 2 * w;
}

/* T for slot width W. */
static inline unsigned cf__inplace_tag_bits(unsigned w) {
    return w == 32 ? CF__INPLACE_TAG32 : CF__INPLACE_TAG_NARROW;
}

/* Slot s of bucket i of f's table (any W: a load at its byte and a shift
 * of at most 7 hold it, w <= 32). */
static inline uint64_t cf__inplace_get(const cf_filter *f, uint64_t i, unsigned s) {
    unsigned w = cf__inplace_of(f)->w;
    uint64_t v = cf__bits_at(f->t.table, cf__inplace_bucket_bit(w, i) + s * w);
    return v & (((uint64_t)1 << w) - 1);
}

/* A narrow bucket (W = 15 or 16, one word): its lane tops and the mask of
 * its bits in the word it is read from (60 of 64 for W = 15). */
static inline uint64_t cf__inplace_highs(unsigned w) {
    return w == 15 ? CF__INPLACE_HIGHS15 : CF__INPLACE_HIGHS16;
}

static inline uint64_t cf__inplace_bucket_mask(unsigned w) {
    return w == 15 ? CF__INPLACE_MASK60 : ~(uint64_t)0;
}

/* Narrow bucket i as one word, its lanes in the low 4 W bits: an aligned
 * load for W = 16 (the compilers keep the byte shift of the general read:
 * 5 instructions a lookup), a load, a shift and a mask for W = 15. */
__attribute__((always_inline)) static inline uint64_t
cf__inplace_narrow_word(const uint8_t *table, uint64_t i, unsigned w) {
    if (w == 16) return cf__load64le(table + i * 8);
    return cf__bits_at(table, cf__inplace_bucket_bit(w, i)) & cf__inplace_bucket_mask(w);
}

/* The two-bucket probe: cf__inplace_probe_narrow (W = 15 or 16, w a constant in
 * each instance) and cf__inplace_probe32.  A lane matches when it is nonzero
 * and agrees with the query above its marker (the lowest set bit):
 * v != 0 and ((v ^ q) & ~(v ^ (v - 1))) == 0, as cf__inplace_lane_matches
 * (inplace.c) tests one slot.
 *
 * Why SIMD: at DRAM latency a lookup's time is set by how many lookups
 * have their loads in flight at once, and the operations that wait on a
 * load fill the core's scheduler; the fewer there are, the more lookups
 * overlap.  With SSE2 (every x86-64 compiler's default; -DCF_NO_SIMD, the
 * CMake option CF_NO_SIMD, builds the scalar code, and CI tests both) the
 * two buckets share one register of 16-bit lanes (two of 32-bit lanes for
 * W = 32), where the lane arithmetic needs no fences against carries:
 * about 20 operations wait on the loads where the scalar code has ~45
 * (W = 15) or ~60 (W = 32).  docs/BENCHMARKS.md, "In-place lookups". */
#if defined(__SSE2__) && defined(__x86_64__) && !defined(CF_NO_SIMD)
#include <emmintrin.h>

/* Two 64-bit words as one register, lo in the low half (moved from
 * general registers: through memory, gcc's two stores and a 16-byte load
 * would stall the load). */
static inline __m128i cf__inplace_pair(uint64_t lo, uint64_t hi) {
    return _mm_unpacklo_epi64(_mm_cvtsi64_si128((long long)lo), _mm_cvtsi64_si128((long long)hi));
}

/* The 8 bytes at p as the low half of a register. */
static inline __m128i cf__inplace_load8(const uint8_t *p) {
    return _mm_loadl_epi64((const __m128i *)(const void *)p);
}

/* 16-bit lanes of v matching the query lanes q: all ones where they do. */
static inline __m128i cf__inplace_match16(__m128i v, __m128i q) {
    __m128i zero = _mm_setzero_si128();
    __m128i vm1 = _mm_sub_epi16(v, _mm_set1_epi16(1));
    __m128i d = _mm_andnot_si128(_mm_xor_si128(v, vm1), _mm_xor_si128(v, q));
    return _mm_andnot_si128(_mm_cmpeq_epi16(v, zero), _mm_cmpeq_epi16(d, zero));
}

static inline __m128i cf__inplace_match32(__m128i v, __m128i q) {
    __m128i zero = _mm_setzero_si128();
    __m128i vm1 = _mm_sub_epi32(v, _mm_set1_epi32(1));
    __m128i d = _mm_andnot_si128(_mm_xor_si128(v, vm1), _mm_xor_si128(v, q));
    return _mm_andnot_si128(_mm_cmpeq_epi32(v, zero), _mm_cmpeq_epi32(d, zero));
}

/* A 60-bit bucket's lanes spread to 16 bits: lane s is bits 15 s ..
 * 15 s + 14 of the word, which start s bits into the word's 16-bit chunk
 * c_s, so lane s = (c_s << s | c_(s-1) >> (16 - s)) & 0x7fff: the low half
 * of c_s * 2^s or-ed with the high half of c_(s-1) * 2^s (the register
 * shifted up one chunk; chunk 0 of a bucket gets the other bucket's chunk
 * 3 times 1, whose high half is 0).  The bits above the bucket fall out
 * of lane 3's mask. */
static inline __m128i cf__inplace_spread15(__m128i c) {
    const __m128i pow = _mm_set_epi16(8, 4, 2, 1, 8, 4, 2, 1);
    __m128i up = _mm_mulhi_epu16(_mm_slli_si128(c, 2), pow);
    return _mm_and_si128(_mm_or_si128(_mm_mullo_epi16(c, pow), up), _mm_set1_epi16(0x7fff));
}

__attribute__((always_inline)) static inline bool
cf__inplace_probe_narrow(const uint8_t *table, cf__inplace_loc l, unsigned w) {
    __m128i v;
    if (w == 16) {
        v = _mm_unpacklo_epi64(cf__inplace_load8(table + l.i1 * 8),
                               cf__inplace_load8(table + l.i2 * 8));
    } else {
        v = cf__inplace_spread15(
            cf__inplace_pair(cf__bits_at(table, cf__inplace_bucket_bit(w, l.i1)),
                             cf__bits_at(table, cf__inplace_bucket_bit(w, l.i2))));
    }
    __m128i q = cf__inplace_pair(l.q1 * CF__INPLACE_ONES16, l.q2 * CF__INPLACE_ONES16);
    return _mm_movemask_epi8(cf__inplace_match16(v, q)) != 0;
}

static inline bool cf__inplace_probe32(const uint8_t *table, cf__inplace_loc l) {
    __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(table + l.i1 * 16));
    __m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(table + l.i2 * 16));
    __m128i q1 = cf__inplace_pair(l.q1 * CF__INPLACE_ONES32, l.q1 * CF__INPLACE_ONES32);
    __m128i q2 = cf__inplace_pair(l.q2 * CF__INPLACE_ONES32, l.q2 * CF__INPLACE_ONES32);
    return _mm_movemask_epi8(
               _mm_or_si128(cf__inplace_match32(v1, q1), cf__inplace_match32(v2, q2))) != 0;
}

#else /* scalar: lanes in 64-bit words (SWAR) */

static inline uint64_t cf__inplace_ones(unsigned w) {
    return w == 15 ? CF__INPLACE_ONES15 : CF__INPLACE_ONES16;
}

/* Nonzero when some lane of w holds an entry matching the query string q
 * (the same string in every lane; bits at and below a lane's marker are
 * ignored).  Lane by lane (no borrow crosses lanes): w - 1 flips the
 * marker and the zeros under it, so w ^ (w - 1) masks exactly those bits;
 * an empty lane (0) becomes all ones with its top bit newly set, which
 * marks it as a mismatch; then a lane of d that is zero is a match, and
 * the classic has-a-zero-lane test (exact as to whether one exists) ends
 * it: 14 operations per bucket word.  Bits above the lanes (the top 4 of a
 * 60-bit bucket) must be zero; no lane's top is there, so a borrow into
 * them changes nothing. */
static inline uint64_t cf__inplace_match(uint64_t w, uint64_t q, uint64_t ones, uint64_t highs) {
    uint64_t wm1 = ((w | highs) - ones) ^ (~w & highs);
    uint64_t empty = wm1 & ~w & highs;
    uint64_t d = ((w ^ q) & ~(w ^ wm1)) | empty;
    return (d - ones) & ~d & highs;
}

/* Both buckets' words are read before either is tested. */
__attribute__((always_inline)) static inline bool
cf__inplace_probe_narrow(const uint8_t *table, cf__inplace_loc l, unsigned w) {
    uint64_t ones = cf__inplace_ones(w), highs = cf__inplace_highs(w);
    uint64_t w1 = cf__inplace_narrow_word(table, l.i1, w),
             w2 = cf__inplace_narrow_word(table, l.i2, w);
    uint64_t m1 = cf__inplace_match(w1, l.q1 * ones, ones, highs);
    uint64_t m2 = cf__inplace_match(w2, l.q2 * ones, ones, highs);
    return (m1 | m2) != 0;
}

static inline bool cf__inplace_probe32(const uint8_t *table, cf__inplace_loc l) {
    const uint8_t *b1 = table + l.i1 * 16, *b2 = table + l.i2 * 16;
    uint64_t a1 = cf__load64le(b1), c1 = cf__load64le(b1 + 8);
    uint64_t a2 = cf__load64le(b2), c2 = cf__load64le(b2 + 8);
    uint64_t q1 = l.q1 * CF__INPLACE_ONES32, q2 = l.q2 * CF__INPLACE_ONES32;
    uint64_t m = cf__inplace_match(a1, q1, CF__INPLACE_ONES32, CF__INPLACE_HIGHS32) |
                 cf__inplace_match(c1, q1, CF__INPLACE_ONES32, CF__INPLACE_HIGHS32) |
                 cf__inplace_match(a2, q2, CF__INPLACE_ONES32, CF__INPLACE_HIGHS32) |
                 cf__inplace_match(c2, q2, CF__INPLACE_ONES32, CF__INPLACE_HIGHS32);
    return m != 0;
}

#endif /* SSE2 */

static inline bool cf__inplace_contains_hash(const cf_filter *f, uint64_t h) {
    const cf__inplace *ip = cf__inplace_of(f);
    if (ip->w == 15)
        return cf__inplace_probe_narrow(
            f->t.table, cf__inplace_locate_w(h, ip->level, 15, CF__INPLACE_TAG_NARROW), 15);
    if (ip->w == 16)
        return cf__inplace_probe_narrow(
            f->t.table, cf__inplace_locate_w(h, ip->level, 16, CF__INPLACE_TAG_NARROW), 16);
    return cf__inplace_probe32(f->t.table,
                               cf__inplace_locate_w(h, ip->level, 32, CF__INPLACE_TAG32));
}

/* Tables past 1 MiB (a core's L2 here): a bucket's miss is worth starting
 * early.  The plain kernels' limit, cf__table.far, is 2 MiB (CF__NEAR_BYTES,
 * which an in-place table would outgrow as it doubles), but this kind's
 * inserts measured 1.07x (1.02-1.16) without the prefetches between 1 and 2
 * MiB (bench/ab.sh --grown 2^20), so it keeps its own. */
#define CF__INPLACE_NEAR_BYTES ((uint64_t)1 << 20)

static inline bool cf__inplace_far(const cf_filter *f) {
    return f->t.table_bytes > CF__INPLACE_NEAR_BYTES;
}

/* Files (format version 4) are format/'s (inplace_format.h) and io/'s
 * (inplace_io.c). */

/* cf_new for CF_GROW with CF_GROWTH_INPLACE (inplace.c): a handle of
 * kind CF__INPLACE. */
cf_status cf__inplace_new(const cf_config *cfg, cf_filter **out);
/* The slot width cfg gets: its fingerprint_bits (15, 16 or 32), or the
 * smallest of those that holds CF__INPLACE_DESIGN_DOUBLINGS doublings
 * within target_fpp; 0 when none does. */
unsigned cf__inplace_width(const cf_config *cfg);
/* The target FPP a width of w bits needs: above it for an explicit width
 * (the first table filled), at least it for a derived one (the design's
 * doublings). */
double cf__inplace_fpp_floor(unsigned w, bool derived);
/* The first table cfg asks for with w-bit slots: its level (2^level
 * buckets, capacity or num_buckets rounded up to a power of two) and
 * bytes.  CF_OK, CF_E_PARAM (no capacity nor num_buckets) or
 * CF_E_TOO_LARGE. */
cf_status cf__inplace_first_table(const cf_config *cfg, unsigned w, unsigned *level, size_t *bytes);
/* The public operations (the public functions checked NULL and read_only). */
cf_status cf__inplace_insert_hash(cf_filter *f, uint64_t h);
cf_status cf__inplace_insert_unique_hash(cf_filter *f, uint64_t h);
cf_status cf__inplace_delete_hash(cf_filter *f, uint64_t h);
size_t cf__inplace_count_hash(const cf_filter *f, uint64_t h);
size_t cf__inplace_contains_batch(const cf_filter *f, const uint64_t *hashes, size_t n, bool *out);
cf_status cf__inplace_insert_batch(cf_filter *f, const uint64_t *hashes, size_t n,
                                   size_t *inserted);
void cf__inplace_stats(const cf_filter *f, cf_stats *out);
/* cf_merge of two in-place filters: the same seed, slot width and
 * target_fpp (else CF_E_PARAM); dst doubles to src's level first, then
 * takes every entry of src as the doublings between their levels would
 * have carried it, doubling further where it has no room.  All or nothing:
 * dst's table is copied first and put back on failure (CF_E_CORRUPT too:
 * a slot of src that no table holds, from a file mapped unverified). */
cf_status cf__inplace_merge(cf_filter *dst, const cf_filter *src);
size_t cf__inplace_memory(const cf_filter *f);
cf_status cf__inplace_clear(cf_filter *f);
/* Releases the state, the table (when owned), the scratch and the handle;
 * a mapping is io/'s (cf__unmap).  NULL is fine. */
void cf__inplace_free(cf_filter *f);
/* The load the first table is sized for and at which a table doubles
 * without an eviction search, unless cfg.max_load says otherwise: the
 * default load of four-slot buckets (cf_default_max_load(4)). */
#define CF__INPLACE_DEFAULT_LOAD 0.95
/* Doubles the table now (tests; an insert that finds no room does it).
 * CF_OK, CF_E_FULL (a limit; nothing changed) or CF_E_NOMEM (nothing
 * changed). */
cf_status cf__inplace_double(cf_filter *f);

CF__KIND_CONTRACT(inplace)

#endif /* CF_INPLACE_H */
