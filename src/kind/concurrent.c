/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * concurrent.c -- CF_CONCURRENT: one filter used by many threads at once.
 *
 * Readers take no lock; writers lock stripes of consecutive buckets
 * (concurrent.h); only evictions make readers retry, as in optimistic
 * cuckoo hashing (MemC3, libcuckoo):
 *
 *   lookup:  v1 = version(i1), v2 = version(i2)        (acquire)
 *            read buckets i1 and i2                    (relaxed atomic loads)
 *            found -> true (the fingerprint was there)
 *            fence; v1, v2 unchanged and even -> false, else read again
 *
 *   insert:  free slot in i1 (read unlocked)? lock stripe(i1), store if
 *            still free, unlock; then the same for i2 (in a balanced
 *            table, i2 first when its first free slot is earlier);
 *            else search an eviction path without locks (breadth-first,
 *            as evict.c), and move along it from the free end:
 *
 *              E[free] = X[s1]     under the locks of X and E
 *              X[s1]   = i1[s0]    under the locks of i1 and X
 *              i1[s0]  = fp        (same critical section as the move before)
 *
 *            each move re-checks what the search saw (the fingerprint still
 *            there and still belonging to the destination, a free slot
 *            there), and the insert starts over when it does not hold.  A
 *            move raises the versions of both its stripes to odd, writes the
 *            destination, clears the source and makes them even again, so a
 *            reader that saw the source after the move and the destination
 *            before it retries: an item is never missed.
 *
 * Shared words: buckets are bit-packed, so one 8-byte word holds bits of
 * neighbouring buckets, which near a stripe's edge may belong to the next
 * stripe.  There a write is an atomic XOR of the changed bits into the
 * aligned words that hold them (a writer knows the old value of the bits it
 * owns), so writers of neighbouring stripes never undo each other's stores;
 * inside a stripe, where the lock held covers every bucket of the word, an
 * atomic load and a release store do.  Every read is a relaxed atomic load
 * of aligned words: no data race in the C11 sense, and ThreadSanitizer
 * checks it (scripts/test.sh).
 *
 * What the C11 model proves (not only x86, ARMv8 and POWER, which are
 * stronger): a lookup that passes its version re-check saw every move that
 * had reached the words it read.  A move stores its versions odd, then a
 * release fence, then its data; the lookup loads data, then an acquire
 * fence, then the versions again.  If a data load of the lookup reads a
 * word whose value comes after a move's store (the move's own store, or a
 * later one that read it), that move's release fence synchronizes with the
 * lookup's acquire fence, so the re-check sees the odd version or a later
 * one and reads again.  Inserts into a free slot and deletes change words
 * without versions, after the moves that changed them before, and keep
 * that chain unbroken: (a) in a word shared between stripes by an atomic
 * RMW, which continues the release sequence of the move's RMW on that word
 * (every writer of a shared word uses RMWs); (b) in a word of one stripe
 * by a release store, made under the stripe lock the move held while it
 * wrote the word, so the move happens before the store and the store's
 * release carries that to the lookup's acquire fence.  With a relaxed
 * store in (b), C11 would let a lookup pair that later store with a stale
 * read of the move's other bucket and miss the item.  A release store is a
 * plain store on x86 (callgrind: the same instructions per lookup; notes of
 * issue 24).
 * Not covered, and not needed: items inserted or deleted while the lookup
 * runs may be seen or not (they are not stable).
 *
 * Writers hold at most three stripes, always locked in ascending order, and
 * whole-table operations (stats, serialize, save, clear) lock all of them in
 * the same order, so there is no deadlock and they see a consistent cut.
 * Counters live in the stripes, changed under their locks: exact once
 * writers are quiet, and summed under all locks.
 *
 * Run by one thread, every operation makes the same choices as the plain
 * filter's (same slots, same breadth-first path), so the tables are
 * byte-identical (tests/test_concurrent.c checks it).
 */
#define _POSIX_C_SOURCE 200809L

#include <sched.h>

#include "table/bfs.h"
#include "kind/concurrent.h"
#include "table/table.h"

/* ---- the table as aligned atomic little-endian words ---- */

static inline _Atomic uint64_t *cf__concurrent_word(const cf__table *f, uint64_t k) {
    return (_Atomic uint64_t *)(void *)f->table + k;
}

