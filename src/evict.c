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
#include "bucket.h"

/* True if bucket lies on the path from the root to node `at`. */
static bool cf__on_path(const cf__bfs_node *q, int32_t at, uint64_t bucket) {
    for (int32_t j = at; j >= 0; j = q[j].parent)
        if (q[j].bucket == bucket) return true;
    return false;
}

/* Moves fingerprints along the path ending with node `at`'s slot `slot`
 * going to `dst`'s free slot, then stores fp in the freed root slot. */
static void cf__apply_path(cf_filter *f, const cf__bfs_node *q, int32_t at, unsigned slot,
                           uint64_t dst, unsigned dst_slot, uint32_t fp) {
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

/* Nodes whose children are read ahead of the node being expanded. */
#define CF__LOOKAHEAD 8

static void cf__prefetch_children(const cf_filter *f, uint64_t bucket) {
    uint32_t resident[CF_MAX_BUCKET_SIZE];
    cf__bucket_read(f, bucket, resident);
    for (unsigned s = 0; s < f->bucket_size; s++)
        cf__prefetch_bucket(f, cf__alt_index(f, bucket, resident[s]));
}

cf_status cf__evict_insert(cf_filter *f, uint64_t i1, uint64_t i2, uint32_t fp) {
    cf__bfs_node on_stack[CF__STACK_NODES];
    size_t cap;
    cf__bfs_node *q = cf__search_space(f, on_stack, &cap);
    CF__RETURN_IF(q == NULL, CF_E_NOMEM);
    size_t tail = 0;
    q[tail++] = (cf__bfs_node){.bucket = i1, .parent = -1};
    if (i2 != i1) q[tail++] = (cf__bfs_node){.bucket = i2, .parent = -1};

    /* In a large table every bucket the search reaches is a cache miss, and
     * testing a child is a branch on its contents, so tested one by one they
     * would be waited for one after another.  Nodes already queued have been
     * read (their buckets are cached), so the children of the next
     * CF__LOOKAHEAD of them are computed and prefetched before the current
     * node's are tested: each round trip to memory serves several nodes.
     * This only reads ahead; the search itself is unchanged. */
    size_t prefetched = 0;
    for (size_t head = 0; head < tail && head < f->max_kicks; head++) {
        for (; prefetched < tail && prefetched <= head + CF__LOOKAHEAD; prefetched++)
            cf__prefetch_children(f, q[prefetched].bucket);
        uint64_t bucket = q[head].bucket;
        uint32_t resident[CF_MAX_BUCKET_SIZE];
        uint64_t children[CF_MAX_BUCKET_SIZE];
        cf__bucket_read(f, bucket, resident);
        for (unsigned s = 0; s < f->bucket_size; s++)
            children[s] = cf__alt_index(f, bucket, resident[s]);
        for (unsigned s = 0; s < f->bucket_size; s++) {
            uint64_t child = children[s];
            if (child == bucket || cf__on_path(q, (int32_t)head, child)) continue;
            int free_slot = cf__bucket_find(f, child, 0);
            if (free_slot >= 0) {
                cf__apply_path(f, q, (int32_t)head, s, child, (unsigned)free_slot, fp);
                return CF_OK;
            }
            if (tail < cap && q[head].depth < UINT8_MAX)
                q[tail++] = (cf__bfs_node){.bucket = child,
                                           .parent = (int32_t)head,
                                           .slot = (uint8_t)s,
                                           .depth = (uint8_t)(q[head].depth + 1)};
        }
    }
    return CF_E_FULL;
}
