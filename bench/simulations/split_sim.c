/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * split_sim.c -- cf-split-sim: how full a cuckoo table stays while it grows,
 * by doubling (CF_GROWTH_INPLACE today) or by splitting one bucket at a time
 * (linear hashing): the load that decides a growing filter's bits per item
 * (docs/BENCHMARKS.md, "Growth v2").
 *
 *   cf-split-sim [--mode split|double|sized] [--max-load L] [--items N] [--kicks K]
 *                [--slots 4|8] [--tag-bits T] [--place first|emptier] [--by-load 0|1]
 *                [--stash 0|1]
 *
 * A simulation, not the library: each slot holds an item's whole 64-bit
 * address string, so no fingerprint bit limits anything and the result is
 * the placement's alone.  An item of string x has the tag t = the low T bits
 * of x (T = 6 unless --tag-bits) and the second string x ^ H(t) (H random,
 * low T bits zero), as in-place filters do; a table of n buckets of 4 (or
 * --slots 8) slots, 2^k <= n < 2^(k+1), places a string y in bucket
 * (y >> T) mod 2^k, or mod 2^(k+1) when that bucket was split already
 * (linear hashing: bucket j splits into j and j + 2^k by the next bit).
 * Both modes grow before an insert would pass the maximum load (--mode
 * double: all 2^k buckets at once), and again whenever the breadth-first
 * eviction search (at most K buckets) fails.  Printed: the load at the end,
 * the lowest and the mean of loads sampled at log-spaced counts past 100,000
 * items, how many inserts failed and grew the table, and what the inserts
 * cost: eviction searches per insert and the buckets they examined (each
 * child read is a random memory access in a filter), and their time (ns per
 * insert, splits and doublings included; a proxy only: 8-byte slots make
 * the table 4-8x a filter's).  --mode sized is the baseline a growing filter
 * is held to: one table of N / (4 L) buckets that never grows (uniform: a
 * string's bucket is (y >> T) mod n), filled to L.  --by-load 1 adds the
 * same costs for the inserts that met each load (in steps of 5%): a table
 * that doubles passes through every load, one that splits sits at one, and
 * the rows tell how much of the split table's cost is its load and how much
 * the uneven hash mass of its split and unsplit buckets.  --place emptier
 * puts a new item in the emptier of its two buckets instead of the first
 * with room.  --stash 1 asks whether a short search and a side store would
 * do instead of a long search: an insert whose search (at most K buckets)
 * fails goes to a stash instead of growing the table, and the stash's share
 * of the items is printed (a lookup would read the stash whenever one of
 * its buckets had sent an item there).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SLOTS 8
#define QUEUE 4096

typedef struct node {
    uint64_t bucket;
    int parent, slot;
} node;

#define LOAD_STEPS 20

typedef struct sim {
    uint64_t *slot; /* strings, 0 = free */
    uint64_t n, cap, k, split, items, searches, children, stashed;
    uint64_t partner[256];
    unsigned kicks, slots, tag;
    int emptier; /* --place emptier */
    int sized;   /* --mode sized: n buckets, never split */
    node q[QUEUE];
} sim;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void) { /* xorshift64 */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static uint64_t bucket_of(const sim *s, uint64_t y) {
    if (s->sized) return (y >> s->tag) % s->n;
    uint64_t b = (y >> s->tag) & ((1ull << s->k) - 1);
    return b < s->split ? (y >> s->tag) & ((2ull << s->k) - 1) : b;
}

static uint64_t other(const sim *s, uint64_t y) {
    return y ^ s->partner[y & ((1u << s->tag) - 1)];
}

static int free_slot(const sim *s, uint64_t b) {
    for (unsigned i = 0; i < s->slots; i++)
        if (s->slot[b * s->slots + i] == 0) return (int)i;
    return -1;
}

static int used(const sim *s, uint64_t b) {
    int c = 0;
    for (unsigned i = 0; i < s->slots; i++) c += s->slot[b * s->slots + i] != 0;
    return c;
}

static int on_path(const sim *s, int at, uint64_t b) {
    for (; at >= 0; at = s->q[at].parent)
        if (s->q[at].bucket == b) return 1;
    return 0;
}

/* A free slot of either bucket, else the shortest eviction path; 0 if none. */
static int insert(sim *s, uint64_t x) {
    uint64_t y[2] = {x, other(s, x)}, b[2] = {bucket_of(s, y[0]), bucket_of(s, y[1])};
    int first = s->emptier && used(s, b[1]) < used(s, b[0]);
    for (int r = first; r < first + 2; r++) {
        int f = free_slot(s, b[r & 1]);
        if (f >= 0) {
            s->slot[b[r & 1] * s->slots + f] = y[r & 1];
            s->items++;
            return 1;
        }
    }
    int tail = 0;
    s->searches++;
    s->q[tail++] = (node){b[0], -1, 0};
    if (b[1] != b[0]) s->q[tail++] = (node){b[1], -1, 0};
    for (int head = 0; head < tail && head < (int)s->kicks; head++) {
        uint64_t at = s->q[head].bucket;
        for (int i = 0; i < (int)s->slots; i++) {
            uint64_t child = bucket_of(s, other(s, s->slot[at * s->slots + i]));
            s->children++;
            if (child == at || on_path(s, s->q[head].parent, child)) continue;
            int f = free_slot(s, child);
            if (f < 0) {
                if (tail < QUEUE) s->q[tail++] = (node){child, head, i};
                continue;
            }
            /* Move each string along the path to its other bucket. */
            uint64_t dst = child;
            int dst_slot = f, n = head, from = i;
            for (;;) {
                uint64_t moved = s->slot[s->q[n].bucket * s->slots + from];
                s->slot[dst * s->slots + dst_slot] = other(s, moved);
                dst = s->q[n].bucket;
                dst_slot = from;
                if (s->q[n].parent < 0) break;
                from = s->q[n].slot;
                n = s->q[n].parent;
            }
            s->slot[dst * s->slots + dst_slot] = dst == b[0] ? y[0] : y[1];
            s->items++;
            return 1;
        }
    }
    return 0;
}

static void split_one(sim *s) {
    if (s->n == s->cap) {
        s->cap += s->cap / 8 + 4;
        s->slot = realloc(s->slot, s->cap * s->slots * sizeof *s->slot);
        if (s->slot == NULL) {
            fprintf(stderr, "cf-split-sim: out of memory\n");
            exit(1);
        }
    }
    uint64_t from = s->split, to = s->n, *a = &s->slot[from * s->slots],
             *b = &s->slot[to * s->slots];
    uint64_t stay[MAX_SLOTS] = {0};
    int ns = 0, nb = 0;
    memset(b, 0, s->slots * sizeof *b);
    for (unsigned i = 0; i < s->slots; i++) {
        if (a[i] == 0) continue;
        if ((a[i] >> (s->tag + s->k)) & 1)
            b[nb++] = a[i];
        else
            stay[ns++] = a[i];
    }
    memcpy(a, stay, s->slots * sizeof *a);
    s->n++;
    if (++s->split == 1ull << s->k) {
        s->k++;
        s->split = 0;
    }
}

static void grow(sim *s, int doubling) {
    uint64_t until = doubling ? 2 * s->n : s->n + 1;
    while (s->n < until) split_one(s);
}

static int usage(void) {
    fprintf(stderr, "usage: cf-split-sim [--mode split|double|sized] [--max-load L] [--items N] "
                    "[--kicks K] [--slots 4|8] [--tag-bits T] [--place first|emptier] "
                    "[--by-load 0|1] [--stash 0|1]\n");
    return 2;
}

int main(int argc, char **argv) {
    int doubling = 0, sized = 0, by_load = 0, emptier = 0, stash = 0;
    double max_load = 0.90;
    uint64_t items = 10000000;
    unsigned kicks = 500, slots = 4, tag = 6;
    for (int i = 1; i < argc; i += 2) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL) return usage();
        if (strcmp(argv[i], "--mode") == 0 &&
            (!strcmp(v, "split") || !strcmp(v, "double") || !strcmp(v, "sized"))) {
            doubling = strcmp(v, "double") == 0;
            sized = strcmp(v, "sized") == 0;
        } else if (strcmp(argv[i], "--max-load") == 0 && atof(v) > 0 && atof(v) <= 1)
            max_load = atof(v);
        else if (strcmp(argv[i], "--items") == 0 && strtoull(v, NULL, 10) > 100000)
            items = strtoull(v, NULL, 10);
        else if (strcmp(argv[i], "--place") == 0 && (!strcmp(v, "first") || !strcmp(v, "emptier")))
            emptier = strcmp(v, "emptier") == 0;
        else if (strcmp(argv[i], "--by-load") == 0 && (!strcmp(v, "0") || !strcmp(v, "1")))
            by_load = atoi(v);
        else if (strcmp(argv[i], "--stash") == 0 && (!strcmp(v, "0") || !strcmp(v, "1")))
            stash = atoi(v);
        else if (strcmp(argv[i], "--kicks") == 0 && atoi(v) > 0)
            kicks = (unsigned)atoi(v);
        else if (strcmp(argv[i], "--slots") == 0 && (atoi(v) == 4 || atoi(v) == 8))
            slots = (unsigned)atoi(v);
        else if (strcmp(argv[i], "--tag-bits") == 0 && atoi(v) >= 1 && atoi(v) <= 8)
            tag = (unsigned)atoi(v);
        else
            return usage();
    }
    static sim s;
    s.k = 8;
    s.n = s.cap = 1u << 8;
    if (sized) { /* the whole table at once, past any growth */
        s.sized = 1;
        s.n = s.cap = (uint64_t)((double)items / (slots * max_load)) + 1;
        max_load = 1;
    }
    s.kicks = kicks;
    s.slots = slots;
    s.tag = tag;
    s.emptier = emptier;
    s.slot = calloc(s.cap * slots, sizeof *s.slot);
    if (s.slot == NULL) return 1;
    for (unsigned t = 0; t < 1u << tag; t++) s.partner[t] = rnd() & ~((1ull << tag) - 1);
    uint64_t failed = 0, samples = 0, next = 100000;
    uint64_t at_load[LOAD_STEPS] = {0}, searches_at[LOAD_STEPS] = {0},
             children_at[LOAD_STEPS] = {0};
    double lowest = 1, sum = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint64_t j = 0; j < items; j++) {
        uint64_t x = rnd();
        if ((double)(s.items + 1) > max_load * slots * (double)s.n) grow(&s, doubling);
        unsigned step = (unsigned)((double)s.items / (slots * (double)s.n) * LOAD_STEPS);
        uint64_t searches0 = s.searches, children0 = s.children;
        if (stash)
            s.stashed += !insert(&s, x);
        else
            while (!insert(&s, x)) {
                failed++;
                grow(&s, doubling);
            }
        step = step < LOAD_STEPS ? step : LOAD_STEPS - 1;
        at_load[step]++;
        searches_at[step] += s.searches - searches0;
        children_at[step] += s.children - children0;
        if (j + 1 == next) {
            double load = (double)s.items / (slots * (double)s.n);
            lowest = load < lowest ? load : lowest;
            sum += load;
            samples++;
            next += next / 64 + 1;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns =
        ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)items;
    printf("%s, max load %.3f, %llu items, %u slots a bucket, %u tag bits, search budget %u: "
           "%llu buckets, load %.4f at the end, lowest %.4f, mean %.4f over %llu samples; %llu "
           "inserts failed and grew the table; %.3f eviction searches and %.2f buckets examined "
           "per insert; %.1f ns per insert\n",
           sized      ? "sized for the items"
           : doubling ? "doubling"
                      : "splitting one bucket at a time",
           sized ? (double)items / (slots * (double)s.n) : max_load, (unsigned long long)items,
           slots, tag, kicks, (unsigned long long)s.n, (double)s.items / (slots * (double)s.n),
           lowest, sum / (double)samples, (unsigned long long)samples, (unsigned long long)failed,
           (double)s.searches / (double)items, (double)s.children / (double)items, ns);
    if (stash)
        printf("  stashed: %llu items, %.2f%% of them\n", (unsigned long long)s.stashed,
               100.0 * (double)s.stashed / (double)items);
    for (unsigned i = 0; by_load && i < LOAD_STEPS; i++)
        if (at_load[i] > 0)
            printf("  inserts at load %.2f-%.2f: %llu, %.3f searches and %.2f buckets examined "
                   "per insert\n",
                   (double)i / LOAD_STEPS, (double)(i + 1) / LOAD_STEPS,
                   (unsigned long long)at_load[i], (double)searches_at[i] / (double)at_load[i],
                   (double)children_at[i] / (double)at_load[i]);
    free(s.slot);
    return 0;
}