static inline uint64_t cf__concurrent_le(uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* The n <= 64 table bits from bit offset `bit` in the low end of the result
 * (whatever follows them above): the aligned words holding the first and
 * the last bit, joined by one double shift.  Both are the same word when the
 * bits do not cross into the next, which is then never read (it may lie in
 * another cache line, or past the table's padding). */
static inline uint64_t cf__concurrent_bits(const cf__table *f, uint64_t bit, unsigned n) {
    uint64_t lo = cf__concurrent_le(
        atomic_load_explicit(cf__concurrent_word(f, bit >> 6), memory_order_relaxed));
    uint64_t hi = cf__concurrent_le(
        atomic_load_explicit(cf__concurrent_word(f, (bit + n - 1) >> 6), memory_order_relaxed));
    return (uint64_t)((((unsigned __int128)hi << 64) | lo) >> (bit & 63));
}

/* Flips bits of word k.  `shared`: other stripes' writers may change the
 * word too, so an atomic read-modify-write; else every bit of the word
 * belongs to buckets of the caller's locked stripe, and a load and a store
 * (both atomic, for the readers) cost less than a locked instruction.  The
 * store is a release and the RMW continues release sequences: lookups
 * rely on both (the top comment says what is proven). */
static inline void cf__concurrent_flip_word(cf__table *f, uint64_t k, uint64_t x, bool shared) {
    _Atomic uint64_t *w = cf__concurrent_word(f, k);
    if (shared) {
        atomic_fetch_xor_explicit(w, cf__concurrent_le(x), memory_order_relaxed);
        return;
    }
    uint64_t v = atomic_load_explicit(w, memory_order_relaxed);
    atomic_store_explicit(w, v ^ cf__concurrent_le(x), memory_order_release);
}

/* Flips the bits of x (n <= 32 bits) at bit offset `bit`. */
static inline void cf__concurrent_flip(cf__table *f, uint64_t bit, unsigned n, uint64_t x,
                                       bool shared) {
    uint64_t k = bit >> 6;
    unsigned sh = (unsigned)(bit & 63);
    cf__concurrent_flip_word(f, k, x << sh, shared);
    if (sh + n > 64) cf__concurrent_flip_word(f, k + 1, x >> (64 - sh), shared);
}

static inline uint32_t cf__concurrent_slot_get(const cf__table *f, uint64_t bucket, unsigned slot) {
    return (uint32_t)(cf__concurrent_bits(f, cf__slot_bit(f, bucket, slot), f->fp_bits) &
                      f->fp_mask);
}

/* Changes the slot at table bit `bit` of bucket from old to v; the caller
 * holds the bucket's stripe.  The words of a bucket away from its stripe's
 * edges hold only that stripe's buckets (a word spans fewer than margin
 * buckets). */
static inline void cf__concurrent_slot_change(cf_filter *f, uint64_t bucket, uint64_t bit,
                                              uint32_t old, uint32_t v) {
    const struct cf__concurrent *cc = cf__concurrent_of(f);
    uint64_t at = bucket & (((uint64_t)1 << cc->shift) - 1);
    bool shared = at < cc->margin || ((uint64_t)1 << cc->shift) - at <= cc->margin;
    cf__concurrent_flip(&f->t, bit, f->t.fp_bits, old ^ v, shared);
}

/* Buckets of at most 64 bits are searched as one word: cf__concurrent_bits reads
 * any of them, unlike the plain code's single load (f->swar). */
static inline bool cf__concurrent_one_word(const cf__table *f) {
    return f->bucket_bits <= 64;
}

/* Returned by cf__concurrent_find when no slot matches. */
#define CF__CONCURRENT_NONE UINT64_MAX

/* The table bit where the first slot of bucket holding v starts (v = 0: the
 * first free slot), or CF__CONCURRENT_NONE.  Buckets of up to 64 bits are searched
 * as one word (cf__concurrent_one_word; a filter with CF_CONCURRENT is never
 * semi-sorted), where the lowest bit of the zero-lane mask is the top bit
 * of that slot; wider ones slot by slot. */
static inline uint64_t cf__concurrent_find(const cf__table *f, uint64_t bucket, uint32_t v) {
    uint64_t at = cf__bucket_bit(f, bucket);
    if (cf__concurrent_one_word(f)) {
        uint64_t w = cf__concurrent_bits(f, at, f->bucket_bits);
        uint64_t z = cf__zero_lanes(f, w ^ (f->lane_ones * v));
        return z == 0 ? CF__CONCURRENT_NONE : at + (unsigned)__builtin_ctzll(z) + 1 - f->fp_bits;
    }
    for (unsigned s = 0; s < f->bucket_size; s++, at += f->fp_bits)
        if ((cf__concurrent_bits(f, at, f->fp_bits) & f->fp_mask) == v) return at;
    return CF__CONCURRENT_NONE;
}

static inline bool cf__concurrent_has(const cf__table *f, uint64_t bucket, uint32_t v) {
    return cf__concurrent_find(f, bucket, v) != CF__CONCURRENT_NONE;
}

static inline void cf__concurrent_bucket_read(const cf__table *f, uint64_t bucket,
                                              uint32_t fp[CF_MAX_BUCKET_SIZE]) {
    if (cf__concurrent_one_word(f)) {
        cf__word_read(f, cf__concurrent_bits(f, cf__bucket_bit(f, bucket), f->bucket_bits), fp);
        return;
    }
    for (unsigned s = 0; s < f->bucket_size; s++) fp[s] = cf__concurrent_slot_get(f, bucket, s);
}

/* ---- stripes: spinlocks and seqlock versions ---- */

static inline cf__stripe *cf__concurrent_stripe(const cf_filter *f, uint64_t bucket) {
    return &cf__concurrent_of(f)->stripes[bucket >> cf__concurrent_of(f)->shift];
}

/* Waits politely: a few pause instructions, then the processor is given
 * away, because with more threads than cores the thread being waited for
 * may not be running. */
static void cf__concurrent_relax(unsigned spins) {
    if (spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    } else {
        sched_yield();
    }
}

static void cf__concurrent_lock(cf__stripe *s) {
    for (unsigned spins = 0;; spins++) {
        if (atomic_load_explicit(&s->lock, memory_order_relaxed) == 0 &&
            atomic_exchange_explicit(&s->lock, 1, memory_order_acquire) == 0)
            return;
        cf__concurrent_relax(spins);
    }
}

static void cf__concurrent_unlock(cf__stripe *s) {
    atomic_store_explicit(&s->lock, 0, memory_order_release);
}

/* Up to three stripes, locked in ascending order without repeats. */
typedef struct cf__concurrent_held {
    uint64_t at[3];
    unsigned n;
} cf__concurrent_held;

static void cf__concurrent_lock_set(const cf_filter *f, cf__concurrent_held *h, uint64_t a,
                                    uint64_t b, uint64_t c) {
    uint64_t s[3] = {a >> cf__concurrent_of(f)->shift, b >> cf__concurrent_of(f)->shift,
                     c >> cf__concurrent_of(f)->shift},
             t;
    if (s[0] > s[1]) t = s[0], s[0] = s[1], s[1] = t;
    if (s[1] > s[2]) t = s[1], s[1] = s[2], s[2] = t;
    if (s[0] > s[1]) t = s[0], s[0] = s[1], s[1] = t;
    h->n = 0;
    for (unsigned k = 0; k < 3; k++)
        if (h->n == 0 || h->at[h->n - 1] != s[k]) h->at[h->n++] = s[k];
    for (unsigned k = 0; k < h->n; k++)
        cf__concurrent_lock(&cf__concurrent_of(f)->stripes[h->at[k]]);
}

static void cf__concurrent_unlock_set(const cf_filter *f, const cf__concurrent_held *h) {
    for (unsigned k = h->n; k-- > 0;)
        cf__concurrent_unlock(&cf__concurrent_of(f)->stripes[h->at[k]]);
}

/* Seqlock writer side (the caller holds the stripe's lock): odd before the
 * data changes, even again after. */
static void cf__concurrent_write_begin(_Atomic uint32_t *version) {
    uint32_t v = atomic_load_explicit(version, memory_order_relaxed);
    atomic_store_explicit(version, v + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
}

static void cf__concurrent_write_end(_Atomic uint32_t *version) {
    uint32_t v = atomic_load_explicit(version, memory_order_relaxed);
    atomic_store_explicit(version, v + 1, memory_order_release);
}

static inline _Atomic uint32_t *cf__concurrent_version(const cf_filter *f, uint64_t bucket) {
    return &cf__concurrent_of(f)->versions[bucket >> cf__concurrent_of(f)->shift];
}

/* Seqlock reader side: true when nothing the reader depended on moved. */
static inline bool cf__concurrent_read_valid(_Atomic uint32_t *a, uint32_t va, _Atomic uint32_t *b,
                                             uint32_t vb) {
    atomic_thread_fence(memory_order_acquire);
    return ((va | vb) & 1) == 0 && atomic_load_explicit(a, memory_order_relaxed) == va &&
           atomic_load_explicit(b, memory_order_relaxed) == vb;
}

/* ---- creation ---- */

/* Stripes for a table: at most CF__CONCURRENT_MAX_STRIPES and 1% of the table's
 * bytes, at least one; each covers 2^shift consecutive buckets. */
static void cf__concurrent_size(const cf_filter *f, uint64_t *nstripes, unsigned *shift) {
    uint64_t want = f->t.table_bytes / 100 / (sizeof(cf__stripe) + sizeof(uint32_t));
    if (want > CF__CONCURRENT_MAX_STRIPES) want = CF__CONCURRENT_MAX_STRIPES;
    unsigned s = 0;
    while (s < 63 && ((f->t.num_buckets - 1) >> s) + 1 > want) s++;
    *shift = s;
    *nstripes = ((f->t.num_buckets - 1) >> s) + 1;
}

/* Gives the plain filter f its stripes: each stripe's items counted from
 * the table, the filter's kicks and failed inserts carried over.  CF_OK,
 * CF_E_NOMEM, or CF_E_PARAM for memory not aligned for atomic words. */
cf_status cf__concurrent_attach(cf_filter *f) {
    /* Atomic words need the natural alignment that malloc gives. */
    CF__RETURN_IF((uintptr_t)f->t.table % sizeof(uint64_t) != 0, CF_E_PARAM);
    uint64_t nstripes;
    unsigned shift;
    cf__concurrent_size(f, &nstripes, &shift);
    size_t bytes =
        sizeof(struct cf__concurrent) + (size_t)nstripes * (sizeof(cf__stripe) + sizeof(uint32_t));
    struct cf__concurrent *cc = cf__alloc(&f->t.alloc, bytes);
    CF__RETURN_IF(cc == NULL, CF_E_NOMEM);
    if ((uintptr_t)cc % sizeof(uint64_t) != 0) {
        cf__free(&f->t.alloc, cc);
        return CF_E_PARAM;
    }
    memset(cc, 0, bytes);
    cc->bytes = bytes;
    cc->nstripes = nstripes;
    cc->shift = shift;
    cc->margin = 64 / f->t.bucket_bits + 2;
    cc->versions = (_Atomic uint32_t *)(void *)(cc->stripes + nstripes);
    atomic_init(&cc->failed_inserts, f->t.failed_inserts);
    for (uint64_t i = 0; i < nstripes; i++) {
        atomic_init(&cc->stripes[i].lock, 0);
        atomic_init(&cc->versions[i], 0);
    }
    /* No other thread can see f yet: plain reads count the items. */
    if (f->t.items != 0)
        for (uint64_t i = 0; i < f->t.num_buckets; i++)
            cc->stripes[i >> shift].items += f->t.bucket_size - cf__bucket_count(&f->t, i, 0);
    cc->stripes[0].kicks = f->t.total_kicks;
    /* From here the stripes hold the counters: the handle's are zero, not
     * stale copies (cf__concurrent_view sums the stripes'). */
    f->t.items = f->t.total_kicks = f->t.failed_inserts = 0;
    f->state = cc;
    f->t.flags |= CF_CONCURRENT;
    f->kind = CF__CONCURRENT;
    return CF_OK;
}

cf_status cf__concurrent_new(const cf_config *cfg, cf_filter **out) {
    /* Semi-sorted buckets are rewritten whole (re-sorted) by every store,
     * and other flags change the table's shape: none combines with this one
     * yet, unknown ones included. */
    CF__RETURN_IF(cfg->flags != CF_CONCURRENT, CF_E_PARAM);
    cf_config plain = *cfg;
    plain.flags = 0;
    cf_filter *f;
    CF__FORWARD_IF_ERROR(cf__handle_new_plain(&plain, &f));
    cf_status st = cf__concurrent_attach(f);
    if (st != CF_OK) {
        cf__handle_free_plain(f);
        return st;
    }
    *out = f;
    return CF_OK;
}

void cf__concurrent_free(cf_filter *f) {
    cf__free(&f->t.alloc, cf__concurrent_of(f));
    cf__handle_free_plain(f);
}

size_t cf__concurrent_memory(const cf_filter *f) {
    return sizeof *f + cf__table_memory(&f->t) + cf__concurrent_of(f)->bytes;
}

/* ---- lookups ---- */

/* Buckets read slot by slot, out of line so that the common lookup below
 * keeps few registers. */
__attribute__((noinline)) static bool cf__concurrent_contains_slots(const cf_filter *f,
                                                                    uint64_t h) {
    cf__slots p = cf__locate(&f->t, h);
    _Atomic uint32_t *a = cf__concurrent_version(f, p.i1), *b = cf__concurrent_version(f, p.i2);
    for (unsigned spins = 0;; spins++) {
        uint32_t va = atomic_load_explicit(a, memory_order_acquire);
        uint32_t vb = atomic_load_explicit(b, memory_order_acquire);
        if (cf__concurrent_has(&f->t, p.i1, p.fp) || cf__concurrent_has(&f->t, p.i2, p.fp))
            return true;
        if (cf__concurrent_read_valid(a, va, b, vb)) return false;
        cf__concurrent_relax(spins);
    }
}

/* One optimistic read of both buckets of h; true when it decided *found.
 * The versions are read first, and the filter's fields after them (an
 * acquire load makes the compiler read them again, which costs less than
 * keeping them in registers across it). */
static inline bool cf__concurrent_lookup_once(const cf_filter *f, uint64_t h, bool *found) {
    cf__slots p = cf__locate(&f->t, h);
    _Atomic uint32_t *a = cf__concurrent_version(f, p.i1), *b = cf__concurrent_version(f, p.i2);
    uint32_t va = atomic_load_explicit(a, memory_order_acquire);
    uint32_t vb = atomic_load_explicit(b, memory_order_acquire);
    uint64_t v = f->t.lane_ones * p.fp;
    unsigned n = f->t.bucket_bits;
    uint64_t x1 = cf__concurrent_bits(&f->t, cf__bucket_bit(&f->t, p.i1), n) ^ v;
    uint64_t x2 = cf__concurrent_bits(&f->t, cf__bucket_bit(&f->t, p.i2), n) ^ v;
    /* A fingerprint seen is an answer whatever moves next. */
    *found = (cf__zero_lanes(&f->t, x1) | cf__zero_lanes(&f->t, x2)) != 0;
    return *found || cf__concurrent_read_valid(a, va, b, vb);
}

/* Reads again until nothing moved under the read: out of line, so that the
 * common single read keeps few registers. */
__attribute__((noinline)) static bool cf__concurrent_contains_retry(const cf_filter *f,
                                                                    uint64_t h) {
    bool found;
    for (unsigned spins = 0; !cf__concurrent_lookup_once(f, h, &found); spins++)
        cf__concurrent_relax(spins);
    return found;
}

bool cf__concurrent_contains_hash(const cf_filter *f, uint64_t h) {
    if (!cf__concurrent_one_word(&f->t)) return cf__concurrent_contains_slots(f, h);
    bool found;
    if (__builtin_expect(cf__concurrent_lookup_once(f, h, &found), 1)) return found;
    return cf__concurrent_contains_retry(f, h);
}

size_t cf__concurrent_count_hash(const cf_filter *f, uint64_t h) {
    cf__slots p = cf__locate(&f->t, h);
    _Atomic uint32_t *a = cf__concurrent_version(f, p.i1), *b = cf__concurrent_version(f, p.i2);
    for (unsigned spins = 0;; spins++) {
        uint32_t va = atomic_load_explicit(a, memory_order_acquire);
        uint32_t vb = atomic_load_explicit(b, memory_order_acquire);
        uint32_t fp[2][CF_MAX_BUCKET_SIZE];
        cf__concurrent_bucket_read(&f->t, p.i1, fp[0]);
        cf__concurrent_bucket_read(&f->t, p.i2, fp[1]);
        if (cf__concurrent_read_valid(a, va, b, vb)) {
            size_t n = 0;
            for (unsigned s = 0; s < f->t.bucket_size; s++)
                n += (fp[0][s] == p.fp) + (p.i2 != p.i1 && fp[1][s] == p.fp);
            return n;
        }
        cf__concurrent_relax(spins);
    }
}

/* Keys whose buckets are prefetched ahead of their lookup. */
#define CF__CONCURRENT_AHEAD 8

size_t cf__concurrent_contains_batch(const cf_filter *f, const uint64_t *hashes, size_t n,
                                     bool *out) {
    size_t found = 0;
    for (size_t j = 0; j < n; j++) {
        if (j + CF__CONCURRENT_AHEAD < n) {
            cf__slots q = cf__locate(&f->t, hashes[j + CF__CONCURRENT_AHEAD]);
            cf__prefetch_bucket(&f->t, q.i1);
            cf__prefetch_bucket(&f->t, q.i2);
        }
        bool hit = cf__concurrent_contains_hash(f, hashes[j]);
        found += hit;
        if (out != NULL) out[j] = hit;
    }
    return found;
}

/* ---- writes ---- */

/* Stores fp in the first free slot of bucket; the caller holds its stripe. */
static bool cf__concurrent_place(cf_filter *f, uint64_t bucket, uint32_t fp) {
    uint64_t at = cf__concurrent_find(&f->t, bucket, 0);
    if (at == CF__CONCURRENT_NONE) return false;
    cf__concurrent_slot_change(f, bucket, at, 0, fp);
    cf__concurrent_stripe(f, bucket)->items++;
    return true;
}

/* cf__concurrent_place under the bucket's stripe lock.  With `peek` the lock is
 * taken only when a read without it sees a free slot: at high load most
 * candidate buckets are full, and a full one then costs no locked
 * instruction.  (That read joins two words read apart, so a delete and an
 * insert between them can make a bucket look full that never was; an
 * insert that would fail looks again under the locks: cf__concurrent_insert.) */
static bool cf__concurrent_place_locked(cf_filter *f, uint64_t bucket, uint32_t fp, bool peek) {
    if (peek && !cf__concurrent_has(&f->t, bucket, 0)) return false;
    cf__stripe *s = cf__concurrent_stripe(f, bucket);
    cf__concurrent_lock(s);
    bool placed = cf__concurrent_place(f, bucket, fp);
    cf__concurrent_unlock(s);
    return placed;
}

/* The rank of bucket's first free slot for cf__fill_second: the slot's
 * bit within the bucket (a balanced table's buckets are at most 64 bits). */
static unsigned cf__concurrent_rank(const cf__table *f, uint64_t bucket) {
    uint64_t at = cf__concurrent_find(f, bucket, 0);
    return at == CF__CONCURRENT_NONE ? CF__FULL_RANK : (unsigned)(at - cf__bucket_bit(f, bucket));
}

/* Whether the insert of p tries i2 first: cf__fill_second's choice on the
 * buckets as they are read now, so that one thread fills the slots the
 * plain filter fills.  Read without the locks, it is only an order to try
 * them in; the store checks again. */
static bool cf__concurrent_second_first(const cf__table *f, const cf__slots *p) {
    return f->balance &&
           cf__fill_second(f, cf__concurrent_rank(f, p->i1), cf__concurrent_rank(f, p->i2));
}

/* Bucket i1, then i2 (or the other way, cf__concurrent_second_first), each
 * under its own stripe's lock only: an insert needs no atomicity across the
 * two. */
static bool cf__concurrent_try_place(cf_filter *f, const cf__slots *p, bool peek) {
    cf__prefetch_bucket(&f->t, p->i2); /* as kernel.h does: a full i1 costs no second wait */
    bool two = cf__concurrent_second_first(&f->t, p);
    return cf__concurrent_place_locked(f, two ? p->i2 : p->i1, p->fp, peek) ||
           cf__concurrent_place_locked(f, two ? p->i1 : p->i2, p->fp, peek);
}

/* Check and store under both buckets' stripes: atomic with respect to
 * every other writer of the key.  CF_OK, CF_E_EXISTS or CF_E_FULL. */
static cf_status cf__concurrent_try_unique(cf_filter *f, const cf__slots *p) {
    cf__concurrent_held h;
    cf__concurrent_lock_set(f, &h, p->i1, p->i2, p->i2);
    cf_status st = CF_OK;
    if (cf__concurrent_has(&f->t, p->i1, p->fp) || cf__concurrent_has(&f->t, p->i2, p->fp))
        st = CF_E_EXISTS;
    else {
        bool two = cf__concurrent_second_first(&f->t, p);
        if (!cf__concurrent_place(f, two ? p->i2 : p->i1, p->fp) &&
            !cf__concurrent_place(f, two ? p->i1 : p->i2, p->fp))
            st = CF_E_FULL;
    }
    cf__concurrent_unlock_set(f, &h);
    return st;
}

/* One move of an eviction path: the fingerprint in src's slot `slot` goes to
 * a free slot of dst.  With ins (the path's last move, out of a root), the
 * new fingerprint takes the freed slot in the same critical section, under
 * the stripes of both its buckets, checked again for presence when unique.
 * Returns CF_OK, CF_E_EXISTS, or CF_E_FULL when what the search saw no
 * longer holds (nothing was changed by this move). */
static cf_status cf__concurrent_move(cf_filter *f, uint64_t src, unsigned slot, uint64_t dst,
                                     const cf__slots *ins, bool unique) {
    cf__concurrent_held h;
    cf__concurrent_lock_set(f, &h, src, dst,
                            ins != NULL ? (src == ins->i1 ? ins->i2 : ins->i1) : src);
    cf_status st = CF_OK;
    uint64_t from = cf__slot_bit(&f->t, src, slot), to = cf__concurrent_find(&f->t, dst, 0);
    uint32_t v = cf__concurrent_slot_get(&f->t, src, slot);
    if (v == 0 || to == CF__CONCURRENT_NONE || cf__alt_index(&f->t, src, v) != dst) {
        st = CF_E_FULL;
    } else if (ins != NULL && unique &&
               (cf__concurrent_has(&f->t, ins->i1, ins->fp) ||
                cf__concurrent_has(&f->t, ins->i2, ins->fp))) {
        st = CF_E_EXISTS;
    } else {
        cf__stripe *ss = cf__concurrent_stripe(f, src), *sd = cf__concurrent_stripe(f, dst);
        _Atomic uint32_t *vs = cf__concurrent_version(f, src), *vd = cf__concurrent_version(f, dst);
        uint32_t refill = ins != NULL ? ins->fp : 0;
        cf__concurrent_write_begin(vs);
        if (vd != vs) cf__concurrent_write_begin(vd);
        cf__concurrent_slot_change(f, dst, to, 0, v); /* destination first */
        cf__concurrent_slot_change(f, src, from, v, refill);
        cf__concurrent_write_end(vs);
        if (vd != vs) cf__concurrent_write_end(vd);
        sd->items++;
        ss->items -= refill == 0;
        ss->kicks++;
    }
    cf__concurrent_unlock_set(f, &h);
    return st;
}

/* Applies the path found by the search, from its free end back to the
 * root (evict.c's cf__apply_path, one locked move at a time).  *retry is
 * set when a move found the table changed since the search. */
static cf_status cf__concurrent_apply(cf_filter *f, const cf__bfs_node *q, cf__bfs_end end,
                                      const cf__slots *p, bool unique, bool *retry) {
    int32_t at = end.at;
    unsigned slot = end.slot;
    uint64_t dst = end.dst;
    for (;;) {
        const cf__bfs_node *n = &q[at];
        bool root = n->parent < 0;
        cf_status st = cf__concurrent_move(f, n->bucket, slot, dst, root ? p : NULL, unique);
        if (st != CF_OK) {
            *retry = st == CF_E_FULL;
            return st;
        }
        if (root) return CF_OK;
        dst = n->bucket;
        slot = n->slot;
        at = n->parent;
    }
}

/* 0 when bucket has a free slot, else -1: which one is chosen again by the
 * move, under its lock. */
static int cf__concurrent_free_slot(const cf__table *f, uint64_t bucket) {
    return cf__concurrent_has(f, bucket, 0) ? 0 : -1;
}

/* bfs.h's search, on a snapshot read without locks (it may be stale; the
 * moves check), then the moves.  Its scratch is the stack's, or for a
 * search that outgrows it, allocated per call (threads cannot share the
 * filter's), and the search runs again there.  CF_OK, CF_E_EXISTS,
 * CF_E_FULL or CF_E_NOMEM, with *retry set when the path went stale. */
static cf_status cf__concurrent_evict(cf_filter *f, const cf__slots *p, bool unique, bool *retry) {
    cf__bfs_node on_stack[CF__STACK_NODES];
    size_t need = (size_t)f->t.max_kicks + 2;
    size_t cap = need < CF__STACK_NODES ? need : CF__STACK_NODES;
    cf__bfs_node *q = on_stack;
    *retry = false;
    cf__bfs_end end = cf__bfs_search(&f->t, q, cap, p->i1, p->i2, cf__concurrent_bucket_read,
                                     cf__concurrent_free_slot, cf__alt_index);
    if (end.truncated) {
        q = cf__alloc(&f->t.alloc, need * sizeof *q);
        CF__RETURN_IF(q == NULL, CF_E_NOMEM);
        cap = need;
        end = cf__bfs_search(&f->t, q, cap, p->i1, p->i2, cf__concurrent_bucket_read,
                             cf__concurrent_free_slot, cf__alt_index);
    }
    cf_status st = end.at < 0 ? CF_E_FULL : cf__concurrent_apply(f, q, end, p, unique, retry);
    if (q != on_stack) cf__free(&f->t.alloc, q);
    return st;
}

/* Inlined into the two public inserts, so that `unique` is a constant in
 * each (as it was when api/ passed it). */
static inline __attribute__((always_inline)) cf_status
cf__concurrent_insert(cf_filter *f, uint64_t h, bool unique) {
    cf__slots p = cf__locate(&f->t, h);
    for (;;) {
        cf_status st = unique                                  ? cf__concurrent_try_unique(f, &p)
                       : cf__concurrent_try_place(f, &p, true) ? CF_OK
                                                               : CF_E_FULL;
        if (st != CF_E_FULL) return st;
        /* Both buckets were full: search and move.  A stale path means other
         * writers changed the table meanwhile, so the insert starts over
         * (their progress bounds how often). */
        bool retry;
        st = cf__concurrent_evict(f, &p, unique, &retry);
        if (retry) continue;
        /* No path: before failing, the key's own buckets once more under
         * their locks (the peeks above read them without). */
        if (st == CF_E_FULL && !unique && cf__concurrent_try_place(f, &p, false)) return CF_OK;
        if (st == CF_E_FULL)
            atomic_fetch_add_explicit(&cf__concurrent_of(f)->failed_inserts, 1,
                                      memory_order_relaxed);
        return st;
    }
}

cf_status cf__concurrent_insert_hash(cf_filter *f, uint64_t h) {
    return cf__concurrent_insert(f, h, false);
}

cf_status cf__concurrent_insert_unique_hash(cf_filter *f, uint64_t h) {
    return cf__concurrent_insert(f, h, true);
}

cf_status cf__concurrent_insert_batch(cf_filter *f, const uint64_t *hashes, size_t n,
                                      size_t *inserted) {
    for (size_t j = 0; j < n; j++) {
        if (j + CF__CONCURRENT_AHEAD < n) {
            cf__slots q = cf__locate(&f->t, hashes[j + CF__CONCURRENT_AHEAD]);
            cf__prefetch_bucket(&f->t, q.i1);
            cf__prefetch_bucket(&f->t, q.i2);
        }
        CF__FORWARD_IF_ERROR(cf__concurrent_insert(f, hashes[j], false));
        if (inserted != NULL) *inserted = j + 1;
    }
    return CF_OK;
}

/* Under both buckets' stripes, so that no move carries the fingerprint from
 * the bucket not yet searched to the one already searched. */
cf_status cf__concurrent_delete_hash(cf_filter *f, uint64_t h) {
    cf__slots p = cf__locate(&f->t, h);
    cf__concurrent_held held;
    cf__concurrent_lock_set(f, &held, p.i1, p.i2, p.i2);
    uint64_t bucket = p.i1, at = cf__concurrent_find(&f->t, bucket, p.fp);
    if (at == CF__CONCURRENT_NONE) {
        bucket = p.i2;
        at = cf__concurrent_find(&f->t, bucket, p.fp);
    }
    if (at != CF__CONCURRENT_NONE) {
        cf__concurrent_slot_change(f, bucket, at, p.fp, 0);
        cf__concurrent_stripe(f, bucket)->items--;
    }
    cf__concurrent_unlock_set(f, &held);
    return at != CF__CONCURRENT_NONE ? CF_OK : CF_E_NOT_FOUND;
}

/* ---- whole-table operations: every stripe locked, in order ---- */

static void cf__concurrent_lock_all(const cf_filter *f) {
    for (uint64_t i = 0; i < cf__concurrent_of(f)->nstripes; i++)
        cf__concurrent_lock(&cf__concurrent_of(f)->stripes[i]);
}

static void cf__concurrent_unlock_all(const cf_filter *f) {
    for (uint64_t i = cf__concurrent_of(f)->nstripes; i-- > 0;)
        cf__concurrent_unlock(&cf__concurrent_of(f)->stripes[i]);
}

/* A plain filter (no CF_CONCURRENT: files never carry it) sharing f's
 * table, with f's counters summed: what the plain functions report and
 * write.  The caller holds every stripe. */
static cf_filter cf__concurrent_view(const cf_filter *f) {
    cf_filter v = *f;
    v.kind = CF__PLAIN;
    v.state = NULL;
    v.t.flags &= ~CF_CONCURRENT;
    v.t.items = 0;
    v.t.total_kicks = 0;
    for (uint64_t i = 0; i < cf__concurrent_of(f)->nstripes; i++) {
        v.t.items += cf__concurrent_of(f)->stripes[i].items;
        v.t.total_kicks += cf__concurrent_of(f)->stripes[i].kicks;
    }
    v.t.failed_inserts =
        atomic_load_explicit(&cf__concurrent_of(f)->failed_inserts, memory_order_relaxed);
    return v;
}

void cf__concurrent_stats(const cf_filter *f, cf_stats *out) {
    cf__concurrent_lock_all(f);
    cf_filter v = cf__concurrent_view(f);
    cf__table_stats(&v.t, out);
    cf__concurrent_unlock_all(f);
    out->flags = f->t.flags;
    out->memory_bytes = cf__concurrent_memory(f);
}

cf_status cf__concurrent_with_view(const cf_filter *f, cf__concurrent_view_fn fn, void *arg) {
    cf__concurrent_lock_all(f);
    cf_filter v = cf__concurrent_view(f);
    cf_status st = fn(&v, arg);
    cf__concurrent_unlock_all(f);
    return st;
}

/* Word by word with atomic stores, since readers may be reading. */
cf_status cf__concurrent_clear(cf_filter *f) {
    cf__concurrent_lock_all(f);
    for (uint64_t k = 0; k < (f->t.table_bytes + 7) / 8; k++)
        atomic_store_explicit(cf__concurrent_word(&f->t, k), 0, memory_order_relaxed);
    for (uint64_t i = 0; i < cf__concurrent_of(f)->nstripes; i++)
        cf__concurrent_of(f)->stripes[i].items = 0;
    cf__concurrent_unlock_all(f);
    return CF_OK;
}

cf_status cf__concurrent_merge(cf_filter *dst, const cf_filter *src) {
    /* Not yet: dst changes under other threads while src's fingerprints
     * move in, and a failed merge could not be undone under them. */
    (void)dst, (void)src;
    return CF_E_PARAM;
}
