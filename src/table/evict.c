/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * evict.c -- making room: a breadth-first search for an eviction path.
 *
 * When both candidate buckets of a new fingerprint are full, some resident
 * fingerprint must move to *its* alternate bucket, possibly displacing
 * another, and so on.  The article's random walk moves items while it
 * searches and drops the last one when it gives up.  We search first and
 * move only once a path to a free slot is known, so a failed insert changes
 * nothing, and breadth-first order finds the shortest path:
 *
 *   roots:   [i1]            [i2]           (both full)
 *            / | \ \         / | \ \
 *   depth 1: alt(i1, fp_s) for each slot s  ...  first bucket with a free slot
 *                 \
 *   depth 2:       ...
 *
 *   found free slot in E, reached via  i1[s0] -> X[s1] -> E
 *   moves, applied from the end:  E[free] = X[s1];  X[s1] = i1[s0];  i1[s0] = fp
 *
 * Every bucket on one path must be distinct, or a later move would pick up a
 * fingerprint that an earlier move put there and carry it to a bucket that
 * is not one of its two candidates; expansion therefore skips children that
 * are ancestors.  The search visits at most max_kicks buckets (the budget
 * bounds insert latency) and is deterministic, so replicas that replay the
 * same inserts hold identical tables.  It returns CF_E_FULL (no path) or
 * CF_E_NOMEM (no scratch for a search beyond the stack's), changing nothing.
 */
#include "table/bfs.h"

/* Moves fingerprints along the path ending at `end`, then stores fp in the
 * freed root slot; each write goes to trace too, when there is one.
 * Inlined into the two entry points below, so that the untraced one
 * carries no test of trace (semi-sorted inserts, with their longer paths,
 * paid 3.5 instructions an insert for it: bench/callgrind.sh). */
__attribute__((always_inline)) static inline void cf__apply_path(cf__table *f,
                                                                 const cf__bfs_node *q,
                                                                 cf__bfs_end end, uint32_t fp,
                                                                 cf__trace *trace) {
    int32_t at = end.at;
    unsigned slot = end.slot, dst_slot = (unsigned)end.dst_slot;
    uint64_t dst = end.dst;
    for (;;) {
        const cf__bfs_node *n = &q[at];
        uint32_t moved = cf__slot_get(f, n->bucket, slot);
        cf__slot_set(f, dst, dst_slot, moved);
        if (trace) cf__trace_put(trace, n->bucket, slot, dst, dst_slot, moved);
        f->total_kicks++;
        dst = n->bucket;
        dst_slot = slot;
        if (n->parent < 0) break;
        slot = n->slot;
        at = n->parent;
    }
    cf__slot_set(f, dst, dst_slot, fp);
    if (trace) cf__trace_put(trace, CF_NO_BUCKET, 0, dst, dst_slot, fp);
}

static int cf__free_slot(const cf__table *f, uint64_t bucket) {
    return cf__bucket_find(f, bucket, 0);
}

/* The readers of SWAR tables whose buckets start on a byte (CF__ADDR_BYTES
 * and CF__ADDR_POW2_BYTES): a load at a byte offset, no shift, no test of
 * the layout.  Bits above the bucket's lanes are ignored: the slots are
 * masked, and the free-slot test's borrows move up. */
static void cf__bytes_read(const cf__table *f, uint64_t bucket, uint32_t fp[CF_MAX_BUCKET_SIZE]) {
    cf__word_read(f, cf__load64le(cf__bucket_at(f, bucket)), fp);
}

static int cf__bytes_free_slot(const cf__table *f, uint64_t bucket) {
    return cf__zero_slot(f, cf__zero_lanes(f, cf__load64le(cf__bucket_at(f, bucket))));
}

/* cf__alt_index of a power-of-two table (cf__alt_k's shift). */
static uint64_t cf__pow2_alt(const cf__table *f, uint64_t bucket, uint32_t fp) {
    return cf__alt_k(f, bucket, cf__alt_point(f, fp), true);
}

/* The search with the readers of f's addressing, each copy compiled with
 * its own (the byte-aligned ones cost a third fewer instructions per
 * bucket visited); they find the same path. */
static cf__bfs_end cf__search(const cf__table *f, cf__bfs_node *q, size_t cap, uint64_t i1,
                              uint64_t i2) {
    if (f->addr == CF__ADDR_POW2_BYTES)
        return cf__bfs_search(f, q, cap, i1, i2, cf__bytes_read, cf__bytes_free_slot, cf__pow2_alt);
    if (f->addr == CF__ADDR_BYTES)
        return cf__bfs_search(f, q, cap, i1, i2, cf__bytes_read, cf__bytes_free_slot,
                              cf__alt_index);
    return cf__bfs_search(f, q, cap, i1, i2, cf__bucket_read, cf__free_slot, cf__alt_index);
}

__attribute__((always_inline)) static inline cf_status
cf__evict(cf__table *f, uint64_t i1, uint64_t i2, uint32_t fp, cf__trace *trace) {
    cf__bfs_node on_stack[CF__STACK_NODES], *q = on_stack;
    size_t need = (size_t)f->max_kicks + 2;
    size_t cap = need < CF__STACK_NODES ? need : CF__STACK_NODES;
    cf__bfs_end end;
    /* A queue too short for the budget: the same search again with room
     * for all of it, in scratch from the filter's allocator held only
     * meanwhile (no memory kept per filter).  Breadth-first order makes its
     * first nodes those of the short search, so the path found is the one a
     * single long search finds. */
    for (;;) {
        end = cf__search(f, q, cap, i1, i2);
        if (end.at >= 0 || !end.truncated || q != on_stack) break;
        q = cf__alloc(&f->alloc, need * sizeof *q);
        CF__RETURN_IF(q == NULL, CF_E_NOMEM);
        cap = need;
    }
    if (end.at >= 0) cf__apply_path(f, q, end, fp, trace);
    if (q != on_stack) cf__free(&f->alloc, q);
    return end.at >= 0 ? CF_OK : CF_E_FULL;
}

cf_status cf__evict_insert(cf__table *f, uint64_t i1, uint64_t i2, uint32_t fp) {
    return cf__evict(f, i1, i2, fp, NULL);
}

cf_status cf__evict_insert_traced(cf__table *f, uint64_t i1, uint64_t i2, uint32_t fp,
                                  cf__trace *trace) {
    return cf__evict(f, i1, i2, fp, trace);
}
