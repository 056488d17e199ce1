/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * bfs.h -- the breadth-first search for an eviction path (evict.c tells the
 * method), written once for the two ways a table is read: plainly
 * (evict.c) and with atomic loads while other threads write to it
 * (concurrent.c).  Each caller passes its own bucket reader and partner
 * map; the search is inlined into both, and their calls with it (evict.c
 * has one copy per addressing, as lookups have kernels).
 */
#ifndef CF_BFS_H
#define CF_BFS_H

#include "table/bucket.h"

/* The fingerprints of a bucket, in slot order. */
typedef void (*cf__bfs_read)(const cf__table *f, uint64_t bucket, uint32_t fp[CF_MAX_BUCKET_SIZE]);
/* A free slot of bucket (any one), or -1 when it is full. */
typedef int (*cf__bfs_free_slot)(const cf__table *f, uint64_t bucket);
/* The partner of bucket for fingerprint fp: cf__alt_index, or a form of it
 * for f's addressing that gives the same bucket. */
typedef uint64_t (*cf__bfs_alt)(const cf__table *f, uint64_t bucket, uint32_t fp);

/* The free end of a path: the fingerprint in slot `slot` of node `at`
 * moves to slot `dst_slot` of bucket `dst`, which is free; then each node
 * hands its fingerprint on along the parents (cf__bfs_node.slot), and the
 * root's slot is left for the new fingerprint. */
typedef struct cf__bfs_end {
    int32_t at;
    unsigned slot;
    uint64_t dst;
    int dst_slot;
    bool truncated; /* at < 0 because q had no room left within the budget */
} cf__bfs_end;

/* True if bucket lies on the path from the root to node `at` (-1: the
 * empty path above a root). */
static inline bool cf__bfs_on_path(const cf__bfs_node *q, int32_t at, uint64_t bucket) {
    for (int32_t j = at; j >= 0; j = q[j].parent)
        if (q[j].bucket == bucket) return true;
    return false;
}

/* Whether child, reached through slot s of node at, has a free slot: then
 * *end is that path's end. */
static inline bool cf__bfs_room(const cf__table *f, cf__bfs_free_slot free_slot, size_t at,
                                unsigned s, uint64_t child, cf__bfs_end *end) {
    int room = free_slot(f, child);
    if (room < 0) return false;
    *end = (cf__bfs_end){.at = (int32_t)at, .slot = s, .dst = child, .dst_slot = room};
    return true;
}

/* Nodes whose children are read ahead of the node being expanded. */
#define CF__BFS_LOOKAHEAD 8
/* The children computed by the read-ahead, kept for the node's expansion:
 * a ring over the nodes between the one expanded and the last read ahead
 * (at most CF__BFS_LOOKAHEAD + 1 of them; a power of two above). */
#define CF__BFS_RING 16

/* Searches from the roots i1 and i2 (both full) for the shortest path to a
 * free slot, visiting at most f->max_kicks buckets with room for cap nodes
 * in q (the whole budget needs f->max_kicks + 2; with fewer the search
 * stops early, and finds what the longer one would have found by then).
 * The path's end, or .at = -1 when there is none (.truncated when a longer
 * q might have found one). */
