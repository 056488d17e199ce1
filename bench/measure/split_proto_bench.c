/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * split_proto_bench.c -- cf-split-proto: issue 36's open question measured on
 * a built table instead of a simulation.  Can a table that splits one bucket
 * at a time (linear hashing), held at a load high enough for <= 1.6x the bits
 * of a filter sized right, insert within 2.5x and look up within 1.5x of that
 * filter, at 1M to 100M keys, where caches and page tables take their part?
 *
 *   cf-split-proto [--n N] [--loads L1,L2,...] [--rounds R]     loads ascending
 *
 * The split table here is a prototype, not the library: 16-bit slots, four
 * to a bucket (one 64-bit word), no deletes, no FPP bound enforced; what it
 * has is what decides the time: the in-place kind's variable-length
 * fingerprints (docs/ARCHITECTURE.md), both buckets of a key read at once,
 * a breadth-first eviction search that prefetches the buckets it reads next, a
 * split that moves one bucket's entries (without a branch per entry: which
 * entries move is a coin toss), and the table in blocks reached
 * through a directory (never copied; blocks of 2 MiB or more on huge
 * pages).  The library's filters in the same process are the baseline:
 * "sized right" (capacity N, 1% FPP) and today's CF_GROWTH_INPLACE from
 * 1,000 items, through the public hash calls (cf_insert_hash,
 * cf_contains_hash), so nobody hashes: a key is its own 64-bit hash.
 *
 * The prototype.  A key's hash h gives the tag t = the low 5 bits and the
 * index string a = h >> 5; its second string is a ^ Q[t] (Q random per tag),
 * so an entry finds its other bucket from its slot alone.  With n buckets,
 * 2^k <= n < 2^(k+1), and the split pointer s = n - 2^k, a string's bucket is
 * p = a mod 2^k, or a mod 2^(k+1) when p < s (already split): depth d = k or
 * k + 1.  A slot holds t (bits 15-11), then a marker bit at bit L and below
 * it the L bits of a after its bucket's d, the first of them at bit 0:
 *
 *   slot:  [ t (5 bits) | 0 ... 0 | 1 | e_(L-1) ... e_1 e_0 ]     L <= 10
 *
 * A new entry has L = 10.  A lookup compares t and the bits below the
 * marker with its own string for that bucket (SSE2: the marker found by
 * smearing each lane's bits down).  Splitting bucket s (depth k) into s and
 * s + 2^k sends each entry by e_0 and shifts its field down one bit (one
 * fingerprint bit less, as a doubling costs every entry); an entry with
 * L = 0 is copied into both.  Moving an entry to its other bucket rebuilds
 * the bits of a it knows (its bucket's d bits, then e), xors Q[t] and reads
 * the other bucket and its e from them; an entry with L = 0 whose other
 * bucket needs the bit it lacks stays where it is.
 *
 * Growth: the table splits one bucket before an insert would pass the load
 * L, and again whenever the eviction search (2,000 buckets) fails.  The
 * search reads its buckets in breadth-first order and generates (and
 * prefetches) the children of the nodes ahead up to LOOKAHEAD buckets
 * before it reads them: their misses overlap, and little is generated past
 * the bucket that has room.
 *
 * Printed per filter: bits per item (the table's allocated bytes; for the
 * prototype also what its buckets in use would take in 15-bit slots, packed
 * as the in-place kind packs them, the width its FPP needs at 100M), FPP
 * over M absent keys, kept keys lost (must be 0: the exit status is 1
 * otherwise), ns per insert over all N (the filters take turns in chunks of
 * 2^20 keys), ns per hit and miss (M = min(N, 10M) keys, median of R rounds
 * taken in turns), thread CPU time, and the ratios to "sized right".  Keys:
 * splitmix64, seed 42.
 *
 * Then a control: the library's own insert in a table sized for N keys,
 * timed over a window of 1% of its slots at each load L, against the whole
 * fill of that table from empty to 0.95.  Its buckets are uniform, which a
 * split table's cannot be (an unsplit bucket covers twice the hashes of a
 * split one), so its ratio at L is what any table held at L pays at least.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/bench_util.h"
#include "cuckoofilter.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define TAG_BITS 5
#define TAGS (1u << TAG_BITS)
#define E_BITS 10       /* a new entry's bits of a after its bucket */
#define FIELD 0x07FFu   /* the marker and the e bits */
#define BLOCK_SHIFT 15  /* the directory's step: 2^15 buckets, 256 KiB */
#define SEARCH 2000     /* buckets an eviction search may queue */
#define HUGE (2u << 20) /* blocks this large go on huge pages */
#define LOOKAHEAD 8     /* children generated ahead of the one read */

typedef struct node {
    uint64_t bucket;
    int parent, slot;
} node;

typedef struct proto {
    uint64_t **dir; /* dir[p >> BLOCK_SHIFT]: where bucket p's 2^15 start */
    void **blocks;  /* every allocation, to free */
    size_t n_dir, n_blocks, cap_dir, cap_blocks;
    uint64_t n, k, split, backed; /* buckets in use and allocated */
    uint64_t used, bytes;         /* slots holding an entry; allocated */
    uint64_t searches, children, failed;
    uint64_t q[TAGS];
    double max_load;
    node queue[SEARCH + 8];
} proto;

static void die(const char *what) {
    fprintf(stderr, "cf-split-proto: %s\n", what);
    exit(1);
}

static uint64_t *bucket(const proto *s, uint64_t p) {
    return s->dir[p >> BLOCK_SHIFT] + (p & ((1u << BLOCK_SHIFT) - 1));
}

/* A string's bucket and its depth, without a branch on the split pointer
 * (which side a key falls on is a coin toss). */
static inline uint64_t place_of(const proto *s, uint64_t a, unsigned *d) {
    uint64_t lo = a & ((1ull << s->k) - 1), hi = a & ((2ull << s->k) - 1);
    unsigned split = lo < s->split;
    *d = (unsigned)s->k + split;
    return split ? hi : lo;
}

/* Backs buckets up to at least `until` with a new block of about 1/32 of
 * the table (so at most ~3% is allocated and unused), a power of two of
 * 2^15 buckets or more. */
static void back(proto *s, uint64_t until) {
    uint64_t size = 1u << BLOCK_SHIFT;
    while (size * 32 <= s->backed) size *= 2;
    while (s->backed + size < until) size *= 2;
    size_t bytes = size * sizeof(uint64_t);
    void *mem = bytes >= HUGE ? aligned_alloc(HUGE, bytes) : malloc(bytes);
    if (mem == NULL) die("out of memory");
#if defined(MADV_HUGEPAGE)
    if (bytes >= HUGE) madvise(mem, bytes, MADV_HUGEPAGE);
#endif
    memset(mem, 0, bytes);
    size_t steps = size >> BLOCK_SHIFT;
    if (s->n_dir + steps > s->cap_dir) {
        s->cap_dir = 2 * (s->n_dir + steps);
        s->dir = realloc(s->dir, s->cap_dir * sizeof *s->dir);
    }
    if (s->n_blocks == s->cap_blocks) {
        s->cap_blocks = 2 * s->cap_blocks + 8;
        s->blocks = realloc(s->blocks, s->cap_blocks * sizeof *s->blocks);
    }
    if (s->dir == NULL || s->blocks == NULL) die("out of memory");
    s->blocks[s->n_blocks++] = mem;
    for (size_t i = 0; i < steps; i++) s->dir[s->n_dir++] = (uint64_t *)mem + (i << BLOCK_SHIFT);
    s->backed += size;
    s->bytes += bytes;
}

static void proto_init(proto *s, double max_load) {
    memset(s, 0, sizeof *s);
    s->k = 8;
    s->n = 1u << 8;
    s->max_load = max_load;
    uint64_t seed = 7;
    for (unsigned t = 0; t < TAGS; t++) s->q[t] = bench_splitmix64(&seed) >> TAG_BITS;
    back(s, s->n);
}

static void proto_free(proto *s) {
    for (size_t i = 0; i < s->n_blocks; i++) free(s->blocks[i]);
    free(s->blocks);
    free(s->dir);
}

static inline uint16_t slot_at(uint64_t w, int i) {
    return (uint16_t)(w >> (16 * i));
}

static inline uint64_t with_slot(uint64_t w, int i, uint16_t v) {
    return (w & ~(0xFFFFull << (16 * i))) | ((uint64_t)v << (16 * i));
}

/* The first empty slot of a bucket, or -1: the lowest zero lane. */
static inline int free_slot(uint64_t w) {
    uint64_t z = (w - 0x0001000100010001ull) & ~w & 0x8000800080008000ull;
    return z == 0 ? -1 : __builtin_ctzll(z) >> 4;
}

static inline unsigned marker_of(uint16_t v) {
    return 31u - (unsigned)__builtin_clz(v & FIELD);
}

/* Where entry v of bucket p (depth d) goes in its other bucket, and the
 * slot it has there; *ok false when it lacks the bit that would tell.
 * Branch-free: which side of the split pointer the other bucket falls on
 * is a coin toss. */
static inline uint64_t other_of(const proto *s, uint64_t p, unsigned d, uint16_t v, bool *ok,
                                uint16_t *moved) {
    unsigned t = v >> 11, len = marker_of(v), known = d + len;
    uint64_t a = (p | ((uint64_t)(v & ((1u << len) - 1)) << d)) ^ s->q[t];
    unsigned split = (a & ((1ull << s->k) - 1)) < s->split, d2 = (unsigned)s->k + split;
    *ok = !(split & (known <= s->k));
    unsigned len2 = known - d2 > E_BITS ? E_BITS : known - d2; /* garbage when !*ok */
    *moved = (uint16_t)(t << 11 | 1u << (len2 & 15) | ((a >> d2) & ((1u << (len2 & 15)) - 1)));
    return a & ((1ull << d2) - 1);
}

static bool on_path(const proto *s, int at, uint64_t b) {
    for (; at >= 0; at = s->queue[at].parent)
        if (s->queue[at].bucket == b) return true;
    return false;
}

static unsigned depth_of(const proto *s, uint64_t p) {
    return (unsigned)s->k + (p < s->split || p >= (1ull << s->k));
}

/* Moves each entry of the path that ends with slot `from` of queue[at]
 * to its other bucket, the last one into the free slot `free` of `dst`;
 * returns the bucket and slot the path's root freed. */
static uint64_t shift_path(proto *s, int at, int from, uint64_t dst, int free, int *freed) {
    for (;;) {
        uint64_t src = s->queue[at].bucket;
        uint16_t moved;
        bool ok; /* true, and the bucket is dst: the search checked both */
        (void)other_of(s, src, depth_of(s, src), slot_at(*bucket(s, src), from), &ok, &moved);
        *bucket(s, dst) = with_slot(*bucket(s, dst), free, moved);
        dst = src;
        free = from;
        if (s->queue[at].parent < 0) break;
        from = s->queue[at].slot;
        at = s->queue[at].parent;
    }
    *freed = free;
    return dst;
}

/* Inserts h: a free slot of either bucket, else the shortest eviction path
 * (breadth-first, children prefetched); false when the search fails. */
static bool proto_place(proto *s, uint64_t h) {
    unsigned t = h & (TAGS - 1), d[2];
    uint64_t a[2] = {h >> TAG_BITS, (h >> TAG_BITS) ^ s->q[t]};
    uint64_t p[2] = {place_of(s, a[0], &d[0]), place_of(s, a[1], &d[1])};
    uint16_t entry[2];
    for (int r = 0; r < 2; r++)
        entry[r] = (uint16_t)(t << 11 | 1u << E_BITS | ((a[r] >> d[r]) & ((1u << E_BITS) - 1)));
    uint64_t *w0 = bucket(s, p[0]), *w1 = bucket(s, p[1]);
    int f = free_slot(*w0);
    if (f >= 0) return *w0 = with_slot(*w0, f, entry[0]), s->used++, true;
    if ((f = free_slot(*w1)) >= 0) return *w1 = with_slot(*w1, f, entry[1]), s->used++, true;
    s->searches++;
    int tail = 0;
    s->queue[tail++] = (node){p[0], -1, 0};
    if (p[1] != p[0]) s->queue[tail++] = (node){p[1], -1, 0};
    /* Breadth-first, with the children of the nodes ahead generated (and
     * prefetched) up to LOOKAHEAD before they are read: their misses
     * overlap, and at most LOOKAHEAD are generated past the one that has
     * room.  Nodes before `checked` are full; `expanded` is the next node
     * whose children are generated. */
    int checked = tail, expanded = 0;
    for (;;) {
        while (tail - checked < LOOKAHEAD && expanded < checked && tail < SEARCH - 4) {
            int head = expanded++;
            uint64_t at = s->queue[head].bucket, word = *bucket(s, at);
            unsigned dat = depth_of(s, at);
            for (int i = 0; i < 4; i++) {
                uint16_t moved;
                bool ok;
                uint64_t to = other_of(s, at, dat, slot_at(word, i), &ok, &moved);
                if (!ok || to == at || on_path(s, s->queue[head].parent, to)) continue;
                __builtin_prefetch(bucket(s, to));
                s->queue[tail++] = (node){to, head, i};
            }
        }
        if (checked == tail) break;
        int j = checked++;
        s->children++;
        int free = free_slot(*bucket(s, s->queue[j].bucket));
        if (free < 0) continue;
        int slot;
        uint64_t root =
            shift_path(s, s->queue[j].parent, s->queue[j].slot, s->queue[j].bucket, free, &slot);
        uint64_t *rw = bucket(s, root);
        *rw = with_slot(*rw, slot, root == p[0] ? entry[0] : entry[1]);
        s->used++;
        return true;
    }
    return false;
}

/* Splits bucket `split` (depth k) into itself and split + 2^k, lane by
 * lane without a branch: an entry whose e_0 is 1 moves to the new bucket,
 * every entry's field shifts down one bit (its slot stays: a bucket's
 * empty slots may be anywhere), and an entry with no bit left (field 1)
 * stays in both. */
static void proto_split(proto *s) {
    uint64_t from = s->split, to = s->n;
    if (to >= s->backed) back(s, to + 1);
    const uint64_t lanes = 0x0001000100010001ull, field = FIELD * lanes;
    uint64_t *a = bucket(s, from), w = *a;
    uint64_t shifted = (w & ~field) | (((w & field) >> 1) & field);
    uint64_t y = (w & field) ^ lanes; /* 0 in the lanes of a field of 1 */
    uint64_t both = ((~((y + 0x7FFF * lanes) | y) & 0x8000 * lanes) >> 15) * 0xFFFF;
    uint64_t go = (w & lanes) * 0xFFFF & ~both;
    *a = (shifted & ~go & ~both) | (w & both);
    *bucket(s, to) = (shifted & go) | (w & both);
    s->used += (uint64_t)__builtin_popcountll(both) / 16;
    s->n++;
    if (++s->split == 1ull << s->k) s->k++, s->split = 0;
}

static void proto_insert(proto *s, uint64_t h) {
    while ((double)(s->used + 1) > s->max_load * 4.0 * (double)s->n) proto_split(s);
    while (!proto_place(s, h)) {
        s->failed++;
        proto_split(s);
    }
}

static inline bool proto_contains(const proto *s, uint64_t h) {
    unsigned t = h & (TAGS - 1), d0, d1;
    uint64_t a0 = h >> TAG_BITS, a1 = a0 ^ s->q[t];
    uint64_t p0 = place_of(s, a0, &d0), p1 = place_of(s, a1, &d1);
    uint64_t w0 = *bucket(s, p0), w1 = *bucket(s, p1);
    uint64_t q0 = (uint64_t)t << 11 | ((a0 >> d0) & ((1u << E_BITS) - 1));
    uint64_t q1 = (uint64_t)t << 11 | ((a1 >> d1) & ((1u << E_BITS) - 1));
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    __m128i v = _mm_set_epi64x((long long)w1, (long long)w0);
    __m128i q = _mm_set_epi64x((long long)(q1 * 0x0001000100010001ull),
                               (long long)(q0 * 0x0001000100010001ull));
    __m128i f = _mm_and_si128(v, _mm_set1_epi16(FIELD));
    f = _mm_or_si128(f, _mm_srli_epi16(f, 1));
    f = _mm_or_si128(f, _mm_srli_epi16(f, 2));
    f = _mm_or_si128(f, _mm_srli_epi16(f, 4));
    f = _mm_or_si128(f, _mm_srli_epi16(f, 8)); /* the marker and every bit below */
    __m128i mask = _mm_or_si128(_mm_srli_epi16(f, 1), _mm_set1_epi16((short)~FIELD));
    __m128i same = _mm_cmpeq_epi16(_mm_and_si128(_mm_xor_si128(v, q), mask), zero);
    return _mm_movemask_epi8(_mm_andnot_si128(_mm_cmpeq_epi16(v, zero), same)) != 0;
#else
    for (int i = 0; i < 8; i++) {
        uint16_t v = slot_at(i < 4 ? w0 : w1, i & 3);
        uint16_t mask = (uint16_t)(~FIELD | ((1u << marker_of(v)) - 1));
        if (v != 0 && ((v ^ (i < 4 ? q0 : q1)) & mask) == 0) return true;
    }
    return false;
#endif
}

/* ---- the run: the library's filters and the prototypes, taking turns ---- */

enum { CHUNK = 1 << 20, MAX_LOADS = 6, ROUNDS_MAX = 15 };

typedef struct filter {
    char name[64];
    cf_filter *cf; /* NULL: a prototype */
    proto *p;
    double insert_ns, hit[ROUNDS_MAX], miss[ROUNDS_MAX], bits, bits15;
    uint64_t fps, lost;
} filter;

static void insert_run(filter *f, const uint64_t *keys, size_t from, size_t to) {
    if (f->cf != NULL) {
        for (size_t i = from; i < to; i++)
            if (cf_insert_hash(f->cf, keys[i]) != CF_OK) die("a library insert failed");
    } else {
        for (size_t i = from; i < to; i++) proto_insert(f->p, keys[i]);
    }
}

static uint64_t lookup_run(const filter *f, const uint64_t *keys, size_t m) {
    uint64_t found = 0;
    if (f->cf != NULL)
        for (size_t i = 0; i < m; i++) found += cf_contains_hash(f->cf, keys[i]);
    else
        for (size_t i = 0; i < m; i++) found += proto_contains(f->p, keys[i]);
    return found;
}

/* The control: what the library's own insert costs at each of the loads,
 * in a table sized for n keys (uniform: no split buckets), against its
 * whole fill from empty to 0.95.  Each load's inserts are timed over a
 * window of 1% of the slots; the table is filled to each load untimed
 * in between (that part counts in the whole fill). */
static void uniform_at_loads(uint64_t n, const double *loads, int n_loads) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.target_fpp = 0.01;
    cfg.capacity = n;
    cf_filter *f;
    if (cf_new(&cfg, &f) != CF_OK) die("cf_new");
    cf_stats st;
    cf_get_stats(f, &st);
    uint64_t end = (uint64_t)(0.95 * (double)st.slots), items = 0, seed = 4242;
    double window[MAX_LOADS], all = 0;
    for (int j = 0; j <= n_loads; j++) {
        uint64_t from = j < n_loads ? (uint64_t)(loads[j] * (double)st.slots) : end;
        uint64_t to = j < n_loads ? (uint64_t)((loads[j] + 0.01) * (double)st.slots) : end;
        for (int timed = 0; timed < 2; timed++) {
            uint64_t stop = timed ? to : from, k = items;
            double t0 = bench_thread_ns();
            for (; items < stop && items < end; items++)
                if (cf_insert_hash(f, bench_splitmix64(&seed)) != CF_OK)
                    die("a library insert failed");
            double dt = bench_thread_ns() - t0;
            all += dt;
            if (timed && j < n_loads) window[j] = dt / (double)(items > k ? items - k : 1);
        }
    }
    all /= (double)items;
    printf("\nThe control: a table sized for the keys (the library's, uniform), its own inserts at "
           "each load (a window of 1%% of its slots) against its whole fill, %.1f ns\n",
           all);
    for (int j = 0; j < n_loads; j++)
        printf("  at %.2f: %.1f ns (%.2fx)\n", loads[j], window[j], window[j] / all);
    cf_free(f);
}

