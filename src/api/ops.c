/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * ops.c -- the public operations on keys and hashes: insert, lookup,
 * delete, count and their batches.  Each checks its arguments once and
 * then switches on the filter's kind (cf__kind, the kinds x operations
 * matrix of docs/ARCHITECTURE.md); a plain filter's case is table/'s
 * inlined kernel (kernel.h, bucket.h), so a plain operation is one
 * predictable branch away from the table, with no call through a pointer.
 *
 *   h ─► fp = fingerprint(h)        i1 = range(h, nb)      i2 = alt(i1, fp)
 *
 * The partner bucket (cf__alt_index in table/layout.h) mirrors i1 about a
 * point chosen by the fingerprint alone, c = range(mix(fp), nb):
 *
 *   0          i2               c/2               i1                    nb
 *   |..........[ ]...............|................[ ]....................|
 *                              i1 + i2 = c  (mod nb)
 *
 * so moving an item needs only its fingerprint, any nb works, and the
 * partner costs three multiplications.  (Partners in the same 4 KiB block for
 * 3 in 4 items were tried first: a lookup then walks one page, worth ~13% on
 * single lookups at 100M items in a standalone loop (bench/simulations/lookup_floor.c);
 * but the other items need global partners for the table to fill, and
 * mixing the fingerprint, choosing between the two kinds and handling the
 * table's last block cost ~25 more instructions a lookup, which lost more
 * than the page saved: docs/BENCHMARKS.md.)
 */
#include "api/kind.h"
#include "base/hash.h"
#include "kind/chain.h"
#include "kind/concurrent.h"
#include "kind/expiring.h"
#include "kind/inplace.h"
#include "kind/plain.h"

static bool cf__bad_key(const void *key, size_t len) {
    return key == NULL && len != 0;
}

uint64_t cf_hash(const cf_filter *f, const void *key, size_t len) {
    if (cf__bad_key(key, len)) return 0; /* no bytes to hash: the header's contract */
    if (f == NULL) return cf__xxh3(key, len, 0);
    return cf__hash_keyed(&f->t.hkey, key, len);
}

/* The kind of f for a switch: plain filters are the common case, so the
 * compiler lays their case out first.  Grown, concurrent and in-place
 * filters have their own code (kind/), reached by a tail call. */
static inline cf__kind cf__kind_of(const cf_filter *f) {
    return (cf__kind)__builtin_expect(f->kind, CF__PLAIN);
}

/* Lookups are the hottest path: a plain filter's is tested first and
 * inlined, and the operation's switch goes out of line, where its compares
 * and calls cost a plain lookup no registers (inlined, they cost two
 * instructions a lookup: bench/callgrind.sh). */
__attribute__((noinline)) static bool cf__contains_kind(const cf_filter *f, uint64_t h) {
    CF__KIND_DISPATCH(f->kind, contains_hash, f, h);
}

static inline bool cf__contains(const cf_filter *f, uint64_t h) {
    if (__builtin_expect(f->kind == CF__PLAIN, 1)) return cf__plain_contains_hash(f, h);
    return cf__contains_kind(f, h);
}

/* (Written out rather than through cf__contains: gcc then allocates the
 * registers as it did before the kind existed, one instruction less.) */
bool cf_contains_hash(const cf_filter *f, uint64_t h) {
    if (f == NULL) return false;
    if (__builtin_expect(f->kind != CF__PLAIN, 0)) return cf__contains_kind(f, h);
    return cf__plain_contains_hash(f, h);
}

bool cf_contains(const cf_filter *f, const void *key, size_t len) {
    if (f == NULL || cf__bad_key(key, len)) return false;
    return cf__contains(f, cf__hash_keyed(&f->t.hkey, key, len));
}

/* Inserts as lookups and deletes: a plain filter's kernel inlined into
 * each entry point (cf_insert no longer calls cf_insert_hash), the switch
 * out of line. */
__attribute__((noinline)) static cf_status cf__insert_kind(cf_filter *f, uint64_t h) {
    CF__RETURN_IF(f->t.read_only, CF_E_READONLY);
    CF__KIND_DISPATCH(f->kind, insert_hash, f, h);
}

/* A mapped (read-only) filter is refused by cf__insert_kind. */
static inline cf_status cf__insert(cf_filter *f, uint64_t h) {
    if (__builtin_expect(f->kind == CF__PLAIN && !f->t.read_only, 1))
        return cf__plain_insert_hash(f, h);
    return cf__insert_kind(f, h);
}

