/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * layout.h -- one bit-packed table: its shape, the constants derived from
 * it, its counters, and how a key finds its buckets and slots.  What
 * table/ works on and every layer above shares; users never see it.  The
 * handle that holds a table, and says which kind of filter it is, is
 * kind/'s (kind/handle.h).
 *
 * The bucket table is one byte array of nb buckets of B bits each, bucket
 * after bucket, in little-endian bit order: bucket i occupies bits
 * [i*B, i*B + B) counted from bit 0 of byte 0.  A plain bucket is b slots
 * of f bits (B = b * f), so slot s (s = bucket * b + slot) occupies bits
 * [s*f, s*f + f); a semi-sorted bucket (semisort.h) is a 12-bit code and
 * four (f - 4)-bit suffixes (B = 4f - 4).  The table has ceil(nb * B / 8)
 * bytes.  The same bytes are the payload of the file format, so a mapped
 * file is used in place on any host.
 *
 *   byte:   0        1        2        3        4        5
 *         |........|........|........|........|........|........| ...
 *   f=12:  [ slot 0   ][ slot 1   ][ slot 2   ][ slot 3   ]  <- bucket 0 (b=4)
 *
 * Accessors read and write 8 bytes at a time, so CF__TABLE_PAD readable bytes
 * must follow the table: allocated tables carry zeroed padding, and a mapped
 * file ends with its checksum trailer.
 */
#ifndef CF_TABLE_LAYOUT_H
#define CF_TABLE_LAYOUT_H

#include "base/alloc.h"
#include "base/bits.h"
#include "base/hash.h"

#define CF__TABLE_PAD 8

/* One step of the breadth-first eviction search: a bucket reached from its
 * parent node by moving the fingerprint in the parent's slot `slot`. */
typedef struct cf__bfs_node {
    uint64_t bucket;
    int32_t parent; /* index in the queue; -1 for the two roots */
    uint8_t slot;   /* slot of the parent bucket whose fingerprint moves here */
    uint8_t depth;
} cf__bfs_node;

/* The eviction search starts with this many nodes (1 KiB) on the stack:
 * most searches end within them, so small filters carry no scratch memory
 * (one Redis key per filter is common; RedisBloom's default budget of 20
 * always fits) and loading a file allocates only its table.  A search
 * that needs more room runs again in heap scratch (evict.c,
 * concurrent.c), finding the same path.  Kept small because inserts run
 * on threads with small stacks (16-20 KiB; tests/test_concurrent.c). */
#define CF__STACK_NODES 64

/* Tables up to this size are near: the prefetches of inserts, deletes and
 * the eviction search (cf__table.far) cost more than the misses they hide,
 * which in them are few and short (a core's L2, or the L3 just past it).
 * Measured with bench/ab.sh on an EPYC with 1 MiB of L2 a core and 32 MiB
 * of L3, inserts to 95% without the prefetches against with them: 0.90x
 * at 1.6 MB, 0.93x at 2.4 MB, 1.10x at 3.1 MB, 2.2x at 6.3 MB
 * (docs/BENCHMARKS.md, "What issue 34's levers measured"). */
#define CF__NEAR_BYTES ((uint64_t)2 << 20)

/* SWAR tables past CF__BALANCE_BYTES balance their buckets
 * (cf__table.balance): an insert fills whichever of its two buckets has its
 * first free slot earlier, not i1 whenever i1 has room.  It reads both
 * buckets on every insert, and a third fewer inserts then need an eviction
 * search.  Measured with bench/ab.sh against first fit, filling to 95%
 * (docs/BENCHMARKS.md, "Balanced buckets"): cf_insert_batch 0.85-0.93x from
 * 3 MB to 201 MB; single inserts 0.87-1.01x past the 32 MB L3, but
 * 1.07-1.18x, and deletes 1.06-1.11x, in tables of 3-13 MB that the L3
 * holds, where the second read is waited for on every insert.  Hence the
 * limit.  A property of the table's size, as `far` is, but not a switch
 * of speed: it decides which bucket holds what, so the same inserts give
 * the same bytes on every machine and every path (kernel.h's
 * cf__fill_second). */
#define CF__BALANCE_BYTES ((uint64_t)32 << 20)

/* The lookup kernels (bucket.h, cf__contains_hashed): SWAR layouts by how
 * the first bucket is found (a shift for power-of-two tables, else a
 * multiply-high) and how a bucket is loaded (at a byte offset when buckets
 * start on bytes, else at a bit offset, shifted); other layouts
 * (semi-sorted, wide buckets) out of line. */
