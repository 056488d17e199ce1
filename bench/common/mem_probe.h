/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * mem_probe.h -- what the memory system allows, measured over an array as
 * large as the filter's table: the floor that no lookup can beat.
 *
 * A cuckoo lookup in a table far larger than the caches is two random
 * cache-line reads.  Done one key at a time, each read waits for DRAM (and a
 * page walk); done for many keys at once, the reads overlap and the cost per
 * key drops to what the memory system can keep in flight.  The probe measures
 * both ends:
 *   dependent   each read's address comes from the previous read (a random
 *               cyclic permutation of the lines): pure latency, nothing overlaps;
 *   random1     independent reads of random lines, with many in flight
 *               (the best of a plain loop and one prefetching ahead);
 *   random2     the same, two random lines per "key": the parallel limit for a
 *               two-bucket lookup, the figure batched lookups are held to;
 *   page2       two random lines of one 4 KiB page per key: the limit for a
 *               lookup whose buckets share a page (one page walk, not two).
 */
#ifndef CF_BENCH_MEM_PROBE_H
#define CF_BENCH_MEM_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mem_probe_result {
    size_t bytes;        /* array size actually probed (whole cache lines)       */
    size_t huge_bytes;   /* of which backed by huge pages (0 unless asked)        */
    double dependent_ns; /* ns per read, dependent chain                          */
    double random1_ns;   /* ns per line, independent reads, many in flight        */
    double random2_ns;   /* ns per pair of independent random lines               */
    double page2_ns;     /* ns per pair of random lines within one 4 KiB page     */
} mem_probe_result;

/* Probes an array of about `bytes` bytes (at least one cache line): `steps`
 * dependent reads and `pairs` pairs of independent reads, addresses drawn
 * from `seed`.  With `huge`, the array is mapped and advised to use
 * transparent huge pages (madvise), to show what they would give a table.
 * Returns false when memory runs out. */
bool mem_probe_run(size_t bytes, uint64_t steps, uint64_t pairs, uint64_t seed, bool huge,
                   mem_probe_result *out);

#endif /* CF_BENCH_MEM_PROBE_H */
