/*
 * lookup.c -- lookups in the layouts a single word load cannot search
 * (semi-sorted buckets, buckets wider than a word), out of line: inlined
 * into bucket.h's cf__contains_at, they made every lookup save and restore
 * four more registers.
 */
#include "bucket.h"

/* Semi-sorted buckets: both words read before either is searched. */
static inline bool cf__contains_semi(const cf_filter *f, uint64_t i1, uint64_t i2, uint32_t fp) {
    uint64_t w1 = cf__bucket_bits_at(f, i1), w2 = cf__bucket_bits_at(f, i2);
    return cf__semisort_find_word(f, w1, fp) >= 0 || cf__semisort_find_word(f, w2, fp) >= 0;
}

__attribute__((noinline)) bool cf__contains_other(const cf_filter *f, uint64_t i1, uint64_t i2,
                                                  uint32_t fp) {
    if (f->semi_sort) return cf__contains_semi(f, i1, i2, fp);
    return cf__bucket_has(f, i1, fp) || cf__bucket_has(f, i2, fp);
}
