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
 * CF_E_NOMEM (no scratch for a budget beyond the stack's), changing nothing.
 */
#include "bfs.h"

/* Moves fingerprints along the path ending at `end`, then stores fp in the
 * freed root slot. */
static void cf__apply_path(cf_filter *f, const cf__bfs_node *q, cf__bfs_end end, uint32_t fp) {
    int32_t at = end.at;
    unsigned slot = end.slot, dst_slot = (unsigned)end.dst_slot;
    uint64_t dst = end.dst;
    for (;;) {
        const cf__bfs_node *n = &q[at];
        cf__slot_set(f, dst, dst_slot, cf__slot_get(f, n->bucket, slot));
        f->total_kicks++;
        dst = n->bucket;
        dst_slot = slot;
        if (n->parent < 0) break;
        slot = n->slot;
        at = n->parent;
    }
    cf__slot_set(f, dst, dst_slot, fp);
}

/* Room for the two roots and one node per bucket the search may visit: on
 * the stack when it fits, else the filter's scratch, allocated once. */
static cf__bfs_node *cf__search_space(cf_filter *f, cf__bfs_node *on_stack, size_t *cap) {
    size_t need = (size_t)f->max_kicks + 2;
    *cap = need;
    if (need <= CF__STACK_NODES) return on_stack;
    if (f->queue == NULL) {
        f->queue = cf__alloc(&f->alloc, need * sizeof *f->queue);
        if (f->queue == NULL) return NULL;
        f->queue_cap = need;
    }
    return f->queue;
}

static int cf__free_slot(const cf_filter *f, uint64_t bucket) {
    return cf__bucket_find(f, bucket, 0);
}

cf_status cf__evict_insert(cf_filter *f, uint64_t i1, uint64_t i2, uint32_t fp) {
    cf__bfs_node on_stack[CF__STACK_NODES];
    size_t cap;
    cf__bfs_node *q = cf__search_space(f, on_stack, &cap);
    CF__RETURN_IF(q == NULL, CF_E_NOMEM);
    cf__bfs_end end = cf__bfs_search(f, q, cap, i1, i2, cf__bucket_read, cf__free_slot);
    CF__RETURN_IF(end.at < 0, CF_E_FULL);
    cf__apply_path(f, q, end, fp);
    return CF_OK;
}
