/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * ref_cuckoo.c -- the paper's reference cuckoo filter (see ref_cuckoo.h for
 * what it does and why it is the baseline) called out of line, the tag width
 * chosen at run time.  The code itself is ref_cuckoo_impl.h's, which callers
 * can also compile inline with a constant width (cf-lookup-bench does).
 */
#include "reference/ref_cuckoo_impl.h"

#include <stdlib.h>
#include <string.h>

uint64_t ref_cuckoo_floor_pow2(uint64_t x) {
    uint64_t p = 1;
    while (p <= x / 2) p *= 2;
    return p;
}

/* One instance per width, as the paper's template has; the paper's own
 * configuration (f = 12) is tested first, so it pays one predicted branch. */
#define REF_BY_WIDTH(fn, r, item)                   \
    if ((r)->fp_bits == 12) return fn(r, item, 12); \
    switch ((r)->fp_bits) {                         \
    case 4: return fn(r, item, 4);                  \
    case 8: return fn(r, item, 8);                  \
    default: return fn(r, item, 16);                \
    }

bool ref_cuckoo_insert(ref_cuckoo *r, uint64_t item) {
    REF_BY_WIDTH(ref_cuckoo_insert_f, r, item)
}
bool ref_cuckoo_contains(const ref_cuckoo *r, uint64_t item) {
    REF_BY_WIDTH(ref_cuckoo_contains_f, r, item)
}
bool ref_cuckoo_delete(ref_cuckoo *r, uint64_t item) {
    REF_BY_WIDTH(ref_cuckoo_delete_f, r, item)
}

bool ref_cuckoo_init(ref_cuckoo *r, uint64_t num_buckets, unsigned fp_bits, uint64_t seed) {
    memset(r, 0, sizeof *r);
    if (num_buckets == 0 || (num_buckets & (num_buckets - 1)) != 0) return false;
    if (num_buckets > (1ull << 32)) return false; /* the index is 32 bits of h */
    if (fp_bits != 4 && fp_bits != 8 && fp_bits != 12 && fp_bits != 16) return false;
    unsigned bb = 4 * fp_bits / 8;
    if (num_buckets > (SIZE_MAX - 8) / bb) return false;
    r->table = calloc((size_t)num_buckets * bb + 8, 1);
    if (r->table == NULL) return false;
    r->num_buckets = num_buckets;
    r->fp_bits = fp_bits;
    r->bucket_bytes = bb;
    uint64_t s = seed;
    r->mul = (unsigned __int128)bench_splitmix64(&s) << 64 | bench_splitmix64(&s);
    r->add = (unsigned __int128)bench_splitmix64(&s) << 64 | bench_splitmix64(&s);
    r->rng = bench_splitmix64(&s) | 1; /* xorshift needs a nonzero state */
    return true;
}

void ref_cuckoo_destroy(ref_cuckoo *r) {
    free(r->table);
    memset(r, 0, sizeof *r);
}

size_t ref_cuckoo_table_bytes(const ref_cuckoo *r) {
    return (size_t)r->num_buckets * r->bucket_bytes;
}