static int usage(void) {
    fprintf(stderr, "usage: cf-split-proto [--n N] [--loads L1,L2,...] [--rounds R]\n"
                    "  (loads ascending, each above 0.5 and below 1)\n");
    return 2;
}

int main(int argc, char **argv) {
    uint64_t n = 10000000, rounds = 5;
    double loads[MAX_LOADS] = {0.85, 0.87, 0.89};
    int n_loads = 3;
    for (int i = 1; i < argc; i += 2) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL) return usage();
        if (strcmp(argv[i], "--n") == 0) {
            if (!bench_parse_count(v, &n) || n < 100000) return usage();
        } else if (strcmp(argv[i], "--rounds") == 0) {
            if (!bench_parse_count(v, &rounds) || rounds > ROUNDS_MAX) return usage();
        } else if (strcmp(argv[i], "--loads") == 0) {
            char buf[128], *end;
            snprintf(buf, sizeof buf, "%s", v);
            n_loads = 0;
            for (char *t = strtok(buf, ","); t != NULL; t = strtok(NULL, ",")) {
                double l = strtod(t, &end);
                /* Ascending: the control fills its table up through them. */
                if (*end != '\0' || l <= 0.5 || l >= 1 || n_loads == MAX_LOADS ||
                    (n_loads > 0 && l <= loads[n_loads - 1]))
                    return usage();
                loads[n_loads++] = l;
            }
            if (n_loads == 0) return usage();
        } else {
            return usage();
        }
    }
    size_t m = n < 10000000 ? (size_t)n : 10000000;
    uint64_t *keys = malloc(n * sizeof *keys), *absent = malloc(m * sizeof *absent);
    uint64_t *sample = malloc(m * sizeof *sample);
    if (keys == NULL || absent == NULL || sample == NULL) die("out of memory");
    /* One stream from seed 42: the absent keys are the ones after the n. */
    bench_fill_keys(keys, n, 42);
    bench_fill_keys(absent, m, 42 + n * 0x9e3779b97f4a7c15ull);
    for (size_t i = 0; i < m; i++) sample[i] = keys[(size_t)((double)i * (double)n / (double)m)];

    filter fs[2 + MAX_LOADS];
    int nf = 2 + n_loads;
    memset(fs, 0, sizeof fs);
    for (int j = 0; j < 2; j++) {
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.target_fpp = 0.01;
        cfg.capacity = j == 0 ? n : 1000;
        if (j == 1) cfg.flags = CF_GROW, cfg.growth_mode = CF_GROWTH_INPLACE;
        snprintf(fs[j].name, sizeof fs[j].name, "%s", j == 0 ? "sized right" : "in place (today)");
        if (cf_new(&cfg, &fs[j].cf) != CF_OK) die("cf_new");
    }
    for (int j = 0; j < n_loads; j++) {
        filter *f = &fs[2 + j];
        snprintf(f->name, sizeof f->name, "split, held at %.2f", loads[j]);
        if ((f->p = malloc(sizeof *f->p)) == NULL) die("out of memory");
        proto_init(f->p, loads[j]);
    }
    for (size_t base = 0; base < n; base += CHUNK) {
        size_t end = base + CHUNK < n ? base + CHUNK : (size_t)n;
        for (int j = 0; j < nf; j++) {
            filter *f = &fs[((size_t)j + base / CHUNK) % (size_t)nf];
            double t0 = bench_thread_ns();
            insert_run(f, keys, base, end);
            f->insert_ns += bench_thread_ns() - t0;
        }
    }
    for (uint64_t r = 0; r < rounds; r++)
        for (int j = 0; j < nf; j++) {
            filter *f = &fs[((uint64_t)j + r) % (uint64_t)nf];
            double t0 = bench_thread_ns();
            f->lost = m - lookup_run(f, sample, m);
            double t1 = bench_thread_ns();
            f->fps = lookup_run(f, absent, m);
            f->hit[r] = (t1 - t0) / (double)m;
            f->miss[r] = (bench_thread_ns() - t1) / (double)m;
        }
    printf("%s; %llu keys (a key is its own hash), the library's filters at 1%% FPP (in place "
           "created for 1,000); %zu lookups per round, median of %llu rounds, thread CPU time\n",
           BENCH_COMPILER, (unsigned long long)n, m, (unsigned long long)rounds);
    printf("| filter | load | bits/item (x sized) | 15-bit slots, buckets in use (x sized) | FPP | "
           "lost | insert ns "
           "(x sized) | hit ns (x) | miss ns (x) | searches, buckets per insert |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    double base_bits = 0, base_ins = 0, base_hit = 0, base_miss = 0;
    uint64_t lost = 0;
    for (int j = 0; j < nf; j++) {
        filter *f = &fs[j];
        double load, hit = bench_median(f->hit, (size_t)rounds);
        double miss = bench_median(f->miss, (size_t)rounds), ins = f->insert_ns / (double)n;
        char search[64] = "";
        if (f->cf != NULL) {
            cf_stats st;
            cf_get_stats(f->cf, &st);
            f->bits = f->bits15 = st.bits_per_item;
            load = st.load_factor;
        } else {
            proto *p = f->p;
            f->bits = 8.0 * (double)p->bytes / (double)n;
            f->bits15 = 4.0 * 15.0 * (double)p->n / (double)n;
            load = (double)p->used / (4.0 * (double)p->n);
            snprintf(search, sizeof search, "%.3f, %.2f (%llu failed)",
                     (double)p->searches / (double)n, (double)p->children / (double)n,
                     (unsigned long long)p->failed);
        }
        lost += f->lost;
        if (j == 0) base_bits = f->bits, base_ins = ins, base_hit = hit, base_miss = miss;
        printf("| %s | %.3f | %.2f (%.2fx) | %.2f (%.2fx) | %.3f%% | %llu | %.1f (%.2fx) | %.1f "
               "(%.2fx) | %.1f (%.2fx) | %s |\n",
               f->name, load, f->bits, f->bits / base_bits, f->bits15, f->bits15 / base_bits,
               100.0 * (double)f->fps / (double)m, (unsigned long long)f->lost, ins, ins / base_ins,
               hit, hit / base_hit, miss, miss / base_miss, search);
        if (f->cf != NULL) cf_free(f->cf);
        if (f->p != NULL) proto_free(f->p), free(f->p);
    }
    free(keys), free(absent), free(sample);
    uniform_at_loads(n, loads, n_loads);
    if (lost > 0)
        fprintf(stderr, "cf-split-proto: %llu kept keys lost\n", (unsigned long long)lost);
    return lost > 0;
}
