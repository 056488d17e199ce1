/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * inplace.c -- a CF_GROWTH_INPLACE filter: creating it, inserting
 * (with a breadth-first eviction search), doubling, deleting, counting and
 * describing it (design and arithmetic: inplace.h).
 *
 *   insert:  free slot in i1 or i2 ─► else an eviction path ─► else double
 *            the table (one realloc, buckets split from the top down) and
 *            try again at the new level
 *   lookup:  two buckets (inplace.h, inlined in api/ops.c's switch)
 *   delete:  the longest matching entry of the two buckets
 *
 * Lookups, the free-slot test, placing an entry and the split read a
 * bucket as its word(s); the rarer paths (the 32-bit free-slot test, moves,
 * deletes, counts) read slot by slot.
 */
#include <math.h>

#include "kind/inplace.h"
#include "kind/inplace_x86.h"
#include "table/table.h"

/* ---- one slot at a time ---- */

/* (cf__inplace_get, the reader, is inplace.h's: format/ checks tables
 * with it.) */
static inline void cf__inplace_set(cf_filter *f, uint64_t i, unsigned s, uint64_t v) {
    unsigned w = cf__inplace_of(f)->w;
    cf__bitpos p = cf__bitpos_of(f->t.table, cf__inplace_bucket_bit(w, i) + s * w);
    uint64_t mask = (((uint64_t)1 << w) - 1) << p.shift;
    cf__store64le(p.at, (cf__load64le(p.at) & ~mask) | (v << p.shift));
}

/* Bucket i as its one or two 64-bit words (slot s at bit s * w of the pair;
 * a narrow bucket in the low end of word 0). */
static inline void cf__inplace_bucket_read(const cf_filter *f, uint64_t i, uint64_t word[2]) {
    unsigned w = cf__inplace_of(f)->w;
    if (w != 32) {
        word[0] = cf__inplace_narrow_word(f->t.table, i, w), word[1] = 0;
        return;
    }
    const uint8_t *p = f->t.table + i * 16;
    word[0] = cf__load64le(p), word[1] = cf__load64le(p + 8);
}

/* Slot s of a bucket read by cf__inplace_bucket_read. */
static inline uint64_t cf__inplace_lane(const uint64_t word[2], unsigned s, unsigned w) {
    return (word[s * w / 64] >> (s * w % 64)) & (((uint64_t)1 << w) - 1);
}

/* Writes bucket i whole (the bits of a 60-bit bucket's neighbours kept). */
static inline void cf__inplace_bucket_write(cf_filter *f, uint64_t i, const uint64_t word[2]) {
    unsigned w = cf__inplace_of(f)->w;
    if (w != 32) {
        cf__bitpos p = cf__bitpos_of(f->t.table, cf__inplace_bucket_bit(w, i));
        uint64_t mask = cf__inplace_bucket_mask(w) << p.shift;
        cf__store64le(p.at, (cf__load64le(p.at) & ~mask) | (word[0] << p.shift));
        return;
    }
    uint8_t *p = f->t.table + i * 16;
    cf__store64le(p, word[0]);
    cf__store64le(p + 8, word[1]);
}

static inline void cf__inplace_prefetch(const cf_filter *f, uint64_t i) {
    __builtin_prefetch(f->t.table + cf__inplace_bucket_bit(cf__inplace_of(f)->w, i) / 8);
}

/* Fingerprint length of the nonzero slot v: the bits above its marker. */
static inline unsigned cf__inplace_len(const cf__inplace *ip, uint64_t v) {
    return ip->w - 1 - (unsigned)__builtin_ctzll(v);
}

static inline uint64_t cf__inplace_tag(const cf__inplace *ip, uint64_t v) {
    return v >> (ip->w - ip->tag_bits);
}

/* S's unit for an entry of length len: 2^(w-1-len) units of 2^-(w-1). */
static inline uint64_t cf__inplace_weight(const cf__inplace *ip, uint64_t v) {
    return (uint64_t)1 << (ip->w - 1 - cf__inplace_len(ip, v));
}

/* Whether the nonzero-or-empty slot v matches query string q (one lane). */
static inline bool cf__inplace_lane_matches(uint64_t v, uint64_t q) {
    return v != 0 && ((v ^ q) >> (__builtin_ctzll(v) + 1)) == 0;
}

/* The nonzero slot v of bucket i moved to its other bucket: *j gets that
 * bucket; returns v as stored there (its e xored with H(t)'s bits after
 * the top k; t and the length unchanged). */
static uint64_t cf__inplace_move(const cf__inplace *ip, uint64_t i, uint64_t v, uint64_t *j) {
    uint64_t hx = cf__inplace_mix(cf__inplace_tag(ip, v));
    unsigned k = ip->level, le = cf__inplace_len(ip, v) - ip->tag_bits;
    *j = i ^ (hx >> (64 - k));
    if (le > 0) v ^= ((hx << k) >> (64 - le)) << (ip->w - ip->tag_bits - le);
    return v;
}

/* Narrow tables (W = 15 or 16): the first empty slot of bucket i, found
 * in its word all at once, or -1; *p and *word are where that word is and
 * the 64 bits loaded there.  An empty lane's top bit is at W s + W - 1, in
 * slot s (no division by a variable). */
static inline int cf__inplace_first_empty(const cf_filter *f, uint64_t i, cf__bitpos *p,
                                          uint64_t *word) {
    unsigned w = cf__inplace_of(f)->w;
    uint64_t highs = cf__inplace_highs(w);
    *p = cf__bitpos_of(f->t.table, cf__inplace_bucket_bit(w, i));
    *word = cf__load64le(p->at);
    uint64_t z =
        ~cf__inplace_nonzero((*word >> p->shift) & cf__inplace_bucket_mask(w), highs) & highs;
    if (z == 0) return -1;
    unsigned b = (unsigned)__builtin_ctzll(z);
    return (int)(w == 15 ? b / 15 : b >> 4);
}

static int cf__inplace_free_slot(const cf_filter *f, uint64_t i) {
    if (cf__inplace_of(f)->w != 32) {
        cf__bitpos p;
        uint64_t word;
        return cf__inplace_first_empty(f, i, &p, &word);
    }
    for (unsigned s = 0; s < CF__INPLACE_SLOTS; s++)
        if (cf__inplace_get(f, i, s) == 0) return (int)s;
    return -1;
}

static bool cf__inplace_place(cf_filter *f, uint64_t i, uint64_t v) {
    unsigned w = cf__inplace_of(f)->w;
    if (w != 32) {
        /* The lane is zero, so v is or-ed into the word as loaded (a 60-bit
         * bucket's neighbours kept). */
        cf__bitpos p;
        uint64_t word;
        int s = cf__inplace_first_empty(f, i, &p, &word);
        if (s < 0) return false;
        cf__store64le(p.at, word | (v << ((unsigned)s * w + p.shift)));
        return true;
    }
    int s = cf__inplace_free_slot(f, i);
    if (s < 0) return false;
    cf__inplace_set(f, i, (unsigned)s, v);
    return true;
}

/* Slots of the key's buckets matching it (each bucket once). */
static size_t cf__inplace_matches(const cf_filter *f, const cf__inplace_loc *l) {
    size_t n = 0;
    for (unsigned s = 0; s < CF__INPLACE_SLOTS; s++) {
        n += cf__inplace_lane_matches(cf__inplace_get(f, l->i1, s), l->q1);
        if (l->i2 != l->i1) n += cf__inplace_lane_matches(cf__inplace_get(f, l->i2, s), l->q2);
    }
    return n;
}

/* ---- the eviction search: breadth first, then the moves ---- */

typedef struct cf__inplace_node {
    uint64_t bucket;
    int32_t parent; /* -1 for the two roots */
    uint8_t slot;   /* the parent's slot whose entry moves into this bucket */
} cf__inplace_node;

/* Nodes on the stack: the search's budget is min(max_kicks + 2, this). */
#define CF__INPLACE_NODES 1024

static bool cf__inplace_on_path(const cf__inplace_node *q, int32_t n, uint64_t bucket) {
    for (; n >= 0; n = q[n].parent)
        if (q[n].bucket == bucket) return true;
    return false;
}

/* Where a new entry goes: buckets i1 and i2, and the entry as stored in
 * each (a key's query strings with their marker, or a merged entry). */
typedef struct cf__inplace_put {
    uint64_t i1, i2, v1, v2;
} cf__inplace_put;

/* Moves the entry in slot s of node n's bucket to `to` (which has a free
 * slot), then each parent's entry into the slot its child freed, and
 * stores the new entry in the root's freed slot. */
static void cf__inplace_apply(cf_filter *f, const cf__inplace_node *q, int32_t n, unsigned s,
                              uint64_t to, const cf__inplace_put *p) {
    for (;;) {
        uint64_t from = q[n].bucket, j;
        uint64_t v = cf__inplace_move(cf__inplace_of(f), from, cf__inplace_get(f, from, s), &j);
        cf__inplace_place(f, to, v);
        cf__inplace_set(f, from, s, 0);
        f->t.total_kicks++;
        to = from;
        if (q[n].parent < 0) break;
        s = q[n].slot;
        n = q[n].parent;
    }
    cf__inplace_place(f, to, to == p->i1 ? p->v1 : p->v2);
}

static cf_status cf__inplace_evict(cf_filter *f, const cf__inplace_put *p) {
    cf__inplace_node q[CF__INPLACE_NODES];
    int32_t cap =
        f->t.max_kicks + 2 < CF__INPLACE_NODES ? (int32_t)f->t.max_kicks + 2 : CF__INPLACE_NODES;
    int32_t n = 0;
    q[n++] = (cf__inplace_node){p->i1, -1, 0};
    if (p->i2 != p->i1) q[n++] = (cf__inplace_node){p->i2, -1, 0};
    /* Every bucket queued is full: the roots were, and a bucket is queued
     * only when it had no free slot (nothing changes during the search). */
    bool far = cf__inplace_far(f);
    for (int32_t head = 0; head < n; head++) {
        uint64_t b = q[head].bucket, word[2], kid[CF__INPLACE_SLOTS];
        cf__inplace_bucket_read(f, b, word);
        /* The four buckets the entries could move to, their misses started
         * together (each is then tested for room, and queued: so a queued
         * bucket is in cache when its turn comes). */
        for (unsigned s = 0; s < CF__INPLACE_SLOTS; s++) {
            cf__inplace_move(cf__inplace_of(f), b, cf__inplace_lane(word, s, cf__inplace_of(f)->w),
                             &kid[s]);
            if (far) cf__inplace_prefetch(f, kid[s]);
        }
        for (unsigned s = 0; s < CF__INPLACE_SLOTS; s++) {
            uint64_t j = kid[s];
            if (j == b || cf__inplace_on_path(q, head, j)) continue;
            if (cf__inplace_free_slot(f, j) >= 0) {
                cf__inplace_apply(f, q, head, s, j, p);
                return CF_OK;
            }
            if (n < cap) q[n++] = (cf__inplace_node){j, head, (uint8_t)s};
        }
    }
    return CF_E_FULL;
}

/* ---- doubling ---- */

/* The FPP bound 2S/nb of a table of nb buckets whose weight is `weight`
 * units after every free slot (free of `entries`) got a new entry. */
static double cf__inplace_full_fpp(const cf__inplace *ip, uint64_t nb, uint64_t weight,
                                   uint64_t entries) {
    uint64_t slots = nb * CF__INPLACE_SLOTS;
    double s = ((double)weight + (double)(slots > entries ? slots - entries : 0)) *
               ldexp(1.0, -(int)(ip->w - 1));
    return 2.0 * s / (double)nb;
}

/* The nonzero entry v of a bucket i that splits into 2i and 2i + 1: the
 * half it goes to (*half = its first e bit) and v as stored there (the
 * bits under t shifted up by one), or false when it has no e bit left and
 * goes to both halves unchanged. */
static bool cf__inplace_split_entry(const cf__inplace *ip, uint64_t *v, unsigned *half) {
    if (cf__inplace_len(ip, *v) == ip->tag_bits) return false;
    unsigned below = ip->w - ip->tag_bits; /* bits under t; e_0 is the top one */
    uint64_t low = ((uint64_t)1 << below) - 1;
    *half = (unsigned)(*v >> (below - 1)) & 1;
    *v = (*v & ~low) | ((*v << 1) & low);
    return true;
}

/* Bucket i's entries into buckets 2i and 2i + 1 by their first e bit; an
 * entry with no e bit left goes to both (returns how many did).  Each half
 * keeps its entries in slot order, from slot 0.  The bucket is read as its
 * one or two 64-bit words and each half written whole: slot by slot, the
 * split was a quarter of an insert's instructions. */
static uint64_t cf__inplace_split_bucket(cf_filter *f, uint64_t i) {
    const cf__inplace *ip = cf__inplace_of(f);
    unsigned w = ip->w;
    uint64_t in[2], out[2][2] = {{0}}, dups = 0;
    unsigned c[2] = {0, 0};
    cf__inplace_bucket_read(f, i, in);
    for (unsigned s = 0; s < CF__INPLACE_SLOTS; s++) {
        uint64_t v = cf__inplace_lane(in, s, w);
        unsigned half;
        if (v == 0) continue;
        if (cf__inplace_split_entry(ip, &v, &half)) {
            out[half][c[half] * w / 64] |= v << (c[half] * w % 64);
            c[half]++;
            continue;
        }
        for (half = 0; half < 2; half++) {
            out[half][c[half] * w / 64] |= v << (c[half] * w % 64);
            c[half]++;
        }
        dups++;
    }
    cf__inplace_bucket_write(f, 2 * i, out[0]);
    cf__inplace_bucket_write(f, 2 * i + 1, out[1]);
    return dups;
}

/* CF_GROWTH_OPEN, or why the table cannot double (cf_stats.growth_limit):
 * the level that keeps X's index bits clear of t, an unaddressable size,
 * max_bytes, or the FPP bound of the doubled table filled. */
static unsigned cf__inplace_double_limit(const cf_filter *f) {
    const cf__inplace *ip = cf__inplace_of(f);
    size_t old = f->t.table_bytes;
    CF__RETURN_IF(ip->level >= ip->max_level, CF_GROWTH_LIMIT_SIZE);
    CF__RETURN_IF(old > (SIZE_MAX - CF__TABLE_PAD) / 2, CF_GROWTH_LIMIT_SIZE);
    CF__RETURN_IF(ip->max_bytes != 0 && 2 * old > ip->max_bytes, CF_GROWTH_LIMIT_BYTES);
    CF__RETURN_IF(cf__inplace_full_fpp(ip, 2 * f->t.num_buckets, 2 * ip->weight, ip->entries) >
                      ip->target_fpp,
                  CF_GROWTH_LIMIT_FPP);
    return CF_GROWTH_OPEN;
}

cf_status cf__inplace_double(cf_filter *f) {
    cf__inplace *ip = cf__inplace_of(f);
    CF__RETURN_IF(cf__inplace_double_limit(f) != CF_GROWTH_OPEN, CF_E_FULL);
    size_t old = f->t.table_bytes, bytes = 2 * old;
    uint64_t nb = f->t.num_buckets;
    uint8_t *t = cf__realloc(&f->t.alloc, f->t.table, old + CF__TABLE_PAD, bytes + CF__TABLE_PAD);
    CF__RETURN_IF(t == NULL, CF_E_NOMEM);
    f->t.table = t;
    /* As cf__table_alloc for a new table, before the split touches the new half. */
    cf__advise_huge(&f->t.alloc, t, bytes + CF__TABLE_PAD);
    /* From the top down: buckets 2i and 2i + 1 are at or above i, and every
     * bucket below i is still unread and untouched. */
    uint64_t dups = 0;
    for (uint64_t i = nb; i-- > 0;) dups += cf__inplace_split_bucket(f, i);
    memset(t + bytes, 0, CF__TABLE_PAD);
    f->t.table_bytes = bytes;
    f->t.num_buckets = 2 * nb;
    ip->level++;
    ip->weight *= 2; /* each entry lost a bit, or was copied */
    ip->entries += dups;
    ip->doublings++;
    ip->full *= 2;
    return CF_OK;
}

/* ---- the public operations ---- */

cf_status cf__inplace_insert_hash(cf_filter *f, uint64_t h) {
    cf__inplace *ip = cf__inplace_of(f);
    for (unsigned tries = 0;; tries++) {
        cf__inplace_loc l = cf__inplace_locate(ip, h);
        cf__inplace_put p = {l.i1, l.i2, l.q1 | 1, l.q2 | 1};
        /* As the plain kernel does: i2 is read only when i1 is full, but
         * then its miss has already started. */
        if (cf__inplace_far(f)) cf__inplace_prefetch(f, l.i2);
        if (cf__inplace_place(f, p.i1, p.v1) || cf__inplace_place(f, p.i2, p.v2)) break;
        bool searched = ip->entries < ip->full;
        if (searched && cf__inplace_evict(f, &p) == CF_OK) break;
        /* The table doubles for want of room, never for one key's copies
         * (they stay together at every size: a key stored b times or more
         * gets CF_E_FULL when its buckets are full), and once per insert:
         * a doubling halves the load of the key's buckets, so a second
         * failure is a local knot (tiny tables) that doubling again would
         * not be sure to untie. */
        cf_status s = CF_E_FULL;
        if (tries == 0 && cf__inplace_matches(f, &l) < CF__INPLACE_SLOTS) s = cf__inplace_double(f);
        if (s == CF_OK) continue;
        /* At a limit (max_bytes, the FPP bound), the last few percent. */
        if (s == CF_E_FULL && !searched && cf__inplace_evict(f, &p) == CF_OK) break;
        f->t.failed_inserts += s == CF_E_FULL;
        return s;
    }
    f->t.items++;
    ip->entries++;
    ip->weight++;
    return CF_OK;
}

cf_status cf__inplace_insert_unique_hash(cf_filter *f, uint64_t h) {
    CF__RETURN_IF(cf__inplace_contains_hash(f, h), CF_E_EXISTS);
    return cf__inplace_insert_hash(f, h);
}

cf_status cf__inplace_delete_hash(cf_filter *f, uint64_t h) {
    cf__inplace *ip = cf__inplace_of(f);
    cf__inplace_loc l = cf__inplace_locate(ip, h);
    uint64_t best_bucket = 0, best = 0;
    unsigned best_slot = 0;
    for (unsigned r = 0; r < (l.i2 == l.i1 ? 1u : 2u); r++) {
        uint64_t b = r ? l.i2 : l.i1, q = r ? l.q2 : l.q1;
        for (unsigned s = 0; s < CF__INPLACE_SLOTS; s++) {
            uint64_t v = cf__inplace_get(f, b, s);
            /* Longest first (the top comment of inplace.h says why). */
            if (!cf__inplace_lane_matches(v, q) ||
                (best != 0 && cf__inplace_len(ip, v) <= cf__inplace_len(ip, best)))
                continue;
            best = v, best_bucket = b, best_slot = s;
        }
    }
    CF__RETURN_IF(best == 0, CF_E_NOT_FOUND);
    cf__inplace_set(f, best_bucket, best_slot, 0);
    ip->entries--;
    ip->weight -= cf__inplace_weight(ip, best);
    /* A copy of a used-up entry may outlive its item: never count below 0. */
    if (f->t.items > 0) f->t.items--;
    return CF_OK;
}

size_t cf__inplace_count_hash(const cf_filter *f, uint64_t h) {
    cf__inplace_loc l = cf__inplace_locate(cf__inplace_of(f), h);
    return cf__inplace_matches(f, &l);
}

/* Hashes located this far ahead of their probe, their buckets prefetched. */
#define CF__INPLACE_AHEAD 16

size_t cf__inplace_contains_batch(const cf_filter *f, const uint64_t *hashes, size_t n, bool *out) {
    const cf__inplace *ip = cf__inplace_of(f);
    size_t found = 0;
#if CF__HAVE_INPLACE_X86
    /* Whole blocks of eight or four with AVX-512 or AVX2 (inplace_x86.c),
     * the rest below. */
    unsigned width = n >= 4 ? cf__inplace_x86_width(f) : 0;
    if (width != 0) {
        size_t wide = n - n % width;
        found = cf__inplace_x86(f, width, hashes, wide, out);
        hashes += wide;
        n -= wide;
        if (out != NULL) out += wide;
    }
#endif
    for (size_t j = 0; j < n && j < CF__INPLACE_AHEAD; j++) {
        cf__inplace_loc l = cf__inplace_locate(ip, hashes[j]);
        cf__inplace_prefetch(f, l.i1);
        cf__inplace_prefetch(f, l.i2);
    }
    for (size_t j = 0; j < n; j++) {
        if (j + CF__INPLACE_AHEAD < n) {
            cf__inplace_loc l = cf__inplace_locate(ip, hashes[j + CF__INPLACE_AHEAD]);
            cf__inplace_prefetch(f, l.i1);
            cf__inplace_prefetch(f, l.i2);
        }
        bool hit = cf__inplace_contains_hash(f, hashes[j]);
        found += hit;
        if (out != NULL) out[j] = hit;
    }
    return found;
}

/* Inserts in order, as single inserts; in a far table the buckets of the
 * key CF__INPLACE_AHEAD places ahead are prefetched at the level the table
 * has then (a doubling meanwhile only wastes the prefetch). */
cf_status cf__inplace_insert_batch(cf_filter *f, const uint64_t *hashes, size_t n,
                                   size_t *inserted) {
    for (size_t j = 0; j < n; j++) {
        if (j + CF__INPLACE_AHEAD < n && cf__inplace_far(f)) {
            cf__inplace_loc l =
                cf__inplace_locate(cf__inplace_of(f), hashes[j + CF__INPLACE_AHEAD]);
            cf__inplace_prefetch(f, l.i1);
            cf__inplace_prefetch(f, l.i2);
        }
        CF__FORWARD_IF_ERROR(cf__inplace_insert_hash(f, hashes[j]));
        if (inserted != NULL) *inserted = j + 1;
    }
    return CF_OK;
}

/* ---- merging ---- */

/* Stores a merged entry: v in bucket i, or its other bucket, or (when
 * `search`) an eviction path's end; dst's counts follow.  CF_E_FULL when
 * none is found (then dst is as it was). */
static cf_status cf__inplace_store(cf_filter *f, uint64_t i, uint64_t v, bool search) {
    cf__inplace *ip = cf__inplace_of(f);
    cf__inplace_put p = {.i1 = i, .v1 = v};
    p.v2 = cf__inplace_move(ip, i, v, &p.i2);
    if (!cf__inplace_place(f, p.i1, p.v1) && !cf__inplace_place(f, p.i2, p.v2)) {
        CF__RETURN_IF(!search, CF_E_FULL);
        CF__FORWARD_IF_ERROR(cf__inplace_evict(f, &p));
    }
    ip->entries++;
    ip->weight += cf__inplace_weight(ip, v);
    return CF_OK;
}

/* Src's entry v of bucket b at level `level` (<= dst's), carried down to
 * dst's level as that many doublings would carry it (one entry, or copies
 * of a used-up one), and stored as an insert stores a key's: a free slot,
 * else (below max_load) an eviction path, else dst doubles, once per
 * entry, and the levels still to go are read from dst again. */
static cf_status cf__inplace_merge_entry(cf_filter *dst, uint64_t b, unsigned level, uint64_t v,
                                         bool may_double) {
    const cf__inplace *ip = cf__inplace_of(dst);
    for (; level < ip->level; level++) {
        unsigned half;
        if (cf__inplace_split_entry(ip, &v, &half)) {
            b = 2 * b + half;
            continue;
        }
        CF__FORWARD_IF_ERROR(cf__inplace_merge_entry(dst, 2 * b, level + 1, v, may_double));
        b = 2 * b + 1;
    }
    bool searched = ip->entries < ip->full;
    cf_status s = cf__inplace_store(dst, b, v, searched);
    if (s != CF_E_FULL) return s;
    if (may_double) {
        s = cf__inplace_double(dst);
        if (s == CF_OK) return cf__inplace_merge_entry(dst, b, level, v, false);
        if (s != CF_E_FULL) return s;
    }
    /* Doubled once already, or at a limit (max_bytes, the FPP bound): the
     * last few percent. */
    return searched ? CF_E_FULL : cf__inplace_store(dst, b, v, true);
}

cf_status cf__inplace_merge(cf_filter *dst, const cf_filter *src) {
    const cf__inplace *si = cf__inplace_of(src);
    cf__inplace *di = cf__inplace_of(dst);
    /* Entries mean the same in both: the same hash, slot layout and bound. */
    CF__RETURN_IF(dst->t.seed != src->t.seed || di->w != si->w || di->target_fpp != si->target_fpp,
                  CF_E_PARAM);
    if (si->entries == 0) return CF_OK;
    /* Dst as it was, to put back on failure: the handle, its state and a
     * copy of its table (which replaces the table, perhaps doubled since). */
    cf_filter was = *dst;
    cf__inplace ip_was = *di;
    was.t.table = cf__alloc(&dst->t.alloc, dst->t.table_bytes + CF__TABLE_PAD);
    CF__RETURN_IF(was.t.table == NULL, CF_E_NOMEM);
    memcpy(was.t.table, dst->t.table, dst->t.table_bytes + CF__TABLE_PAD);

    /* Src's entries hold no bits of the buckets above its level, so dst
     * first doubles up to it; from there each entry goes down. */
    cf_status st = CF_OK;
    while (st == CF_OK && di->level < si->level) st = cf__inplace_double(dst);
    for (uint64_t b = 0; b < src->t.num_buckets && st == CF_OK; b++)
        for (unsigned s = 0; s < CF__INPLACE_SLOTS && st == CF_OK; s++) {
            uint64_t v = cf__inplace_get(src, b, s);
            /* A marker inside the tag: a damaged file mapped unverified. */
            if (v != 0 && cf__inplace_len(si, v) < si->tag_bits) st = CF_E_CORRUPT;
            if (v != 0 && st == CF_OK) st = cf__inplace_merge_entry(dst, b, si->level, v, true);
        }
    if (st == CF_OK) {
        dst->t.items += src->t.items;
        cf__free(&dst->t.alloc, was.t.table);
        return CF_OK;
    }
    cf__free(&dst->t.alloc, dst->t.table);
    *dst = was;
    *di = ip_was;
    return st;
}

size_t cf__inplace_memory(const cf_filter *f) {
    return sizeof *f + sizeof(cf__inplace) + f->t.table_bytes + CF__TABLE_PAD;
}

void cf__inplace_free(cf_filter *f) {
    if (f == NULL) return;
    cf__free(&f->t.alloc, cf__inplace_of(f));
    f->state = NULL;
    cf__handle_free_plain(f);
}

cf_status cf__inplace_clear(cf_filter *f) {
    memset(f->t.table, 0, f->t.table_bytes + CF__TABLE_PAD);
    f->t.items = 0;
    cf__inplace_of(f)->entries = 0;
    cf__inplace_of(f)->weight = 0;
    return CF_OK;
}

void cf__inplace_stats(const cf_filter *f, cf_stats *out) {
    const cf__inplace *ip = cf__inplace_of(f);
    memset(out, 0, sizeof *out);
    out->items = f->t.items;
    out->num_buckets = f->t.num_buckets;
    out->slots = f->t.num_buckets * CF__INPLACE_SLOTS;
    out->bucket_size = CF__INPLACE_SLOTS;
    out->fingerprint_bits = ip->w - 1; /* a new entry's length */
    out->bits_per_slot = ip->w;
    out->max_kicks = f->t.max_kicks;
    out->flags = f->t.flags;
    out->seed = f->t.seed;
    out->load_factor = (double)ip->entries / (double)out->slots;
    double bits = (double)f->t.table_bytes * 8;
    out->bits_per_item = f->t.items ? bits / (double)f->t.items : 0.0;
    out->expected_fpp =
        2.0 * (double)ip->weight * ldexp(1.0, -(int)(ip->w - 1)) / (double)f->t.num_buckets;
    out->table_bytes = f->t.table_bytes;
    out->memory_bytes = cf__inplace_memory(f);
    out->total_kicks = f->t.total_kicks;
    out->failed_inserts = f->t.failed_inserts;
    out->read_only = f->t.read_only;
    out->tables = 1;
    out->growth = 2;
    out->max_bytes = ip->max_bytes;
    out->fpp_bound = cf__inplace_full_fpp(ip, f->t.num_buckets, ip->weight, ip->entries);
    out->target_fpp = ip->target_fpp;
    out->growth_mode = CF_GROWTH_INPLACE;
    out->doublings = ip->doublings;
    out->growth_limit = cf__inplace_double_limit(f);
}

/* ---- creation ---- */

double cf__inplace_fpp_floor(unsigned w, bool derived) {
    /* A derived width must hold CF__INPLACE_DESIGN_DOUBLINGS doublings; an
     * explicit one only its first table filled (times 2^-W: inplace.h). */
    double need = derived ? 16.0 + 8.0 * CF__INPLACE_DESIGN_DOUBLINGS : 16.0;
    return need * ldexp(1.0, -(int)w);
}

unsigned cf__inplace_width(const cf_config *cfg) {
    static const unsigned widths[] = {15, 16, 32};
    if (cfg->fingerprint_bits != 0) {
        unsigned w = cfg->fingerprint_bits;
        if (w != 15 && w != 16 && w != 32) return 0;
        return cf__inplace_fpp_floor(w, false) < cfg->target_fpp ? w : 0;
    }
    for (unsigned i = 0; i < sizeof widths / sizeof widths[0]; i++)
        if (cf__inplace_fpp_floor(widths[i], true) <= cfg->target_fpp) return widths[i];
    return 0;
}

cf_status cf__inplace_first_table(const cf_config *cfg, unsigned w, unsigned *level,
                                  size_t *bytes) {
    unsigned max_level = 65 - w;
    uint64_t nb = cfg->num_buckets;
    if (nb == 0) {
        CF__RETURN_IF(cfg->capacity == 0, CF_E_PARAM);
        double load = cfg->max_load > 0.0 ? cfg->max_load : CF__INPLACE_DEFAULT_LOAD;
        double want = ceil((double)cfg->capacity / (CF__INPLACE_SLOTS * load));
        CF__RETURN_IF(want > ldexp(1.0, (int)max_level), CF_E_TOO_LARGE);
        nb = (uint64_t)want;
    }
    unsigned k = 1;
    while (k <= max_level && ((uint64_t)1 << k) < nb) k++;
    CF__RETURN_IF(k > max_level, CF_E_TOO_LARGE);
    nb = (uint64_t)1 << k;
    CF__RETURN_IF(nb > (SIZE_MAX - CF__TABLE_PAD) / w * 2, CF_E_TOO_LARGE);
    *level = k;
    *bytes = (size_t)cf__inplace_table_bytes(w, nb);
    return CF_OK;
}

cf_status cf__inplace_new(const cf_config *cfg, cf_filter **out) {
    CF__RETURN_IF(cfg->flags != CF_GROW, CF_E_PARAM);
    CF__RETURN_IF(!(cfg->target_fpp > 0.0 && cfg->target_fpp < 1.0), CF_E_PARAM);
    CF__RETURN_IF(cfg->bucket_size != 0 && cfg->bucket_size != CF__INPLACE_SLOTS, CF_E_PARAM);
    CF__RETURN_IF(cfg->max_kicks > CF_MAX_KICKS_LIMIT, CF_E_PARAM);
    CF__RETURN_IF(!(cfg->max_load >= 0.0 && cfg->max_load <= 1.0), CF_E_PARAM);
    unsigned w = cf__inplace_width(cfg), max_level = 65 - w, k;
    CF__RETURN_IF(w == 0, CF_E_PARAM);
    size_t bytes;
    CF__FORWARD_IF_ERROR(cf__inplace_first_table(cfg, w, &k, &bytes));
    uint64_t nb = (uint64_t)1 << k;
    CF__RETURN_IF(cfg->max_bytes != 0 && bytes > cfg->max_bytes, CF_E_PARAM);

    cf_filter *f;
    unsigned kicks = cfg->max_kicks ? cfg->max_kicks : CF_DEFAULT_MAX_KICKS;
    CF__FORWARD_IF_ERROR(
        cf__filter_alloc(cfg->allocator, nb, CF__INPLACE_SLOTS, w, CF_GROW, kicks, &f));
    cf__set_seed(&f->t, cfg->seed);
    f->kind = CF__INPLACE;
    f->state = cf__alloc(&f->t.alloc, sizeof(cf__inplace));
    if (cf__inplace_of(f) == NULL) {
        cf__inplace_free(f);
        return CF_E_NOMEM;
    }
    memset(cf__inplace_of(f), 0, sizeof(cf__inplace));
    cf__inplace_of(f)->level = k;
    cf__inplace_of(f)->w = w;
    cf__inplace_of(f)->tag_bits = cf__inplace_tag_bits(w);
    cf__inplace_of(f)->max_level = max_level;
    cf__inplace_of(f)->max_bytes = cfg->max_bytes;
    cf__inplace_of(f)->target_fpp = cfg->target_fpp;
    double load = cfg->max_load > 0.0 ? cfg->max_load : CF__INPLACE_DEFAULT_LOAD;
    cf__inplace_of(f)->full = (uint64_t)((double)(nb * CF__INPLACE_SLOTS) * load);
    f->t.table_bytes = bytes;
    if (cf__table_alloc(&f->t, true) != CF_OK) {
        cf__inplace_free(f);
        return CF_E_NOMEM;
    }
    *out = f;
    return CF_OK;
}