#define CF__ADDR_OTHER 0u
#define CF__ADDR_BITS 1u
#define CF__ADDR_BYTES 2u
#define CF__ADDR_POW2_BITS 3u
#define CF__ADDR_POW2_BYTES 4u

/* A table: its bytes, shape and counters.  Every handle holds one
 * (kind/handle.h): a plain or concurrent filter's is its table, a chain's
 * links are plain handles, and the in-place kind lays its own slots of
 * variable width out in the bytes, buckets and counters of its handle's
 * (kind/inplace.h). */
typedef struct cf__table {
    cf_allocator alloc;   /* the filter's allocator (malloc/free if none): the
                             table and eviction scratch come from it        */
    uint8_t *table;       /* bit-packed slots + CF__TABLE_PAD bytes             */
    size_t table_bytes;   /* ceil(nb * bucket_bits / 8)                         */
    uint64_t num_buckets; /* nb >= 1                                            */
    uint64_t items;       /* nonzero slots                                      */
    uint64_t seed;        /* also in hkey; set both with cf__set_seed           */
    cf__hash_key hkey;
    uint64_t total_kicks;
    uint64_t failed_inserts;
    unsigned fp_bits;     /* f, 1..32                                           */
    unsigned bucket_size; /* b, 1/2/4/8                                         */
    unsigned max_kicks;
    unsigned flags;
    uint64_t fp_mask;      /* (1 << f) - 1                                       */
    unsigned bucket_bits;  /* b * f, or 4f - 4 semi-sorted                       */
    uint64_t bucket_mask;  /* low bucket_bits bits set                           */
    uint64_t lane_ones;    /* bit 0 of each f-bit lane of a bucket               */
    uint64_t lane_highs;   /* top bit of each f-bit lane of a bucket             */
    unsigned partner_map;  /* CF__MAP_MIXED, or CF__MAP_GOLDEN for old files     */
    unsigned index_shift;  /* 64 - log2(nb) when nb is a power of two >= 2, else 0 */
    unsigned bucket_bytes; /* bucket_bits / 8 when every bucket starts on a byte, else 0 */
    unsigned addr;         /* CF__ADDR_*: which lookup kernel serves f (bucket.h)  */
    uint64_t alt_xmask;    /* partner map constants: cf__alt_index               */
    uint64_t alt_mul;
    bool swar;       /* every bucket fits one 64-bit load at its bit offset */
    bool semi_sort;  /* CF_SEMI_SORT: buckets hold a prefix code (semisort.h) */
    bool read_only;  /* table lives in a read-only mapping                 */
    bool owns_table; /* table came from alloc (false when mapped)          */
    bool far;        /* the table outgrows CF__NEAR_BYTES: prefetches pay off */
    bool balance;    /* past CF__BALANCE_BYTES: inserts fill the emptier bucket */
} cf__table;

/* ---- hashing: key -> 64-bit hash -> (i1, fp) -> i2 ---- */

/* The fingerprint: uniform in [1, 2^f - 1], from the low 32 bits of h, which
 * barely influence the index (drawn from the high bits by cf__range).
 * fp_mask = 2^f - 1 is also the number of nonzero values. */
static inline uint32_t cf__fingerprint_masked(uint64_t h, uint64_t fp_mask) {
    return (uint32_t)((((h & 0xffffffffu) * fp_mask) >> 32) + 1);
}

static inline uint32_t cf__fingerprint(uint64_t h, unsigned f) {
    return cf__fingerprint_masked(h, ((uint64_t)1 << f) - 1);
}

static inline uint64_t cf__index1(uint64_t h, uint64_t nb) {
    return cf__range(h, nb);
}

/* 2^64 / golden ratio, odd. */
#define CF__GOLDEN 0x9e3779b97f4a7c15ull

/* Partner maps, stored in files as hash_id (docs/FORMAT.md):
 *   2 (written today):  m = fp * G;  m ^= m >> 29;  c = range(m * G, nb)
 *   1 (files before 0.2): c = range(fp * G, nb)
 * and then alt(i, fp) = (c - i) mod nb.  Map 1 is multiplicative in fp, so
 * c(w) - c(v) depends only on w - v and two kicks reach few distinct
 * buckets: narrow fingerprints filled tables poorly (b = 4, f = 5 at 2^16
 * buckets: 91.9% against 96.6% for map 2).  The xor-shift between the two
 * multiplications breaks that, for two instructions.  Both maps are one
 * expression, m ^= (m >> 29) & xmask; c = range(m * mul, nb), with
 * (xmask, mul) = (~0, G) for map 2 and (0, 1) for map 1, so old files keep
 * working at no cost to new ones. */
