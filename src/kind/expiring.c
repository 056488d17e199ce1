/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * expiring.c -- items that expire (cfg.expire_after): a cuckoo table whose
 * slots carry the time their item was written, and a clock that removes
 * the items whose window has passed.
 *
 *   slot:   [ stamp: s bits | fingerprint: f bits ]      0 = empty
 *
 *   time  ──►  tick = now / span  ──►  stamp = tick mod 2^s
 *
 *   window: k ticks (k = min(2^s - 1, expire_after), span = ceil(expire_after / k))
 *
 *   tick:    T     T+1    ...    T+k    T+k+1
 *   item:    [written ............ found ][ gone: cf_set_time removed it ]
 *
 * An item written at time t, in tick T = floor(t / span), is kept while
 * the clock's tick is at most T + k: every time before t + expire_after is
 * in such a tick (k * span >= expire_after), so there are no false
 * negatives inside the window; from tick T + k + 1 on, at the latest from
 * time t + (k + 1) * span, it is gone.
 *
 * Eager expiry.  cf_set_time, when the clock enters a later tick, makes one
 * pass over the table and zeroes every entry whose age passed k ticks (a
 * jump of more than k ticks clears the table).  So after every call all
 * entries are at most k ticks old, and an entry's true age is its stamp's
 * distance to the old tick modulo 2^s (k < 2^s makes it unambiguous): the
 * pass needs no more bits than the stamp.  What this buys: lookups compare
 * fingerprints only (no stamp is ever expired at lookup time), inserts find
 * free slots exactly as a plain table's (an expired item's slot is already
 * 0), and a table sized for the items of one window never fills however
 * long the stream.  What it costs: a pass over the table once per tick
 * (k times per window), a few milliseconds per million slots.
 *
 * The partner bucket depends on the fingerprint alone (cf__alt_index of
 * the f fingerprint bits, as a plain table's), so an eviction moves a
 * whole slot, stamp and all, and the item stays findable.  The eviction
 * search is table/bfs.h's with this kind's readers (fingerprints without
 * their stamps); the moves are made here.
 *
 * Lookups read each bucket once and test every lane at once: the lanes are
 * masked to their fingerprint bits, and a masked lane plus 2^(w-1) - 1 has
 * its top bit (a stamp bit, zero after the mask) set unless it was zero,
 * with no carry into the next lane.  Buckets of up to 64 bits are one
 * 64-bit load (the table's swar layouts; the stamp width is chosen to make
 * the default shape's buckets one: cf__expiring_stamp_bits); wider ones are
 * two loads of half a bucket each when a half fits (14-bit fingerprints
 * with 4-bit stamps in buckets of four: two 36-bit halves), else slot by
 * slot.
 */
#include <math.h>

#include "kind/expiring.h"
#include "table/batch.h"
#include "table/bfs.h"
#include "table/table.h"

/* The bfs readers receive the table; its handle (and this kind's state)
 * starts at the same address. */
_Static_assert(offsetof(struct cf_filter, t) == 0, "the handle starts with its table");

static inline const cf__expiring *cf__xp_of_table(const cf__table *t) {
    return cf__expiring_of((const cf_filter *)(const void *)t);
}

/* Whether buckets of b slots of w bits are read as one 64-bit word (the
 * table's swar layouts: cf__derive_layout). */
static bool cf__xp_one_word(unsigned b, unsigned w) {
    return b * w <= 57 || (b * w % 8 == 0 && b * w <= 64);
}

unsigned cf__expiring_stamp_bits(unsigned f, unsigned b) {
    unsigned s = 4;
    while (s > 1 && (double)(f + s) > 1.35 * f) s--;
    if (f + s > 32) return 0;
    /* One stamp less where that makes a bucket one word and keeps 7 stamps
     * a window: 13-bit fingerprints in buckets of four take 16-bit slots
     * (64-bit buckets) instead of 17 (68): lookups at 1.4x a plain
     * filter's instead of 2-5x, half the passes, and the same memory per
     * window item (16/13 * 8/7 = 1.41 against 17/13 * 16/15 = 1.39). */
    if (s == 4 && !cf__xp_one_word(b, f + 4) && cf__xp_one_word(b, f + 3)) s = 3;
    return s;
}

unsigned cf__expiring_stamps(unsigned s, uint64_t expire_after) {
    uint64_t most = ((uint64_t)1 << s) - 1;
    return (unsigned)(expire_after < most ? expire_after : most);
}

void cf__expiring_derive(cf__expiring *e, const cf__table *t) {
    unsigned w = t->fp_bits, b = t->bucket_size;
    e->stamps = cf__expiring_stamps(e->stamp_bits, e->expire_after);
    e->span = e->expire_after / e->stamps + (e->expire_after % e->stamps != 0);
    e->tick = e->now / e->span;
    e->fp_mask = ((uint64_t)1 << e->fp_bits) - 1;
    e->path = t->swar ? CF__XP_WORD : b / 2 * w <= 57 && b > 1 ? CF__XP_HALVES : CF__XP_SLOTS;
    /* The lanes of one word: a bucket's, or half a bucket's. */
    unsigned lanes = e->path == CF__XP_HALVES ? b / 2 : b;
    e->ones = e->fp_lanes = e->adds = e->highs = 0;
    for (unsigned s = 0; s < lanes && e->path != CF__XP_SLOTS; s++) {
        e->ones |= (uint64_t)1 << (s * w);
        e->fp_lanes |= e->fp_mask << (s * w);
        e->highs |= (uint64_t)1 << (s * w + w - 1);
        e->adds |= (((uint64_t)1 << (w - 1)) - 1) << (s * w);
    }
}

/* ---- reading buckets ---- */

static bool cf__xp_has_slots(const cf__table *t, const cf__expiring *e, uint64_t bucket,
                             uint32_t fp) {
    for (unsigned s = 0; s < t->bucket_size; s++)
        if ((cf__packed_slot_get(t, bucket, s) & e->fp_mask) == fp) return true;
    return false;
}

/* Whether bucket i1 or i2 holds fingerprint fp (stamps ignored). */
static inline bool cf__xp_has(const cf__table *t, const cf__expiring *e, uint64_t i1, uint64_t i2,
                              uint32_t fp) {
    uint64_t v = e->ones * fp;
    if (e->path == CF__XP_WORD)
        return (cf__xp_differ(e, cf__bucket_bits_at(t, i1), v) &
                cf__xp_differ(e, cf__bucket_bits_at(t, i2), v) & e->highs) != e->highs;
    if (e->path == CF__XP_HALVES) { /* each bucket as two words of b/2 lanes */
        uint64_t half = (uint64_t)t->bucket_size / 2 * t->fp_bits;
        uint64_t b1 = cf__bucket_bit(t, i1), b2 = cf__bucket_bit(t, i2);
        uint64_t d = cf__xp_differ(e, cf__bits_at(t->table, b1), v) &
                     cf__xp_differ(e, cf__bits_at(t->table, b1 + half), v) &
                     cf__xp_differ(e, cf__bits_at(t->table, b2), v) &
                     cf__xp_differ(e, cf__bits_at(t->table, b2 + half), v);
        return (d & e->highs) != e->highs;
    }
    return cf__xp_has_slots(t, e, i1, fp) || cf__xp_has_slots(t, e, i2, fp);
}

/* Where a hash puts its item: the f-bit fingerprint and its two buckets. */
static inline cf__slots cf__xp_locate(const cf__table *t, const cf__expiring *e, uint64_t h) {
    cf__slots p;
    p.fp = cf__fingerprint_masked(h, e->fp_mask);
    p.i1 = cf__index1(h, t->num_buckets);
    p.i2 = cf__alt_index(t, p.i1, p.fp);
    return p;
}

/* The entry an insert writes now. */
static inline uint32_t cf__xp_entry(const cf__expiring *e, uint32_t fp) {
    uint64_t stamp = e->tick & (((uint64_t)1 << e->stamp_bits) - 1);
    return (uint32_t)(fp | (stamp << e->fp_bits));
}

/* ---- the eviction search (table/bfs.h) and its moves ---- */

static void cf__xp_bfs_read(const cf__table *t, uint64_t bucket, uint32_t fp[CF_MAX_BUCKET_SIZE]) {
    uint64_t mask = cf__xp_of_table(t)->fp_mask;
    cf__bucket_read(t, bucket, fp);
    for (unsigned s = 0; s < t->bucket_size; s++) fp[s] &= (uint32_t)mask;
}

static int cf__xp_bfs_free(const cf__table *t, uint64_t bucket) {
    return cf__bucket_find(t, bucket, 0);
}

/* Moves whole slots (stamps too) along the path, then stores entry in the
 * freed root slot (evict.c's order: from the free end back). */
static void cf__xp_apply(cf__table *t, const cf__bfs_node *q, cf__bfs_end end, uint32_t entry) {
    int32_t at = end.at;
    unsigned slot = end.slot, dst_slot = (unsigned)end.dst_slot;
    uint64_t dst = end.dst;
    for (;;) {
        const cf__bfs_node *n = &q[at];
        cf__packed_slot_set(t, dst, dst_slot, cf__packed_slot_get(t, n->bucket, slot));
        t->total_kicks++;
        dst = n->bucket;
        dst_slot = slot;
        if (n->parent < 0) break;
        slot = n->slot;
        at = n->parent;
    }
    cf__packed_slot_set(t, dst, dst_slot, entry);
}

/* The readers of tables whose buckets start on a byte (CF__ADDR_BYTES and
 * CF__ADDR_POW2_BYTES: the slots of 8, 16 or 32 bits that the default
 * target's 13-bit fingerprints and 3-bit stamps make), as evict.c's: a
 * load at a byte offset, no shift, no test of the layout; bits above the
 * bucket's lanes are masked off, or move the free-slot test's borrows up. */
static void cf__xp_bytes_read(const cf__table *t, uint64_t bucket,
                              uint32_t fp[CF_MAX_BUCKET_SIZE]) {
    uint64_t w = cf__load64le(cf__bucket_at(t, bucket)), mask = cf__xp_of_table(t)->fp_mask;
    for (unsigned s = 0; s < t->bucket_size; s++)
        fp[s] = (uint32_t)((w >> (s * t->fp_bits)) & mask);
}

static int cf__xp_bytes_free(const cf__table *t, uint64_t bucket) {
    return cf__zero_slot(t, cf__zero_lanes(t, cf__load64le(cf__bucket_at(t, bucket))));
}

static uint64_t cf__xp_pow2_alt(const cf__table *t, uint64_t bucket, uint32_t fp) {
    return cf__alt_k(t, bucket, cf__alt_point(t, fp), true);
}

/* The search with the readers of t's addressing, each copy compiled with
 * its own; they find the same path. */
static cf__bfs_end cf__xp_search(const cf__table *t, cf__bfs_node *q, size_t cap, uint64_t i1,
                                 uint64_t i2) {
    if (t->addr == CF__ADDR_POW2_BYTES)
        return cf__bfs_search(t, q, cap, i1, i2, cf__xp_bytes_read, cf__xp_bytes_free,
                              cf__xp_pow2_alt);
    if (t->addr == CF__ADDR_BYTES)
        return cf__bfs_search(t, q, cap, i1, i2, cf__xp_bytes_read, cf__xp_bytes_free,
                              cf__alt_index);
    return cf__bfs_search(t, q, cap, i1, i2, cf__xp_bfs_read, cf__xp_bfs_free, cf__alt_index);
}

/* Stores entry in i1 or i2 after the shortest eviction path; nothing
 * changes on failure (CF_E_FULL or CF_E_NOMEM). */
static cf_status cf__xp_evict(cf__table *t, uint64_t i1, uint64_t i2, uint32_t entry) {
    cf__bfs_node on_stack[CF__STACK_NODES], *q = on_stack;
    size_t need = (size_t)t->max_kicks + 2;
    size_t cap = need < CF__STACK_NODES ? need : CF__STACK_NODES;
    cf__bfs_end end;
    for (;;) { /* a search that outgrew the stack runs again in scratch */
        end = cf__xp_search(t, q, cap, i1, i2);
        if (end.at >= 0 || !end.truncated || q != on_stack) break;
        q = cf__alloc(&t->alloc, need * sizeof *q);
        CF__RETURN_IF(q == NULL, CF_E_NOMEM);
        cap = need;
    }
    if (end.at >= 0) cf__xp_apply(t, q, end, entry);
    if (q != on_stack) cf__free(&t->alloc, q);
    return end.at >= 0 ? CF_OK : CF_E_FULL;
}

/* Stores entry (a slot's value) in bucket i1 or i2: a free slot of i1, else
 * of i2, else the eviction path.  Counts it. */
static cf_status cf__xp_store(cf__table *t, uint64_t i1, uint64_t i2, uint32_t entry) {
    uint64_t bucket = i1;
    int s = cf__bucket_find(t, bucket, 0);
    if (s < 0) s = cf__bucket_find(t, bucket = i2, 0);
    if (s >= 0) {
        cf__packed_slot_set(t, bucket, (unsigned)s, entry);
    } else {
        cf_status st = cf__xp_evict(t, i1, i2, entry);
        if (st != CF_OK) {
            t->failed_inserts += st == CF_E_FULL;
            return st;
        }
    }
    t->items++;
    return CF_OK;
}

/* ---- creating ---- */

cf_status cf__expiring_make(const cf_allocator *a, uint64_t nb, unsigned b, unsigned f,
                            unsigned max_kicks, uint64_t expire_after, cf_filter **out) {
    unsigned s = cf__expiring_stamp_bits(f, b);
    CF__RETURN_IF(s == 0 || expire_after == 0, CF_E_PARAM);
    cf_filter *x;
    CF__FORWARD_IF_ERROR(cf__filter_alloc(a, nb, b, f + s, 0, max_kicks, &x));
    cf__expiring *e = cf__alloc(&x->t.alloc, sizeof *e);
    if (e == NULL) {
        cf__handle_free_plain(x);
        return CF_E_NOMEM;
    }
    memset(e, 0, sizeof *e);
    e->fp_bits = f;
    e->stamp_bits = s;
    e->expire_after = expire_after;
    cf__expiring_derive(e, &x->t);
    x->state = e;
    x->kind = CF__EXPIRING;
    *out = x;
    return CF_OK;
}

/* cf__expiring_sized's room for a stream's peaks (measured there), by
 * bucket size: the share of the max load (cf_default_max_load(b), or
 * cfg.max_load) sized for at any size, and the slack of small tables. */
#define CF__XP_MIN_BUCKETS 16.0
static const struct {
    double share, slack;
} cf__xp_room[9] = {[1] = {0.75, 2.5}, [2] = {0.9, 2.5}, [4] = {1.0, 0.8}, [8] = {1.0, 0.8}};

void cf__expiring_sized(const cf_config *cfg, cf_config *out) {
    *out = *cfg;
    unsigned f, b, kicks, s;
    uint64_t nb;
    if (cfg->num_buckets != 0 || cfg->capacity == 0 || cfg->expire_after == 0 ||
        cf__resolve_config(cfg, &f, &b, &nb, &kicks) != CF_OK ||
        (s = cf__expiring_stamp_bits(f, b)) == 0)
        return; /* the caller's checks say what is wrong */
    /* Items live up to (k + 1) spans: capacity * (k + 1) * span /
     * expire_after of them at the rate of capacity per window. */
    uint64_t e = cfg->expire_after, k = cf__expiring_stamps(s, e), span = e / k + (e % k != 0);
    double most = ceil((double)cfg->capacity * (double)(k + 1) * (double)span / (double)e);
    /* A stream brings the table to that peak once a tick, k times a
     * window, forever, where a plain filter fills once: the load it is
     * sized for must be reached every time.  Small tables reach less of
     * it (their random graphs vary more), so the load is lowered by a
     * term that fades as the table grows, 1 - slack / sqrt(nb), and
     * tables have at least CF__XP_MIN_BUCKETS buckets.  Measured with
     * streams of 100 windows at the sized rate (50 seeds per capacity,
     * 10 to 5000; tests/test_expiring.c, test_small_streams): at the full
     * load 1 in 4 to 9 in 10 of them filled tables of capacity 10 to 500
     * in buckets of four; with this room none did in buckets of four or
     * eight (1.6% more memory at capacity 1000, under 0.1% from 1M), 1 in
     * 50 did at capacity 50 and 100 in buckets of two (was 8 in 10), and
     * buckets of one still fill (1 in 12 streams even at 5000: with one
     * slot a bucket, a fill fails with a chance of about 1/n whatever the
     * load, and a stream fills the table again and again). */
    double load = cf__sizing_load(cfg, b) * cf__xp_room[b].share;
    double nb0 = ceil(most / ((double)b * load));
    if (nb0 < CF__XP_MIN_BUCKETS) nb0 = CF__XP_MIN_BUCKETS;
    load *= 1.0 - cf__xp_room[b].slack / sqrt(nb0);
    out->max_load = load;
    double floor_items = ceil(CF__XP_MIN_BUCKETS * (double)b * load);
    if (most < floor_items) most = floor_items;
    out->capacity =
        most >= 1.8e19 ? UINT64_MAX : (uint64_t)most; /* cf_new's sizing is in doubles too */
}

cf_status cf__expiring_resolve(const cf_config *given, unsigned *f, unsigned *s, unsigned *b,
                               uint64_t *nb, unsigned *max_kicks, size_t *bytes) {
    CF__RETURN_IF(given->flags != 0 || given->expire_after == 0, CF_E_PARAM);
    cf_config cfg_sized;
    const cf_config *cfg = &cfg_sized;
    cf__expiring_sized(given, &cfg_sized);
    CF__FORWARD_IF_ERROR(cf__resolve_config(cfg, f, b, nb, max_kicks));
    /* A plain table's checks first, in cf_config_explain's order. */
    CF__FORWARD_IF_ERROR(cf__table_bytes(*nb, *b, *f, 0, bytes));
    *s = cf__expiring_stamp_bits(*f, *b);
    CF__RETURN_IF(*s == 0, CF_E_PARAM);
    return cf__table_bytes(*nb, *b, *f + *s, 0, bytes);
}

cf_status cf__expiring_new(const cf_config *cfg, cf_filter **out) {
    unsigned f, s, b, max_kicks;
    uint64_t nb;
    size_t bytes;
    CF__FORWARD_IF_ERROR(cf__expiring_resolve(cfg, &f, &s, &b, &nb, &max_kicks, &bytes));
    cf_filter *x;
    CF__FORWARD_IF_ERROR(
        cf__expiring_make(cfg->allocator, nb, b, f, max_kicks, cfg->expire_after, &x));
    cf__set_seed(&x->t, cfg->seed);
    x->t.table_bytes = bytes;
    if (cf__table_alloc(&x->t, true) != CF_OK) {
        cf__expiring_free(x);
        return CF_E_NOMEM;
    }
    *out = x;
    return CF_OK;
}

void cf__expiring_free(cf_filter *f) {
    if (f == NULL) return;
    if (f->state != NULL) cf__free(&f->t.alloc, f->state);
    f->state = NULL;
    cf__handle_free_plain(f);
}

size_t cf__expiring_memory(const cf_filter *f) {
    return sizeof *f + cf__table_memory(&f->t) + sizeof(cf__expiring);
}

/* ---- the clock ---- */

/* The table as one stream of bits, written back a 64-bit word at a time
 * behind the reads (the pass below reads each bucket, or slot, once and
 * appends what it keeps):
 *
 *   reads:   [bucket][bucket][buc|ket][bucket] ...   one unaligned load each
 *   writes:  [      word 0       ][   word 1  ...    once every bit of the
 *                                                    word has been read */
typedef struct cf__xp_writer {
    uint8_t *out;
    uint64_t acc;  /* the kept bits not yet written, from bit `have` down */
    unsigned have; /* < 64 */
} cf__xp_writer;

static inline void cf__xp_put(cf__xp_writer *wr, uint64_t bits, unsigned n) {
    wr->acc |= bits << wr->have;
    wr->have += n;
    if (wr->have >= 64) { /* the reads have passed this word */
        cf__store64le(wr->out, wr->acc);
        wr->out += 8;
        wr->have -= 64;
        /* The bits past the word; none when they ended on it (a shift by
         * 64 would be undefined). */
        wr->acc = wr->have != 0 ? bits >> (n - wr->have) : 0;
    }
}

/* The last bytes, up to the table's end (the padding stays zero). */
static void cf__xp_flush(cf__xp_writer *wr, const cf__table *t) {
    for (uint8_t *end = t->table + t->table_bytes; wr->out < end; wr->out++, wr->acc >>= 8)
        *wr->out = (uint8_t)wr->acc;
}

/* The entries of a one-word bucket v (b lanes of w bits) to remove: every
 * nonzero lane whose age at tick `old`, (old - stamp) mod 2^s, is at least
 * lim, as a mask of whole lanes.  All lanes at once: (2^s + old) - stamp
 * cannot borrow from the next lane (w > s), and neither can (a | 2^s) -
 * lim (lim <= k < 2^s). */
typedef struct cf__xp_lanes {
    uint64_t stamp_lanes; /* 2^s - 1 in each lane                     */
    uint64_t guard_old;   /* 2^s + old in each lane                   */
    uint64_t guard;       /* 2^s in each lane                         */
    uint64_t lim;         /* lim in each lane                         */
    uint64_t low;         /* 2^(w-1) - 1 in each lane                 */
    uint64_t ones;        /* 1 in each lane                           */
    uint64_t full;        /* 2^w - 1: a lane's bit 0 times it fills it */
    unsigned fb, s, w;
    unsigned top;  /* (b - 1) w: the top lane, where g * ones sums them */
    bool sum_fits; /* b < 2^w: that sum fits its lane             */
} cf__xp_lanes;

static inline uint64_t cf__xp_gone_lanes(const cf__xp_lanes *c, uint64_t v, uint64_t *gone_ones) {
    uint64_t stamp = (v >> c->fb) & c->stamp_lanes;
    uint64_t age = (c->guard_old - stamp) & c->stamp_lanes;
    uint64_t old_enough = (((age | c->guard) - c->lim) >> c->s) & c->ones;
    uint64_t nonzero = ((((v & c->low) + c->low) | v) >> (c->w - 1)) & c->ones;
    uint64_t g = old_enough & nonzero;
    *gone_ones = g;
    return g * c->full;
}

/* Removes the entries that are more than k ticks old once the clock has
 * moved d >= 1 ticks on from e->tick (every entry is at most k old there):
 * those whose age at the old tick is at least k - d + 1.  Without a branch
 * on the contents (a branch per slot, mispredicted for the few that go,
 * cost three times as much): buckets of one word (the table's swar
 * layouts) a bucket at a time, every lane at once (cf__xp_gone_lanes);
 * wider ones slot by slot, through a table of the 2^s stamps. */
static void cf__xp_expire(cf_filter *f, uint64_t d) {
    cf__table *t = &f->t;
    const cf__expiring *e = cf__expiring_of(f);
    if (d > e->stamps) { /* the whole window has passed */
        cf__table_clear(t);
        return;
    }
    unsigned smask = (1u << e->stamp_bits) - 1, w = t->fp_bits, fb = e->fp_bits;
    unsigned old = (unsigned)(e->tick & smask);
    uint64_t removed = 0;
    cf__xp_writer wr = {t->table, 0, 0};
    if (t->swar) {
        uint64_t ones = t->lane_ones, bw = t->bucket_bits;
        cf__xp_lanes c = {.stamp_lanes = ones * smask,
                          .guard_old = ones * ((uint64_t)smask + 1 + old),
                          .guard = ones * ((uint64_t)smask + 1),
                          .lim = ones * (e->stamps - d + 1),
                          .low = ones * ((((uint64_t)1) << (w - 1)) - 1),
                          .ones = ones,
                          .full = (((uint64_t)1) << w) - 1,
                          .fb = fb,
                          .s = e->stamp_bits,
                          .w = w,
                          .top = (t->bucket_size - 1) * w,
                          .sum_fits = t->bucket_size < (1u << (w < 31 ? w : 31))};
        for (uint64_t i = 0, bit = 0; i < t->num_buckets; i++, bit += bw) {
            uint64_t v = cf__bits_at(t->table, bit) & t->bucket_mask, g;
            uint64_t gone = cf__xp_gone_lanes(&c, v, &g);
            /* The lanes' bits summed into the top lane by one multiply
             * (x86-64's baseline has no popcount instruction: its library
             * call took a sixth of the pass). */
            removed +=
                c.sum_fits ? ((g * ones) >> c.top) & c.full : (uint64_t)__builtin_popcountll(g);
            cf__xp_put(&wr, v & ~gone, (unsigned)bw);
        }
    } else {
        uint64_t gone[16];
        for (unsigned st = 0; st <= smask; st++) gone[st] = ((old - st) & smask) + d > e->stamps;
        uint64_t slots = t->num_buckets * t->bucket_size, mask = t->fp_mask;
        for (uint64_t j = 0, bit = 0; j < slots; j++, bit += w) {
            uint64_t v = cf__bits_at(t->table, bit) & mask;
            uint64_t g = gone[v >> fb] & (v != 0);
            removed += g;
            cf__xp_put(&wr, v & (g - 1), w);
        }
    }
    cf__xp_flush(&wr, t);
    t->items -= removed;
}

cf_status cf__expiring_set_time(cf_filter *f, uint64_t now) {
    cf__expiring *e = cf__expiring_of(f);
    CF__RETURN_IF(now < e->now, CF_E_INVAL);
    uint64_t tick = now / e->span;
    if (tick != e->tick) cf__xp_expire(f, tick - e->tick);
    e->now = now;
    e->tick = tick;
    return CF_OK;
}

cf_status cf__expiring_check_table(const cf_filter *f) {
    const cf__table *t = &f->t;
    const cf__expiring *e = cf__expiring_of(f);
    unsigned stamp_mask = (1u << e->stamp_bits) - 1, now = (unsigned)(e->tick & stamp_mask);
    uint64_t n = 0;
    uint32_t v[CF_MAX_BUCKET_SIZE];
    for (uint64_t i = 0; i < t->num_buckets; i++) {
        cf__bucket_read(t, i, v);
        for (unsigned s = 0; s < t->bucket_size; s++) {
            if (v[s] == 0) continue;
            CF__RETURN_IF((v[s] & e->fp_mask) == 0, CF_E_CORRUPT);
            CF__RETURN_IF(((now - (v[s] >> e->fp_bits)) & stamp_mask) > e->stamps, CF_E_CORRUPT);
            n++;
        }
    }
    CF__RETURN_IF(n != t->items, CF_E_CORRUPT);
    return CF_OK;
}

/* ---- operations on keys ---- */

bool cf__expiring_contains_other(const cf_filter *f, uint64_t h) {
    const cf__expiring *e = cf__expiring_of(f);
    cf__slots p = cf__xp_locate(&f->t, e, h);
    return cf__xp_has(&f->t, e, p.i1, p.i2, p.fp);
}

cf_status cf__expiring_insert_hash(cf_filter *f, uint64_t h) {
    const cf__expiring *e = cf__expiring_of(f);
    cf__slots p = cf__xp_locate(&f->t, e, h);
    if (f->t.far) cf__prefetch_bucket(&f->t, p.i2);
    return cf__xp_store(&f->t, p.i1, p.i2, cf__xp_entry(e, p.fp));
}

/* Stamps every entry of bucket holding fp now; how many there were. */
static unsigned cf__xp_refresh_bucket(cf__table *t, const cf__expiring *e, uint64_t bucket,
                                      uint32_t fp) {
    uint32_t v[CF_MAX_BUCKET_SIZE], entry = cf__xp_entry(e, fp);
    unsigned n = 0;
    cf__bucket_read(t, bucket, v);
    for (unsigned s = 0; s < t->bucket_size; s++) {
        if ((v[s] & e->fp_mask) != fp) continue;
        n++;
        if (v[s] != entry) cf__packed_slot_set(t, bucket, s, entry);
    }
    return n;
}

/* Present (as cf_contains says): every matching entry of both buckets is
 * stamped now, so whichever of them is the key's own lives a window from
 * now, and CF_E_EXISTS; else an insert. */
cf_status cf__expiring_insert_unique_hash(cf_filter *f, uint64_t h) {
    const cf__expiring *e = cf__expiring_of(f);
    cf__slots p = cf__xp_locate(&f->t, e, h);
    if (cf__xp_has(&f->t, e, p.i1, p.i2, p.fp)) {
        cf__xp_refresh_bucket(&f->t, e, p.i1, p.fp);
        if (p.i2 != p.i1) cf__xp_refresh_bucket(&f->t, e, p.i2, p.fp);
        return CF_E_EXISTS;
    }
    return cf__xp_store(&f->t, p.i1, p.i2, cf__xp_entry(e, p.fp));
}

#if !defined(__wasm__) /* the delete's fast path, below */
/* The top bits of the lanes of bucket's word that hold fp (CF__XP_WORD). */
static inline uint64_t cf__xp_matches(const cf__table *t, const cf__expiring *e, uint64_t bucket,
                                      uint32_t fp) {
    return ~cf__xp_differ(e, cf__bucket_bits_at(t, bucket), e->ones * fp) & e->highs;
}
#endif

/* Removes one entry of fp from the key's buckets: the oldest (the first
 * of i1, then of i2, among equally old ones).  Entries of one fingerprint
 * are alike to a lookup but not to the clock: each stands for an item
 * written at its stamp, and which item is deleted cannot be told.  Taking
 * the oldest leaves the newest stamps, so each item left keeps a stamp at
 * least as recent as its own write and stays until its window ends; taking
 * another could leave a colliding item only an older stamp, and it would
 * be gone before its time (a false negative). */
cf_status cf__expiring_delete_hash(cf_filter *f, uint64_t h) {
    const cf__expiring *e = cf__expiring_of(f);
    cf__slots p = cf__xp_locate(&f->t, e, h);
    uint64_t bucket = p.i1;
    int slot = -1;
    bool one = false; /* the only entry of fp, found below */
#if !defined(__wasm__)
    /* One entry of fp, the common case, needs no stamps: natively it is found
     * from both buckets' words as a lookup reads them.  The WebAssembly
     * module, whose size is budgeted (web/build.sh), scans for every delete,
     * which finds the same entry. */
    if (e->path == CF__XP_WORD) {
        uint64_t m1 = cf__xp_matches(&f->t, e, p.i1, p.fp);
        uint64_t m2 = p.i2 != p.i1 ? cf__xp_matches(&f->t, e, p.i2, p.fp) : 0, m = m1 | m2;
        CF__RETURN_IF(m == 0, CF_E_NOT_FOUND);
        if (__builtin_popcountll(m1) + __builtin_popcountll(m2) == 1) {
            bucket = m1 ? p.i1 : p.i2;
            slot = (int)((unsigned)__builtin_ctzll(m) / (e->fp_bits + e->stamp_bits));
            one = true;
        }
    }
#endif
    uint64_t stamp_mask = ((uint64_t)1 << e->stamp_bits) - 1, now = e->tick & stamp_mask;
    uint64_t oldest = 0;
    uint32_t v[CF_MAX_BUCKET_SIZE];
    for (int r = 0; !one && r < (p.i2 != p.i1 ? 2 : 1); r++) {
        uint64_t b = r == 0 ? p.i1 : p.i2;
        cf__bucket_read(&f->t, b, v);
        for (unsigned s = 0; s < f->t.bucket_size; s++) {
            if ((v[s] & e->fp_mask) != p.fp) continue;
            /* Live stamps are at most k ticks old, k < 2^s: the age modulo
             * 2^s is the age. */
            uint64_t age = (now - ((uint64_t)v[s] >> e->fp_bits)) & stamp_mask;
            if (slot < 0 || age > oldest) bucket = b, slot = (int)s, oldest = age;
        }
    }
    CF__RETURN_IF(slot < 0, CF_E_NOT_FOUND);
    cf__packed_slot_set(&f->t, bucket, (unsigned)slot, 0);
    f->t.items--;
    return CF_OK;
}

size_t cf__expiring_count_hash(const cf_filter *f, uint64_t h) {
    const cf__expiring *e = cf__expiring_of(f);
    cf__slots p = cf__xp_locate(&f->t, e, h);
    size_t n = 0;
    uint32_t v[CF_MAX_BUCKET_SIZE];
    for (int k = 0; k < (p.i2 != p.i1 ? 2 : 1); k++) {
        cf__bucket_read(&f->t, k == 0 ? p.i1 : p.i2, v);
        for (unsigned s = 0; s < f->t.bucket_size; s++) n += (v[s] & e->fp_mask) == p.fp;
    }
    return n;
}

/* Keys whose buckets are prefetched ahead of their turn in a batch. */
#define CF__XP_AHEAD 8

static void cf__xp_prefetch(const cf__table *t, const cf__expiring *e, uint64_t h) {
    cf__slots q = cf__xp_locate(t, e, h);
    cf__prefetch_bucket(t, q.i1);
    cf__prefetch_bucket(t, q.i2);
}

cf_status cf__expiring_insert_batch(cf_filter *f, const uint64_t *hashes, size_t n,
                                    size_t *inserted) {
    const cf__expiring *e = cf__expiring_of(f);
    for (size_t j = 0; j < n; j++) {
        if (f->t.far && j + CF__XP_AHEAD < n) cf__xp_prefetch(&f->t, e, hashes[j + CF__XP_AHEAD]);
        cf__slots p = cf__xp_locate(&f->t, e, hashes[j]);
        CF__FORWARD_IF_ERROR(cf__xp_store(&f->t, p.i1, p.i2, cf__xp_entry(e, p.fp)));
        if (inserted != NULL) *inserted = j + 1;
    }
    return CF_OK;
}

size_t cf__expiring_contains_batch(const cf_filter *f, const uint64_t *hashes, size_t n,
                                   bool *out) {
    const cf__expiring *e = cf__expiring_of(f);
    if (e->path == CF__XP_WORD) /* the plain tables' pipeline, lanes masked to fingerprints */
        return cf__table_contains_batch_lanes(&f->t, hashes, n, out, e->fp_mask, e->fp_lanes);
    size_t found = 0;
    for (size_t j = 0; j < n; j++) {
        if (f->t.far && j + CF__XP_AHEAD < n) cf__xp_prefetch(&f->t, e, hashes[j + CF__XP_AHEAD]);
        cf__slots p = cf__xp_locate(&f->t, e, hashes[j]);
        bool hit = cf__xp_has(&f->t, e, p.i1, p.i2, p.fp);
        found += hit;
        if (out != NULL) out[j] = hit;
    }
    return found;
}

/* ---- whole filters ---- */

cf_status cf__expiring_clear(cf_filter *f) {
    cf__table_clear(&f->t);
    return CF_OK;
}

void cf__expiring_stats(const cf_filter *f, cf_stats *out) {
    const cf__expiring *e = cf__expiring_of(f);
    cf__table_stats(&f->t, out);
    out->fingerprint_bits = e->fp_bits;
    out->expected_fpp = cf__fpp(e->fp_bits, f->t.bucket_size, out->load_factor);
    out->fpp_bound = cf__fpp(e->fp_bits, f->t.bucket_size, 1.0);
    out->memory_bytes = cf__expiring_memory(f);
    out->expire_after = e->expire_after;
    out->expire_span = e->span;
    out->stamp_bits = e->stamp_bits;
    out->stamps = e->stamps;
    out->now = e->now;
}

/* Every entry of src, stamp and all, into the pair of buckets it belongs
 * to in dst (the same shape: cf__table_merge_all's argument); the clocks
 * agree, so the stamps mean the same ticks in both. */
cf_status cf__expiring_merge(cf_filter *dst, const cf_filter *src) {
    const cf__expiring *d = cf__expiring_of(dst), *s = cf__expiring_of(src);
    CF__RETURN_IF(!cf__table_same_shape(&dst->t, &src->t) || d->fp_bits != s->fp_bits ||
                      d->expire_after != s->expire_after || d->now != s->now,
                  CF_E_PARAM);
    const cf__table *st = &src->t;
    cf__table *dt = &dst->t;
    CF__RETURN_IF(st->items > dt->num_buckets * dt->bucket_size - dt->items, CF_E_FULL);
    if (st->items == 0) return CF_OK;
    cf__table_saved saved;
    CF__FORWARD_IF_ERROR(cf__table_save(dt, &saved));
    cf_status rc = CF_OK;
    uint32_t v[CF_MAX_BUCKET_SIZE];
    for (uint64_t i = 0; i < st->num_buckets && rc == CF_OK; i++) {
        cf__bucket_read(st, i, v);
        for (unsigned k = 0; k < st->bucket_size && rc == CF_OK; k++)
            if (v[k] != 0)
                rc = cf__xp_store(dt, i, cf__alt_index(dt, i, (uint32_t)(v[k] & d->fp_mask)), v[k]);
    }
    if (rc != CF_OK) cf__table_restore(dt, &saved);
    cf__free(&dt->alloc, saved.table);
    return rc;
}