static inline cf__bfs_end cf__bfs_search(const cf__table *f, cf__bfs_node *q, size_t cap,
                                         uint64_t i1, uint64_t i2, cf__bfs_read read,
                                         cf__bfs_free_slot free_slot, cf__bfs_alt alt) {
    size_t tail = 0;
    q[tail++] = (cf__bfs_node){.bucket = i1, .parent = -1};
    if (i2 != i1) q[tail++] = (cf__bfs_node){.bucket = i2, .parent = -1};
    size_t roots = tail;
    uint64_t ring[CF__BFS_RING][CF_MAX_BUCKET_SIZE];

    /* The roots' children, tested in the order of the loop below but
     * without its bookkeeping: most searches end among them (8 in 10 while
     * a table fills to 95%).  In a large table they are all computed and
     * prefetched before the first is tested; in a small one each is
     * computed when it is tested, and the search often ends before the
     * second root is read.  A child that is its own root cannot take the
     * fingerprint; a root has no other ancestor. */
    size_t expanded = roots < f->max_kicks ? roots : f->max_kicks;
    cf__bfs_end end;
    for (size_t r = 0; r < expanded; r++) {
        uint32_t fp[CF_MAX_BUCKET_SIZE];
        read(f, q[r].bucket, fp);
        for (unsigned s = 0; s < f->bucket_size; s++) {
            uint64_t child = ring[r][s] = alt(f, q[r].bucket, fp[s]);
            if (f->far) {
                cf__prefetch_bucket(f, child);
                continue;
            }
            if (child != q[r].bucket && cf__bfs_room(f, free_slot, r, s, child, &end)) return end;
        }
    }
    for (size_t r = 0; r < expanded && f->far; r++)
        for (unsigned s = 0; s < f->bucket_size; s++)
            if (ring[r][s] != q[r].bucket && cf__bfs_room(f, free_slot, r, s, ring[r][s], &end))
                return end;
    for (size_t r = 0; r < expanded; r++)
        for (unsigned s = 0; s < f->bucket_size && tail < cap; s++)
            if (ring[r][s] != q[r].bucket)
                q[tail++] = (cf__bfs_node){
                    .bucket = ring[r][s], .parent = (int32_t)r, .slot = (uint8_t)s, .depth = 1};

    /* In a large table every bucket the search reaches is a cache miss, and
     * testing a child is a branch on its contents, so tested one by one they
     * would be waited for one after another.  Nodes already queued have been
     * read (their buckets are cached), so the children of the next
     * CF__BFS_LOOKAHEAD of them are computed and prefetched before the
     * current node's are tested: each round trip to memory serves several
     * nodes.  This only reads ahead; the search itself is unchanged.  (In a
     * small table the read-ahead is work without a miss to hide: each node's
     * children are computed when it is expanded.) */
    size_t prefetched = roots;
    for (size_t head = roots; head < tail && head < f->max_kicks; head++) {
        size_t ahead = f->far ? head + CF__BFS_LOOKAHEAD + 1 : head + 1;
        for (; prefetched < tail && prefetched < ahead; prefetched++) {
            uint32_t fp[CF_MAX_BUCKET_SIZE];
            uint64_t *kids = ring[prefetched % CF__BFS_RING];
            read(f, q[prefetched].bucket, fp);
            for (unsigned s = 0; s < f->bucket_size; s++) {
                kids[s] = alt(f, q[prefetched].bucket, fp[s]);
                if (f->far) cf__prefetch_bucket(f, kids[s]);
            }
        }
        /* Every node was read ahead by now (the pass runs past head), and
         * its ring entry is not yet reused: the read-ahead stays within
         * CF__BFS_RING nodes of head. */
        uint64_t bucket = q[head].bucket;
        const uint64_t *children = ring[head % CF__BFS_RING];
        for (unsigned s = 0; s < f->bucket_size; s++) {
            uint64_t child = children[s];
            if (child == bucket || cf__bfs_on_path(q, q[head].parent, child)) continue;
            if (cf__bfs_room(f, free_slot, head, s, child, &end)) return end;
            if (tail < cap && q[head].depth < UINT8_MAX)
                q[tail++] = (cf__bfs_node){.bucket = child,
                                           .parent = (int32_t)head,
                                           .slot = (uint8_t)s,
                                           .depth = (uint8_t)(q[head].depth + 1)};
        }
    }
    /* The queue filled before the budget was spent: the search stopped
     * because there was no room (then the last node expanded was the
     * queue's last, at cap < max_kicks), not because it visited max_kicks
     * buckets. */
    return (cf__bfs_end){.at = -1, .truncated = tail == cap && cap < f->max_kicks};
}

#endif /* CF_BFS_H */