#define CF__MAP_GOLDEN 1u
#define CF__MAP_MIXED 2u

/* The point c(fp) before its reduction to [0, nb). */
static inline uint64_t cf__alt_point(const cf__table *f, uint32_t fp) {
    uint64_t m = (uint64_t)fp * CF__GOLDEN;
    m ^= (m >> 29) & f->alt_xmask;
    return m * f->alt_mul;
}

/* alt(i, fp): the partner depends only on the fingerprint, so evictions
 * move items without their keys, and alt(alt(i, fp), fp) == i for every nb
 * (cf__reflect).  The general form, right for every nb. */
static inline uint64_t cf__alt_index(const cf__table *f, uint64_t i, uint32_t fp) {
    return cf__reflect(cf__range(cf__alt_point(f, fp), f->num_buckets), i, f->num_buckets);
}

/* The kernels' forms of cf__index1 and cf__alt_index (bucket.h, kernel.h,
 * evict.c: one copy per addressing, CF__ADDR_*, pow2 a constant in each):
 * with nb = 2^k, range(x, nb) is x >> (64 - k) and the reflection a
 * subtraction mod 2^k.  m is cf__alt_point(f, fp).  The same buckets as the
 * general forms (tests/test_model.c runs every addressing). */
static inline uint64_t cf__index1_k(const cf__table *f, uint64_t h, bool pow2) {
    return pow2 ? h >> f->index_shift : cf__index1(h, f->num_buckets);
}

static inline uint64_t cf__alt_k(const cf__table *f, uint64_t i, uint64_t m, bool pow2) {
    uint64_t nb = f->num_buckets;
    return pow2 ? ((m >> f->index_shift) - i) & (nb - 1) : cf__reflect(cf__range(m, nb), i, nb);
}

/* ---- bit-packed table access ---- */
/* Addressing: where bucket `bucket`, and slot `slot` of a plain bucket,
 * start in the table, in bits.  The one owner of "bucket or slot -> table
 * bit": the plain accessors, bucket.h, kernel.h and the concurrent code's
 * atomic words all ask here, or cf__bucket_at below.  (The batch pipelines
 * stage the same offsets, in bytes when every bucket starts on a byte:
 * batch.c.) */
static inline uint64_t cf__bucket_bit(const cf__table *f, uint64_t bucket) {
    return bucket * f->bucket_bits;
}

/* Where bucket `bucket` starts when every bucket starts on a byte
 * (bucket_bytes != 0; the kernels of CF__ADDR_BYTES and
 * CF__ADDR_POW2_BYTES): the byte of cf__bucket_bit, as a stride multiplied
 * once, one instruction a probe less than converting the bit offset. */
static inline uint8_t *cf__bucket_at(const cf__table *f, uint64_t bucket) {
    return f->table + bucket * f->bucket_bytes;
}

static inline uint64_t cf__slot_bit(const cf__table *f, uint64_t bucket, unsigned slot) {
    return (bucket * f->bucket_size + slot) * f->fp_bits;
}

/* Plain (not semi-sorted) slot access; bucket.h's cf__slot_get/set dispatch. */
static inline uint32_t cf__packed_slot_get(const cf__table *f, uint64_t bucket, unsigned slot) {
    return (uint32_t)(cf__bits_at(f->table, cf__slot_bit(f, bucket, slot)) & f->fp_mask);
}

static inline void cf__packed_slot_set(cf__table *f, uint64_t bucket, unsigned slot, uint32_t fp) {
    cf__bitpos p = cf__bitpos_of(f->table, cf__slot_bit(f, bucket, slot));
    uint64_t w = cf__load64le(p.at);
    w = (w & ~(f->fp_mask << p.shift)) | ((uint64_t)fp << p.shift);
    cf__store64le(p.at, w);
}

/* Whether a table of bucket size b and width f can be semi-sorted: four
 * slots, and a bucket (4f - 4 bits) that fits one 64-bit load with 5..16
 * bits per fingerprint (a 4-bit prefix and a suffix of at least one bit).
 * The one rule cf_new checks and grown filters apply table by table. */
static inline bool cf__semi_sort_fits(unsigned b, unsigned f) {
    return b == 4 && f >= 5 && f <= 16;
}

