/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * ab_side.h -- what bench/ab/ab.c sees of one build of the library.
 *
 * bench/ab.sh compiles ab_side.c once against each commit's header, links
 * each copy with that commit's static library into one relocatable object,
 * and keeps only the copy's table (ab_side_base, ab_side_head) global: the
 * two libraries' cf_* symbols become local to their objects, so both live
 * in one process and every operation runs on both within seconds.
 *
 * The driver never includes cuckoofilter.h (the two commits' headers may
 * differ); it speaks to each library through these wrappers, each one
 * direct call into the library, the same for both sides.
 */
#ifndef CF_AB_SIDE_H
#define CF_AB_SIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cf_filter;

#define AB_GROWN_CAPACITY 1000
#define AB_GROWN_FPP 0.01

typedef struct ab_side {
    /* A filter of nb buckets x 4 slots x fp_bits bits, or NULL. */
    struct cf_filter *(*make)(uint64_t nb, unsigned fp_bits, uint64_t seed);
    /* A CF_GROW filter created for AB_GROWN_CAPACITY keys at AB_GROWN_FPP,
     * a chain or (inplace) one table doubled in place; NULL when this
     * side's library has no such mode. */
    struct cf_filter *(*make_grown)(bool inplace, uint64_t seed);
    void (*free)(struct cf_filter *f);
    uint64_t (*items)(const struct cf_filter *f);
    uint64_t (*hash)(const struct cf_filter *f, uint64_t key);
    /* Each returns true on success (CF_OK). */
    bool (*insert)(struct cf_filter *f, uint64_t key);
    bool (*remove)(struct cf_filter *f, uint64_t key);
    bool (*contains)(const struct cf_filter *f, uint64_t key);
    bool (*contains_hash)(const struct cf_filter *f, uint64_t h);
    /* cf_hash of each key, then cf_insert_batch, in chunks: the number of
     * keys stored (n unless the filter filled up). */
    size_t (*insert_keys_batch)(struct cf_filter *f, const uint64_t *keys, size_t n);
    /* cf_contains_batch; the number of hits. */
    size_t (*contains_batch)(const struct cf_filter *f, const uint64_t *hashes, size_t n,
                             bool *out);
} ab_side;

extern const ab_side ab_side_base, ab_side_head;

#endif /* CF_AB_SIDE_H */
