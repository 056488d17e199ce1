/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * chain.c -- a CF_GROW filter: creating it, adding tables, and the
 * operations over all of its tables (design: chain.h).
 *
 *   insert:  a delete owed to the key? take it back.  Else the newest
 *            table; CF_E_FULL there ─► settle owed deletes, try again ─►
 *            add a table ─► insert there (unless the key's own copies
 *            fill its buckets there)
 *   lookup:  newest to oldest (the newest holds the most items)
 *   delete:  remove a copy when that cannot take another item's; else owe
 *            the delete (below)
 *
 * Deletes.  In one table, two items with the same fingerprint and buckets
 * are interchangeable: removing either copy leaves both findable.  Across
 * tables they are not: if x lives in table 0 and y in table 1, and x
 * collides with y in table 1, removing "x" from table 1 takes y's copy, a
 * false negative.  So a delete of h removes a copy only when
 *   (a) exactly one table matches h: h's own copy is there (h was inserted
 *       and is in some table), and any copy there is as good as its own; or
 *   (b) the deletes owed to h (below), this one included, are as many as
 *       the copies matching h in all tables: each of those copies then
 *       stands for a deleted h and none for a live item (every live item
 *       and every owed delete has a copy of its own), so any may go.
 * Otherwise the delete is owed: h goes into the chain's ledger of pending
 * deletes (kind/pending.h) and cf_delete returns CF_OK, for the item is
 * deleted: its copy stays a false positive until it can be removed, and
 *   - an insert of h takes the owed delete back instead of storing a
 *     second copy (the one left serves), so churn of the same keys never
 *     piles copies up (it used to add a table every 2b cycles of a key);
 *   - owed deletes are retried, by rules (a) and (b), all of them, before
 *     a table is added: the retry may free the room the insert lacked
 *     (never when no table can be added, so that a refusal changes no
 *     byte).  Only then: a retry probes every table again, and retrying
 *     one entry on one delete in eight cost chain deletes 1.3x their time
 *     in the A/B while the ledger held entries (docs/BENCHMARKS.md,
 *     "Churn"); and a moment that depends on nothing but the saved state
 *     (not the array's capacity, say) keeps a loaded copy acting as the
 *     original (`unsettled` only skips passes that would change nothing:
 *     with no delete since the last pass, no entry can have cleared).
 * The invariant all of this keeps: each live item and each owed delete is
 * matched by a copy of its own.  A delete of h owing more than the copies
 * matching h cannot be of a live item: CF_E_NOT_FOUND.
 */
#include "kind/chain.h"
#include "kind/plain.h"
#include "table/batch.h"
#include "table/table.h"

cf_status cf__chain_shell(const cf_allocator *a, unsigned flags, unsigned growth,
                          uint64_t max_bytes, double target_fpp, cf_filter **out) {
    cf_filter *f;
    /* The handle has no table of its own: every operation goes to tables. */
    CF__FORWARD_IF_ERROR(cf__handle_alloc(a, &f));
    f->kind = CF__CHAIN;
    f->t.flags = flags;
    f->state = cf__alloc(&f->t.alloc, sizeof(cf__chain));
    if (cf__chain_of(f) == NULL) {
        cf__free(&f->t.alloc, f);
        return CF_E_NOMEM;
    }
    memset(cf__chain_of(f), 0, sizeof(cf__chain));
    cf__chain_of(f)->growth = growth;
    cf__chain_of(f)->max_bytes = max_bytes;
    cf__chain_of(f)->target_fpp = target_fpp;
    *out = f;
    return CF_OK;
}

void cf__chain_attach(cf_filter *f, cf_filter *table) {
    cf__chain *c = cf__chain_of(f);
    c->tables[c->count++] = table;
    /* The handle hashes keys with the seed every table shares, and is as
     * writable as its tables. */
    cf__set_seed(&f->t, c->tables[0]->t.seed);
    f->t.read_only = table->t.read_only;
}

void cf__chain_drop_newest(cf_filter *f) {
    cf__chain *c = cf__chain_of(f);
    cf__handle_free_plain(c->tables[--c->count]);
    c->tables[c->count] = NULL;
    f->t.read_only = c->tables[c->count - 1]->t.read_only;
}

void cf__chain_free(cf_filter *f) {
    cf__pending_clear(&cf__chain_of(f)->pending, &f->t.alloc);
    for (unsigned k = 0; k < cf__chain_of(f)->count; k++)
        cf__handle_free_plain(cf__chain_of(f)->tables[k]);
    cf__free(&f->t.alloc, cf__chain_of(f));
    cf_allocator alloc = f->t.alloc;
    cf__free(&alloc, f);
}

/* A table's FPP at full load: what it takes from the budget. */
static double cf__table_fpp(const cf_filter *t) {
    return cf__fpp(t->t.fp_bits, t->t.bucket_size, 1.0);
}

double cf__chain_spent(const cf__chain *c) {
    double spent = 0.0;
    for (unsigned k = 0; k < c->count; k++) spent += cf__table_fpp(c->tables[k]);
    return spent;
}

size_t cf__chain_table_bytes(const cf__chain *c) {
    size_t n = 0;
    for (unsigned k = 0; k < c->count; k++) n += c->tables[k]->t.table_bytes;
    return n;
}

/* Table k > 0's configuration: growth times the newest table's buckets,
 * the widest of (what cf__resolve_config derives from the budget, one more
 * bit while the full-load FPP is above the budget).  CF_GROWTH_OPEN, or
 * why no table can be added (cf_stats.growth_limit): the table cap, no
 * budget for 32-bit fingerprints, an unaddressable size or max_bytes. */
static unsigned cf__next_config(const cf_filter *f, cf_config *cfg) {
    const cf__chain *c = cf__chain_of(f);
    const cf_filter *newest = c->tables[c->count - 1];
    CF__RETURN_IF(c->count >= cf__chain_table_cap(c), CF_GROWTH_LIMIT_TABLES);
    CF__RETURN_IF(newest->t.num_buckets > UINT64_MAX / c->growth, CF_GROWTH_LIMIT_SIZE);
    cf__config_defaults(cfg);
    cfg->num_buckets = newest->t.num_buckets * c->growth;
    cfg->bucket_size = newest->t.bucket_size;
    cfg->max_kicks = newest->t.max_kicks;
    cfg->seed = newest->t.seed;
    cfg->allocator = &f->t.alloc;
    double budget = (c->target_fpp - cf__chain_spent(c)) * CF__CHAIN_SHARE;
    CF__RETURN_IF(!(budget > 0.0), CF_GROWTH_LIMIT_FPP);
    cfg->target_fpp = budget;
    unsigned fbits, b, kicks;
    uint64_t nb;
    /* The shape is the newest table's and the budget in (0, 1): what can
     * fail is the width the budget needs (past 32 bits) or the size. */
    cf_status s = cf__resolve_config(cfg, &fbits, &b, &nb, &kicks);
    CF__RETURN_IF(s == CF_E_TOO_LARGE, CF_GROWTH_LIMIT_SIZE);
    CF__RETURN_IF(s != CF_OK, CF_GROWTH_LIMIT_FPP);
    while (fbits < CF_MAX_FINGERPRINT_BITS && cf__fpp(fbits, b, 1.0) > budget) fbits++;
    CF__RETURN_IF(cf__fpp(fbits, b, 1.0) > budget, CF_GROWTH_LIMIT_FPP);
    cfg->fingerprint_bits = fbits;
    if ((f->t.flags & CF_SEMI_SORT) && cf__semi_sort_fits(b, fbits)) cfg->flags = CF_SEMI_SORT;
    size_t bytes;
    CF__RETURN_IF(cf__table_bytes(nb, b, fbits, cfg->flags, &bytes) != CF_OK, CF_GROWTH_LIMIT_SIZE);
    CF__RETURN_IF(c->max_bytes != 0 && bytes > c->max_bytes - cf__chain_table_bytes(c),
                  CF_GROWTH_LIMIT_BYTES);
    return CF_GROWTH_OPEN;
}

cf_status cf__chain_new(const cf_config *cfg, cf_filter **out) {
    CF__RETURN_IF((cfg->flags & ~(CF_GROW | CF_SEMI_SORT)) != 0, CF_E_PARAM);
    unsigned growth = cfg->growth ? cfg->growth : CF_DEFAULT_GROWTH;
    CF__RETURN_IF(growth > CF_MAX_GROWTH, CF_E_PARAM);
    double target = cfg->target_fpp;
    CF__RETURN_IF(!(target > 0.0 && target < 1.0), CF_E_PARAM);

    cf_config first = *cfg;
    first.flags &= ~CF_GROW;
    first.target_fpp = target * CF__CHAIN_SHARE;
    /* The first table's shape is checked before anything is allocated: an
     * explicit width must leave budget to the tables after it, and the
     * table must fit max_bytes. */
    unsigned fbits, b, kicks;
    uint64_t nb;
    size_t bytes;
    CF__FORWARD_IF_ERROR(cf__resolve_config(&first, &fbits, &b, &nb, &kicks));
    CF__FORWARD_IF_ERROR(cf__table_bytes(nb, b, fbits, first.flags, &bytes));
    CF__RETURN_IF(!(cf__fpp(fbits, b, 1.0) < target), CF_E_PARAM);
    CF__RETURN_IF(cfg->max_bytes != 0 && bytes > cfg->max_bytes, CF_E_PARAM);
    cf_filter *f, *t;
    CF__FORWARD_IF_ERROR(
        cf__chain_shell(cfg->allocator, cfg->flags, growth, cfg->max_bytes, target, &f));
    cf_status s = cf__handle_new_plain(&first, &t);
    if (s == CF_OK) cf__chain_attach(f, t);
    if (s != CF_OK) {
        cf__chain_free(f);
        return s;
    }
    *out = f;
    return CF_OK;
}

/* Adds a table; CF_E_FULL or CF_E_NOMEM leave the filter as it was. */
cf_status cf__chain_add_table(cf_filter *f, cf_filter **added) {
    cf_config cfg;
    CF__RETURN_IF(cf__next_config(f, &cfg) != CF_GROWTH_OPEN, CF_E_FULL);
    CF__FORWARD_IF_ERROR(cf__handle_new_plain(&cfg, added));
    cf__chain_attach(f, *added);
    return CF_OK;
}

/* True when every slot of h's buckets in t holds h's fingerprint: the key
 * is stored as often as one table can hold it (2b copies, or b when its
 * buckets coincide), and no table of any size would take one more. */
static bool cf__full_of_copies(const cf_filter *t, uint64_t h) {
    cf__slots p = cf__locate(&t->t, h);
    size_t slots = (p.i2 == p.i1 ? 1u : 2u) * (size_t)t->t.bucket_size;
    return cf__table_count(&t->t, h) >= slots;
}

/* The end of an insert of h that the newest table refused (its refusals
 * were `failed` before): a new table takes h, or the refusal stands. */
static cf_status cf__chain_overflow(cf_filter *f, cf_filter *newest, uint64_t h, uint64_t failed) {
    cf_filter *added;
    cf_config next;
    /* A table is added for want of room, never for one key's copies: each
     * table would take 2b more, and repeating a key would then make tables
     * growth times larger at every 2b copies. */
    bool copies = cf__full_of_copies(newest, h);
    /* Before a table is added, owed deletes carried out may leave the room
     * it would give.  Only then: where no table can be added the refusal
     * leaves every byte as it was (guarantee 2). */
    if (!copies && cf__chain_of(f)->unsettled && cf__next_config(f, &next) == CF_GROWTH_OPEN &&
        cf__chain_settle_all(f) && cf__table_insert(&newest->t, h) == CF_OK) {
        newest->t.failed_inserts = failed;
        return CF_OK;
    }
    cf_status s = copies ? CF_E_FULL : cf__chain_add_table(f, &added);
    if (s == CF_OK) return cf__table_insert(&added->t, h); /* an empty table has room */
    /* The table's refusals count the ones that added a table; this one did
     * not, and a failed insert changes nothing. */
    newest->t.failed_inserts = failed;
    f->t.failed_inserts += s == CF_E_FULL;
    return s;
}

/* An insert of a key whose delete is owed takes the delete back: the copy
 * the delete left is the key's again (top comment). */
static inline bool cf__chain_take_owed(cf_filter *f, uint64_t h) {
    cf__chain *c = cf__chain_of(f);
    return cf__pending_may_owe(&c->pending, h) && cf__pending_take(&c->pending, &f->t.alloc, h);
}

cf_status cf__chain_insert_hash(cf_filter *f, uint64_t h) {
    cf__chain *c = cf__chain_of(f);
    if (cf__chain_take_owed(f, h)) return CF_OK;
    cf_filter *newest = c->tables[c->count - 1];
    uint64_t failed = newest->t.failed_inserts;
    cf_status s = cf__table_insert(&newest->t, h);
    return s == CF_E_FULL ? cf__chain_overflow(f, newest, h, failed) : s;
}

/* Newest to oldest: the newest table holds the most items.  The tables are
 * probed one after another; while one is read, branch prediction already
 * runs the next probes.  Locating every table and prefetching its buckets
 * first was measured (docs/BENCHMARKS.md, "Growth"): misses 1.3-1.6x faster
 * on a 37 MB filter but hits 1.2-1.5x slower there, and both slower or equal
 * on 9 MB and 2 MB filters. */
bool cf__chain_contains_hash(const cf_filter *f, uint64_t h) {
    const cf__chain *c = cf__chain_of(f);
    for (unsigned k = c->count; k-- > 0;) {
        const cf_filter *t = c->tables[k];
        if (cf__contains_at(&t->t, cf__locate(&t->t, h))) return true;
    }
    return false;
}

/* A key that owes a delete is still found (its copy stays until the delete
 * is carried out), so it "exists"; taking the delete back keeps it found,
 * whether it was deleted (now it is in again, as the caller is told) or
 * also held (then one copy too many stays, a false positive at worst). */
cf_status cf__chain_insert_unique_hash(cf_filter *f, uint64_t h) {
    if (cf__chain_take_owed(f, h)) return CF_E_EXISTS;
    CF__RETURN_IF(cf__chain_contains_hash(f, h), CF_E_EXISTS);
    return cf__chain_insert_hash(f, h);
}

/* Where h matches: the tables holding a copy, the copies in all of them,
 * and the newest table holding one.  The probe stops once two tables hold
 * more copies than the `owed` deletes of h: neither rule can then remove
 * one (top comment), whatever the older tables hold, and most deletes and
 * retries that owe end there, as the delete of old ended at its second
 * table. */
typedef struct cf__chain_match {
    unsigned tables;
    size_t copies;
    cf_filter *newest;
} cf__chain_match;

static cf__chain_match cf__chain_match_of(const cf__chain *c, uint64_t h, uint64_t owed) {
    cf__chain_match m = {0, 0, NULL};
    for (unsigned k = c->count; k-- > 0;) {
        size_t n = cf__table_count(&c->tables[k]->t, h);
        if (n == 0) continue;
        m.tables++;
        m.copies += n;
        if (m.newest == NULL) m.newest = c->tables[k];
        if (m.tables > 1 && m.copies > owed) break;
    }
    return m;
}

/* Carries out ledger entry i's deletes while rules (a) or (b) of the top
 * comment allow; none of its copies left means the deletes were of keys
 * never inserted, and the entry goes.  True when the entry is gone. */
static bool cf__chain_settle(cf_filter *f, size_t i) {
    cf__chain *c = cf__chain_of(f);
    uint64_t h = c->pending.e[i].h, done = 0, owed = c->pending.e[i].n;
    while (done < owed) {
        cf__chain_match m = cf__chain_match_of(c, h, owed - done);
        if (m.tables == 0) {
            done = owed;
            break;
        }
        if (m.tables > 1 && owed - done < m.copies) break;
        cf__table_delete(&m.newest->t, h); /* it matches: CF_OK */
        done++;
    }
    if (done > 0) cf__pending_settle(&c->pending, &f->t.alloc, i, done);
    return done == owed;
}

bool cf__chain_settle_all(cf_filter *f) {
    cf__chain *c = cf__chain_of(f);
    uint64_t before = c->pending.total;
    for (size_t i = 0; i < c->pending.count;)
        if (!cf__chain_settle(f, i)) i++;
    cf__pending_reseen(&c->pending);
    c->unsettled = false;
    return c->pending.total != before;
}

/* Owes a delete of h (rule (b) may carry it out at once). */
static cf_status cf__chain_owe(cf_filter *f, uint64_t h) {
    cf__chain *c = cf__chain_of(f);
    CF__FORWARD_IF_ERROR(cf__pending_add(&c->pending, &f->t.alloc, h));
    cf__chain_settle(f, cf__pending_lower(&c->pending, h));
    return CF_OK;
}

cf_status cf__chain_delete_hash(cf_filter *f, uint64_t h) {
    cf__chain *c = cf__chain_of(f);
    uint64_t owed = cf__pending_may_owe(&c->pending, h) ? cf__pending_owed(&c->pending, h) : 0;
    cf__chain_match m = cf__chain_match_of(c, h, owed + 1);
    /* Every owed delete of h has a copy of its own: one more needs one more. */
    CF__RETURN_IF(m.copies <= owed, CF_E_NOT_FOUND);
    c->unsettled = true;
    if (m.tables > 1) return cf__chain_owe(f, h);
    return cf__table_delete(&m.newest->t, h);
}

size_t cf__chain_count_hash(const cf_filter *f, uint64_t h) {
    const cf__chain *c = cf__chain_of(f);
    size_t n = 0;
    for (unsigned k = 0; k < c->count; k++) n += cf__table_count(&c->tables[k]->t, h);
    return n;
}

/* Keys per round of the batch lookup: each table's own batch code runs over
 * a round's keys not found yet, newest table first (as a single lookup
 * stops at the first table that holds its key), on the stack (lookups
 * allocate nothing). */
#define CF__CHAIN_ROUND 256

size_t cf__chain_contains_batch(const cf_filter *f, const uint64_t *hashes, size_t n, bool *out) {
    const cf__chain *c = cf__chain_of(f);
    uint64_t left[CF__CHAIN_ROUND]; /* the hashes not found yet */
    uint16_t at[CF__CHAIN_ROUND];   /* their places in the round */
    bool hit[CF__CHAIN_ROUND], any[CF__CHAIN_ROUND];
    size_t found = 0;
    for (size_t base = 0; base < n; base += CF__CHAIN_ROUND) {
        size_t m = n - base < CF__CHAIN_ROUND ? n - base : CF__CHAIN_ROUND, pending = m;
        memset(any, 0, m);
        for (size_t j = 0; j < m; j++) {
            left[j] = hashes[base + j];
            at[j] = (uint16_t)j;
        }
        for (unsigned k = c->count; k-- > 0 && pending > 0;) {
            if (cf__table_contains_batch(&c->tables[k]->t, left, pending, hit) == 0) continue;
            size_t still = 0;
            for (size_t j = 0; j < pending; j++) {
                any[at[j]] |= hit[j];
                left[still] = left[j];
                at[still] = at[j];
                still += !hit[j];
            }
            pending = still;
        }
        for (size_t j = 0; j < m; j++) found += any[j];
        if (out != NULL) memcpy(out + base, any, m);
    }
    return found;
}

/* The keys from hashes[0] on that owe no delete, up to the first that does:
 * those go to the tables as a run (settling only removes owed deletes, and
 * inserts add none, so a key that owes none now owes none while the run is
 * inserted). */
static size_t cf__chain_run(const cf__chain *c, const uint64_t *hashes, size_t n) {
    if (c->pending.count == 0) return n;
    size_t r = 0;
    while (r < n && (!cf__pending_may_owe(&c->pending, hashes[r]) ||
                     cf__pending_owed(&c->pending, hashes[r]) == 0))
        r++;
    return r;
}

/* Runs of keys go to the newest table's batch insert (its read-ahead), and
 * the key it has no room for to cf__chain_overflow, as in a single insert;
 * a key whose delete is owed takes it back, as in a single insert: the
 * same inserts in the same order, so the same tables and counts.  (A
 * refusal leaves a table unchanged, so the refused key is not tried
 * again.) */
cf_status cf__chain_insert_batch(cf_filter *f, const uint64_t *hashes, size_t n, size_t *inserted) {
    size_t j = 0;
    while (j < n) {
        cf__chain *c = cf__chain_of(f);
        size_t run = cf__chain_run(c, hashes + j, n - j);
        if (run == 0) {
            cf__chain_take_owed(f, hashes[j++]);
            if (inserted != NULL) *inserted = j;
            continue;
        }
        cf_filter *newest = c->tables[c->count - 1];
        uint64_t failed = newest->t.failed_inserts;
        size_t done = 0;
        cf_status s = cf__table_insert_batch(&newest->t, hashes + j, run, &done);
        j += done;
        if (inserted != NULL && done > 0) *inserted = j;
        if (s == CF_OK) continue;
        if (s != CF_E_FULL) return s;
        CF__FORWARD_IF_ERROR(cf__chain_overflow(f, newest, hashes[j], failed));
        j++;
        if (inserted != NULL) *inserted = j;
    }
    return CF_OK;
}

size_t cf__chain_memory(const cf_filter *f) {
    size_t n = sizeof *f + sizeof(cf__chain) + cf__pending_memory(&cf__chain_of(f)->pending);
    for (unsigned k = 0; k < cf__chain_of(f)->count; k++)
        n += cf__plain_memory(cf__chain_of(f)->tables[k]);
    return n;
}

cf_status cf__chain_clear(cf_filter *f) {
    cf__pending_clear(&cf__chain_of(f)->pending, &f->t.alloc);
    cf__chain_of(f)->unsettled = false;
    for (unsigned k = 0; k < cf__chain_of(f)->count; k++)
        cf__table_clear(&cf__chain_of(f)->tables[k]->t);
    return CF_OK;
}

void cf__chain_stats(const cf_filter *f, cf_stats *out) {
    const cf__chain *c = cf__chain_of(f);
    const cf_filter *newest = c->tables[c->count - 1];
    cf__table_stats(&newest->t, out);
    double table_bits = 0.0;
    out->items = out->num_buckets = out->slots = out->table_bytes = out->total_kicks = 0;
    out->expected_fpp = 0.0;
    for (unsigned k = 0; k < c->count; k++) {
        cf_stats t;
        cf__table_stats(&c->tables[k]->t, &t);
        out->items += t.items;
        out->num_buckets += t.num_buckets;
        out->slots += t.slots;
        out->table_bytes += t.table_bytes;
        out->total_kicks += t.total_kicks;
        out->expected_fpp += t.expected_fpp;
        table_bits += (double)t.num_buckets * c->tables[k]->t.bucket_bits;
    }
    out->flags = f->t.flags;
    out->load_factor = (double)out->items / (double)out->slots;
    out->bits_per_item = out->items ? table_bits / (double)out->items : 0.0;
    out->memory_bytes = cf__chain_memory(f);
    out->failed_inserts = f->t.failed_inserts;
    out->tables = c->count;
    out->growth = c->growth;
    out->max_bytes = c->max_bytes;
    out->fpp_bound = cf__chain_spent(c);
    out->target_fpp = c->target_fpp;
    cf_config next;
    out->growth_limit = cf__next_config(f, &next);
}

/* The bound a table made growable gets when the caller names none: the one
 * cf_new gives a CF_GROW filter whose first table this is (its full-load
 * FPP is the first share of the bound); at least CF_MAX_TABLES + 4 full
 * tables of the widest fingerprints, so that a table near 32 bits still
 * leaves budget for more (each new table takes a quarter of what is left,
 * so this buys some tables, not the cap: 14-16 from 28-32 bits); at most
 * halfway from the table's FPP to 1. */
static double cf__chain_default_target(const cf_filter *t) {
    double first = cf__table_fpp(t);
    double want = first / CF__CHAIN_SHARE;
    double widest = (CF_MAX_TABLES + 4) * cf__fpp(CF_MAX_FINGERPRINT_BITS, t->t.bucket_size, 1.0);
    if (want < widest) want = widest;
    double half_rest = (1 + first) / 2;
    return want < half_rest ? want : half_rest;
}

cf_status cf__chain_wrap(cf_filter **fp, const cf_config *cfg) {
    cf_filter *t = *fp;
    unsigned growth = cfg->growth ? cfg->growth : CF_DEFAULT_GROWTH;
    CF__RETURN_IF(growth > CF_MAX_GROWTH, CF_E_PARAM);
    double target = cfg->target_fpp == 0 ? cf__chain_default_target(t) : cfg->target_fpp;
    CF__RETURN_IF(!(target > cf__table_fpp(t) && target < 1.0), CF_E_PARAM);
    CF__RETURN_IF(cfg->max_bytes != 0 && t->t.table_bytes > cfg->max_bytes, CF_E_PARAM);
    cf_filter *f;
    CF__FORWARD_IF_ERROR(cf__chain_shell(&t->t.alloc, CF_GROW | (t->t.flags & CF_SEMI_SORT), growth,
                                         cfg->max_bytes, target, &f));
    cf__chain_attach(f, t);
    *fp = f;
    return CF_OK;
}

/* Grown filters: table k of src goes into table k of dst, which gets the
 * tables it lacks the way an insert adds them.  Filters grown from the same
 * first table with the same growth and target FPP have the same table k
 * for every k (each table's width follows from the earlier ones), so every
 * pair has one shape; anything else is CF_E_PARAM.  All or nothing: every
 * table of dst is saved first, and added tables are dropped on failure. */
cf_status cf__chain_merge(cf_filter *dst, const cf_filter *src) {
    const cf__chain *dc = cf__chain_of(dst), *sc = cf__chain_of(src);
    CF__RETURN_IF(dc->growth != sc->growth || dc->target_fpp != sc->target_fpp, CF_E_PARAM);
    for (unsigned k = 0; k < dc->count && k < sc->count; k++)
        CF__RETURN_IF(!cf__table_same_shape(&dc->tables[k]->t, &sc->tables[k]->t), CF_E_PARAM);
    /* Each side's owed deletes keep their copies in the union: dst owes
     * both (built aside, so that a failure leaves dst's ledger as it was). */
    cf__pending owed;
    CF__FORWARD_IF_ERROR(cf__pending_union(&dc->pending, &sc->pending, &dst->t.alloc, &owed));
    unsigned had = dc->count;
    cf__table_saved saved[CF_MAX_TABLES];
    unsigned n_saved = 0;
    cf_status st = CF_OK;
    for (; n_saved < had && st == CF_OK; n_saved++)
        st = cf__table_save(&dc->tables[n_saved]->t, &saved[n_saved]);
    if (st != CF_OK) n_saved--; /* the one that failed holds nothing */
    uint64_t failed = dst->t.failed_inserts;
    for (unsigned k = 0; k < sc->count && st == CF_OK; k++) {
        cf_filter *t = k < dc->count ? dc->tables[k] : NULL;
        if (t == NULL && (st = cf__chain_add_table(dst, &t)) != CF_OK) break;
        if (!cf__table_same_shape(&t->t, &sc->tables[k]->t))
            st = CF_E_PARAM;
        else
            st = cf__table_merge_all(&t->t, &sc->tables[k]->t);
    }
    if (st != CF_OK) {
        while (dc->count > had) cf__chain_drop_newest(dst);
        for (unsigned k = 0; k < n_saved; k++) cf__table_restore(&dc->tables[k]->t, &saved[k]);
        dst->t.failed_inserts = failed;
    }
    for (unsigned k = 0; k < n_saved; k++) cf__free(&dc->tables[k]->t.alloc, saved[k].table);
    if (st != CF_OK) {
        cf__pending_clear(&owed, &dst->t.alloc);
        return st;
    }
    cf__pending_replace(&cf__chain_of(dst)->pending, &dst->t.alloc, &owed);
    cf__chain_of(dst)->unsettled = true;
    return CF_OK;
}