/* Bits of one bucket: b * f, or 4f - 4 semi-sorted. */
static inline unsigned cf__bucket_bits(unsigned b, unsigned f, unsigned flags) {
    return (flags & CF_SEMI_SORT) ? 4 * f - 4 : b * f;
}

/* Sets *out to the bytes of a table of nb buckets; CF_E_TOO_LARGE when its
 * size overflows. */
cf_status cf__table_bytes(uint64_t nb, unsigned b, unsigned f, unsigned flags, size_t *out);

/* Sets the hash seed and the constants derived from it. */
void cf__set_seed(cf__table *f, uint64_t seed);

/* Allocates f's table of f->table_bytes plus CF__TABLE_PAD bytes through
 * f's allocator and marks it owned: all zero when zeroed (calloc when the
 * allocator has one), else only the padding (the caller fills the table).
 * CF_OK or CF_E_NOMEM (f->table stays NULL).  The one owner of table
 * allocation: cf_new, the deserializer and the file loaders use it. */
cf_status cf__table_alloc(cf__table *f, bool zeroed);

/* Sets every derived field (masks, SWAR flag) from fp_bits and bucket_size. */
void cf__derive_layout(cf__table *f);

/* The writes of one insert, as cf_insert_traced reports them: the first
 * cap go to moves, n counts them all. */
typedef struct cf__trace {
    cf_move *moves;
    size_t cap, n;
} cf__trace;

static inline void cf__trace_put(cf__trace *t, uint64_t from, unsigned from_slot, uint64_t to,
                                 unsigned to_slot, uint32_t fp) {
    if (t->n < t->cap)
        t->moves[t->n] = (cf_move){.from_bucket = from,
                                   .to_bucket = to,
                                   .fingerprint = fp,
                                   .from_slot = (uint8_t)from_slot,
                                   .to_slot = (uint8_t)to_slot};
    t->n++;
}

/* Stores fp in bucket i1 or i2 after moving residents along the shortest
 * eviction path (evict.c).  CF_OK, CF_E_FULL or CF_E_NOMEM; on failure the
 * filter is unchanged. */
cf_status cf__evict_insert(cf__table *f, uint64_t i1, uint64_t i2, uint32_t fp);
/* A balanced table's insert of fp at i1 or i2, and of hash h:
 * table_merge.c. */
cf_status cf__insert_balanced(cf__table *f, uint64_t i1, uint64_t i2, uint32_t fp);
cf_status cf__insert_balanced_hash(cf__table *f, uint64_t h);
/* The same, each write reported to trace (cf_insert_traced). */
cf_status cf__evict_insert_traced(cf__table *f, uint64_t i1, uint64_t i2, uint32_t fp,
                                  cf__trace *trace);

/* Counts nonzero slots, slot by slot (tests compare it with the loader's
 * faster count). */
uint64_t cf__count_occupied(const cf__table *f);

/* Resolves cfg's derived parameters (defaults, width from target_fpp,
 * buckets from capacity) and checks them. */
cf_status cf__resolve_config(const cf_config *cfg, unsigned *fbits, unsigned *b, uint64_t *nb,
                             unsigned *max_kicks);

/* The width a target FPP asks for with bucket size b: ceil(log2(2b / fpp))
 * (FPP ~ 2b / 2^f at full load), unclamped (at most 1000), before the
 * table's own floor (config.c); fpp in (0, 1). */
unsigned cf__width_for_fpp(unsigned b, double fpp);
/* The narrowest width a derived width may be for nb buckets of b slots:
 * narrower fingerprints do not fill the table (config.c). */
unsigned cf__min_width(unsigned b, uint64_t nb);
/* The smallest target FPP for which cf__width_for_fpp(b, fpp) <= f: 2b / 2^f. */
double cf__loosest_fpp_for_width(unsigned b, unsigned f);

/* The load factor sizing assumes: cfg->max_load, or the bucket size's default. */
double cf__sizing_load(const cf_config *cfg, unsigned b);

/* Validates a semi-sorted table: every code valid, every bucket sorted,
 * nonzero slots == items.  CF_OK or CF_E_CORRUPT. */
cf_status cf__check_semisorted(const cf__table *f);

/* Checks the parameters a filter can be built from; CF_OK or CF_E_PARAM. */
cf_status cf__check_shape(unsigned fbits, unsigned b, uint64_t nb, unsigned max_kicks,
                          unsigned flags);

#endif /* CF_TABLE_LAYOUT_H */