cf_status cf_insert_hash(cf_filter *f, uint64_t h) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    return cf__insert(f, h);
}

cf_status cf_insert(cf_filter *f, const void *key, size_t len) {
    CF__RETURN_IF(f == NULL || cf__bad_key(key, len), CF_E_PARAM);
    return cf__insert(f, cf__hash_keyed(&f->t.hkey, key, len));
}

cf_status cf_insert_unique_hash(cf_filter *f, uint64_t h) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    CF__RETURN_IF(f->t.read_only, CF_E_READONLY);
    CF__KIND_DISPATCH(cf__kind_of(f), insert_unique_hash, f, h);
}

cf_status cf_insert_unique(cf_filter *f, const void *key, size_t len) {
    CF__RETURN_IF(f == NULL || cf__bad_key(key, len), CF_E_PARAM);
    return cf_insert_unique_hash(f, cf__hash_keyed(&f->t.hkey, key, len));
}

/* Deletes as lookups: a plain filter's kernel inlined, the switch out of
 * line (inlined, the other kinds' calls made every delete save and restore
 * six registers). */
__attribute__((noinline)) static cf_status cf__delete_kind(cf_filter *f, uint64_t h) {
    CF__KIND_DISPATCH(f->kind, delete_hash, f, h);
}

static inline cf_status cf__delete(cf_filter *f, uint64_t h) {
    CF__RETURN_IF(f->t.read_only, CF_E_READONLY);
    if (__builtin_expect(f->kind != CF__PLAIN, 0)) return cf__delete_kind(f, h);
    return cf__plain_delete_hash(f, h);
}

cf_status cf_delete_hash(cf_filter *f, uint64_t h) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    return cf__delete(f, h);
}

cf_status cf_delete(cf_filter *f, const void *key, size_t len) {
    CF__RETURN_IF(f == NULL || cf__bad_key(key, len), CF_E_PARAM);
    return cf__delete(f, cf__hash_keyed(&f->t.hkey, key, len));
}

size_t cf_count_hash(const cf_filter *f, uint64_t h) {
    if (f == NULL) return 0;
    CF__KIND_DISPATCH(cf__kind_of(f), count_hash, f, h);
}

size_t cf_count(const cf_filter *f, const void *key, size_t len) {
    if (f == NULL || cf__bad_key(key, len)) return 0;
    return cf_count_hash(f, cf__hash_keyed(&f->t.hkey, key, len));
}

/* 64-bit integer keys: the same as cf_X(f, bytes, 8) on the key's 8 bytes
 * in little-endian order, hashed without a detour through memory. */
cf_status cf_insert_u64(cf_filter *f, uint64_t key) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    return cf__insert(f, cf__hash_u64(&f->t.hkey, key));
}

cf_status cf_insert_unique_u64(cf_filter *f, uint64_t key) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    return cf_insert_unique_hash(f, cf__hash_u64(&f->t.hkey, key));
}

bool cf_contains_u64(const cf_filter *f, uint64_t key) {
    if (f == NULL) return false;
    return cf__contains(f, cf__hash_u64(&f->t.hkey, key));
}

cf_status cf_delete_u64(cf_filter *f, uint64_t key) {
    CF__RETURN_IF(f == NULL, CF_E_PARAM);
    return cf__delete(f, cf__hash_u64(&f->t.hkey, key));
}

size_t cf_count_u64(const cf_filter *f, uint64_t key) {
    if (f == NULL) return 0;
    return cf_count_hash(f, cf__hash_u64(&f->t.hkey, key));
}

cf_status cf_insert_batch(cf_filter *f, const uint64_t *hashes, size_t n, size_t *inserted) {
    if (inserted != NULL) *inserted = 0;
    CF__RETURN_IF(f == NULL || (hashes == NULL && n != 0), CF_E_PARAM);
    CF__RETURN_IF(f->t.read_only, CF_E_READONLY);
    CF__KIND_DISPATCH(cf__kind_of(f), insert_batch, f, hashes, n, inserted);
}

size_t cf_contains_batch(const cf_filter *f, const uint64_t *hashes, size_t n, bool *out) {
    if (f == NULL || hashes == NULL) return 0;
    CF__KIND_DISPATCH(cf__kind_of(f), contains_batch, f, hashes, n, out);
}
