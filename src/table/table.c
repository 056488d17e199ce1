/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * table.c -- one bit-packed table: its shape, its memory and its counters.
 *
 *   cf__table ──► bytes: nb buckets x b slots x f bits, bit-packed
 *                 ┌──────────┬──────────┬─────┬────────────┐ + 8 pad
 *                 │ bucket 0 │ bucket 1 │ ... │ bucket nb-1│ bytes
 *                 └──────────┴──────────┴─────┴────────────┘
 *
 * The table's bytes come from the filter's allocator (so does the
 * scratch of an eviction search that outgrows the stack, freed before the
 * insert returns: evict.c).  A mapped table (io/) points into a read-only
 * mapping instead and owns no table memory.  The handle that holds a
 * table is kind/'s (kind/handle.h).
 */
#include "table/bucket.h"
#include "base/hash.h"
#include "table/table.h"

void cf__derive_layout(cf__table *f) {
    unsigned fb = f->fp_bits, b = f->bucket_size;
    f->fp_mask = ((uint64_t)1 << fb) - 1;
    f->semi_sort = (f->flags & CF_SEMI_SORT) != 0;
    f->bucket_bits = cf__bucket_bits(b, fb, f->flags);
    /* A bucket starting at bit offset o within its first byte needs o + b*f
     * bits in one load; offsets are all 0 when b*f is a multiple of 8. */
    f->swar = !f->semi_sort &&
              (f->bucket_bits <= 57 || (f->bucket_bits % 8 == 0 && f->bucket_bits <= 64));
    f->bucket_mask = f->bucket_bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << f->bucket_bits) - 1;
    /* Addressing, chosen once per filter: power-of-two tables index by a
     * shift and a mask, byte-aligned buckets load at byte offsets. */
    uint64_t nb = f->num_buckets;
    f->index_shift = nb >= 2 && (nb & (nb - 1)) == 0 ? 64 - (unsigned)__builtin_ctzll(nb) : 0;
    f->bucket_bytes = f->bucket_bits % 8 == 0 ? f->bucket_bits / 8 : 0;
    if (!f->swar)
        f->addr = CF__ADDR_OTHER;
    else if (f->bucket_bytes != 0)
        f->addr = f->index_shift != 0 ? CF__ADDR_POW2_BYTES : CF__ADDR_BYTES;
    else
        f->addr = f->index_shift != 0 ? CF__ADDR_POW2_BITS : CF__ADDR_BITS;
    f->far = (unsigned __int128)nb * f->bucket_bits > (unsigned __int128)CF__NEAR_BYTES * 8;
    f->balance = f->swar &&
                 (unsigned __int128)nb * f->bucket_bits > (unsigned __int128)CF__BALANCE_BYTES * 8;
    bool mixed = f->partner_map != CF__MAP_GOLDEN;
    f->alt_xmask = mixed ? ~(uint64_t)0 : 0;
    f->alt_mul = mixed ? CF__GOLDEN : 1;
    /* Lane masks for every bucket of at most 64 bits: the plain code uses
     * them where one unaligned load holds the bucket (swar), the concurrent
     * code for all of them (it joins two aligned words, concurrent.c). */
    f->lane_ones = 0;
    f->lane_highs = 0;
    if (!f->semi_sort && f->bucket_bits <= 64) {
        for (unsigned s = 0; s < b; s++) {
            f->lane_ones |= (uint64_t)1 << (s * fb);
            f->lane_highs |= (uint64_t)1 << (s * fb + fb - 1);
        }
    }
}

void cf__set_seed(cf__table *f, uint64_t seed) {
    f->seed = seed;
    cf__hash_key_init(&f->hkey, seed);
}

void cf__table_shape(cf__table *f, uint64_t nb, unsigned b, unsigned fbits, unsigned flags,
                     unsigned max_kicks) {
    f->num_buckets = nb;
    f->bucket_size = b;
    f->fp_bits = fbits;
    f->max_kicks = max_kicks;
    f->flags = flags;
    f->partner_map = CF__MAP_MIXED;
    cf__derive_layout(f);
}

cf_status cf__table_alloc(cf__table *f, bool zeroed) {
    size_t n = f->table_bytes + CF__TABLE_PAD;
    /* Zeroed lazily where the allocator can (cf_allocator.calloc). */
    f->table = zeroed ? cf__calloc(&f->alloc, n) : cf__alloc(&f->alloc, n);
    CF__RETURN_IF(f->table == NULL, CF_E_NOMEM);
    cf__advise_huge(&f->alloc, f->table, n); /* before the pages are touched */
    if (!zeroed) memset(f->table + f->table_bytes, 0, CF__TABLE_PAD);
    f->owns_table = true;
    return CF_OK;
}

void cf__table_release(cf__table *f) {
    if (f->owns_table) cf__free(&f->alloc, f->table);
    f->table = NULL;
    f->owns_table = false;
}

void cf__table_clear(cf__table *f) {
    memset(f->table, 0, f->table_bytes + CF__TABLE_PAD);
    f->items = 0;
}

size_t cf__table_memory(const cf__table *f) {
    return f->owns_table ? f->table_bytes + CF__TABLE_PAD : 0;
}

uint64_t cf__count_occupied(const cf__table *f) {
    uint64_t n = 0;
    for (uint64_t i = 0; i < f->num_buckets; i++)
        for (unsigned s = 0; s < f->bucket_size; s++) n += cf__slot_get(f, i, s) != 0;
    return n;
}

cf_status cf__check_semisorted(const cf__table *f) {
    uint64_t occupied = 0;
    for (uint64_t i = 0; i < f->num_buckets; i++) {
        /* Only codes the encoder produces, and only sorted buckets: one
         * bucket content has exactly one encoding, so files stay canonical. */
        CF__RETURN_IF((cf__bucket_word(f, i) & ((1u << CF__SEMISORT_CODE_BITS) - 1)) >=
                          CF__SEMISORT_CODES,
                      CF_E_CORRUPT);
        uint32_t fp[4];
        cf__semisort_read(f, i, fp);
        CF__RETURN_IF(fp[0] > fp[1] || fp[1] > fp[2] || fp[2] > fp[3], CF_E_CORRUPT);
        occupied += (fp[0] != 0) + (fp[1] != 0) + (fp[2] != 0) + (fp[3] != 0);
    }
    CF__RETURN_IF(occupied != f->items, CF_E_CORRUPT);
    return CF_OK;
}

void cf__table_stats(const cf__table *f, cf_stats *out) {
    memset(out, 0, sizeof *out);
    out->items = f->items;
    out->num_buckets = f->num_buckets;
    out->slots = f->num_buckets * f->bucket_size;
    out->bucket_size = f->bucket_size;
    out->fingerprint_bits = f->fp_bits;
    out->max_kicks = f->max_kicks;
    out->flags = f->flags;
    out->seed = f->seed;
    out->load_factor = (double)f->items / (double)out->slots;
    double table_bits = (double)f->num_buckets * f->bucket_bits;
    out->bits_per_slot = f->bucket_bits / f->bucket_size;
    out->bits_per_item = f->items ? table_bits / (double)f->items : 0.0;
    out->expected_fpp = cf__fpp(f->fp_bits, f->bucket_size, out->load_factor);
    out->table_bytes = f->table_bytes;
    out->memory_bytes = cf__table_memory(f);
    out->total_kicks = f->total_kicks;
    out->failed_inserts = f->failed_inserts;
    out->read_only = f->read_only;
    out->tables = 1;
    out->fpp_bound = cf__fpp(f->fp_bits, f->bucket_size, 1.0);
}
