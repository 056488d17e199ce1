/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * pending.h -- the deletes a grown filter owes: a ledger of key hashes
 * whose delete took effect but whose copy could not yet be told apart from
 * another item's (pending.c; the rule that fills and settles it is the
 * chain's, chain.c).
 *
 *   e[0]        e[1]        ...   e[count-1]        hashes strictly ascending
 *   (h, n)      (h, n)            (h, n)            n >= 1 deletes owed to h
 *
 * Sorted, not hashed: the order of a retry pass and the bytes of a file are
 * then the same for two filters that hold the same entries,
 * however each came by them (a replica loaded from a file and its master,
 * say), so the same operations keep giving the same bytes.  The ledger is
 * small (a delete is ambiguous for about target_fpp of the keys), so a
 * binary search per insert and a move of the tail per new entry cost
 * little.  The first CF__PENDING_SMALL entries live inside the structure,
 * so the few deletes a churning filter owes at any moment cost it no
 * memory it did not have (its memory stays flat: issue 48's bound), and a
 * larger array is freed when the last entry goes.
 */
#ifndef CF_PENDING_H
#define CF_PENDING_H

#include <stdbool.h>
#include <stdint.h>

#include "base/alloc.h"

typedef struct cf__pending_entry {
    uint64_t h; /* the deleted key's hash                   */
    uint64_t n; /* deletes of it not yet carried out, >= 1  */
} cf__pending_entry;

/* Entries held inside the structure before an array is allocated. */
#define CF__PENDING_SMALL 8u
/* Bits of the summary that lets most keys skip the binary search. */
#define CF__PENDING_SEEN_BITS 4096u

typedef struct cf__pending {
    cf__pending_entry *e; /* count entries, ascending h: small, an allocated
                             array, or NULL when cap is 0 */
    size_t count, cap;
    uint64_t total; /* the sum of the entries' n */
    /* A bit per hash of the entries (its top 12 bits), set when an entry is
     * added and cleared only when the ledger empties or is rebuilt
     * (cf__pending_reseen): a clear bit means "owes nothing" without a
     * search, so deletes and inserts of keys that owe nothing, nearly all
     * of them, pay one load (a binary search on every one cost chain
     * deletes a tenth of their time while the ledger held entries). */
    uint64_t seen[CF__PENDING_SEEN_BITS / 64];
    cf__pending_entry small[CF__PENDING_SMALL];
} cf__pending;

/* The index of the first entry with h >= key (count when none). */
size_t cf__pending_lower(const cf__pending *p, uint64_t key);

/* Whether key may have an entry: false when it has none for certain. */
static inline bool cf__pending_may_owe(const cf__pending *p, uint64_t key) {
    uint64_t bit = key >> 52;
    return p->count != 0 && (p->seen[bit / 64] >> (bit % 64) & 1);
}

/* The deletes owed to key (0 when it has no entry); callers on hot paths
 * ask cf__pending_may_owe first, inline. */
uint64_t cf__pending_owed(const cf__pending *p, uint64_t key);

/* Clears the summary's stale bits: only the entries' bits stay. */
void cf__pending_reseen(cf__pending *p);

/* One more delete owed to key; CF_E_NOMEM leaves the ledger as it was. */
cf_status cf__pending_add(cf__pending *p, const cf_allocator *a, uint64_t key);

/* Takes one delete owed to key back, if any: true when one was owed. */
bool cf__pending_take(cf__pending *p, const cf_allocator *a, uint64_t key);

/* Lowers entry i's n by `by` (<= its n), removing the entry at 0. */
void cf__pending_settle(cf__pending *p, const cf_allocator *a, size_t i, uint64_t by);

/* Empties the ledger and frees its array. */
void cf__pending_clear(cf__pending *p, const cf_allocator *a);

/* Room for count entries in the empty ledger p, inside it when they fit,
 * else allocated by a (NULL when that fails): a reader fills them in
 * order, then cf__pending_filled makes them the ledger's (cf__pending_clear
 * gives the room back if the reader refuses them). */
cf__pending_entry *cf__pending_room(cf__pending *p, const cf_allocator *a, uint64_t count);
void cf__pending_filled(cf__pending *p, size_t count);

/* dst's entries plus src's (n summed per hash), built aside: on
 * CF_E_NOMEM dst is unchanged; on CF_OK *out must replace dst with
 * cf__pending_replace. */
cf_status cf__pending_union(const cf__pending *dst, const cf__pending *src, const cf_allocator *a,
                            cf__pending *out);
void cf__pending_replace(cf__pending *dst, const cf_allocator *a, cf__pending *with);

/* Bytes the ledger allocated (its small entries are the structure's). */
static inline size_t cf__pending_memory(const cf__pending *p) {
    return p->e == p->small ? 0 : p->cap * sizeof(cf__pending_entry);
}

#endif /* CF_PENDING_H */
