/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_chain.c -- the filter behind one key, and its dump stream
 * (layout in cf_redis_dump.h; a restore in progress is cf_redis_load.c's
 * loader, which the key holds until the filter is complete).  A thin layer
 * over the library's CF_GROW: uses only the public API.
 *
 * Insert, in full:
 *   1. NX: if the filter may hold the item, answer "exists".
 *   2. If the key is marked exhausted (an earlier insert found it full at
 *      its sub-filter cap, and no delete has freed a slot since), refuse at
 *      once unless a table can be added now (limits raised by a restart):
 *      a full key costs O(1) per refused item.  A key with EXPANSION 0
 *      cannot grow: marked, it still stores an item that finds a free slot
 *      in its own buckets (a search of one bucket, O(1)), as RedisBloom
 *      stores items that fit; only what does not fit is refused.
 *   3. cf_insert: the library tries the newest table and adds a table when
 *      it has no room (within MAX_FILTERS and MAX_KEY_BYTES, set on the
 *      filter with cf_grow_set_limits).  When the item's copies fill its
 *      buckets in every table, the search is skipped (it cannot succeed).
 *   4. The library adds no table for one item's copies; RedisBloom does, so
 *      with EXPANSION > 0 the module adds one (cf_grow_add_table) and
 *      inserts there.  MAX_FILTERS and MAX_KEY_BYTES bound what duplicates
 *      can cost.
 *   5. A refusal for want of room marks the key exhausted.  A refusal next
 *      to copies of the item in a lightly loaded table says little about the
 *      rest of it, and marks nothing.
 * The mark is part of the persisted state, so primaries, replicas and
 * reloaded servers take the same branches.
 */
#include "key/cf_redis_chain.h"

#include <string.h>

/* The seed of every key this module creates: replicas must build the same
 * tables.  A key loaded from a dump keeps the seed its filter carries
 * (`cuckoo export` of a file made with another seed). */
#define CFR_SEED 0x6366726564697331ull /* "cfredis1" */

_Static_assert(CFR_IMAGE_OVERHEAD_V2 >= 64u + 135u * CF_MAX_TABLES,
               "the loader's slack covers a chain image of CF_MAX_TABLES tables");

/* ---- key lifetime ---- */

/* Generations of new keys start from a module-wide counter, so a key
 * deleted and created again mid-dump does not repeat its predecessor's. */
static uint32_t cfr_next_gen = 0;

static cfr_chain *chain_alloc(void) {
    cfr_chain *c = cfr_alloc(sizeof *c);
    if (!c) return NULL;
    memset(c, 0, sizeof *c);
    c->gen = cfr_next_gen;
    cfr_next_gen += 7; /* odd: consecutive keys get distinct generations mod 2^12 */
    return c;
}

void cfr_chain_free(cfr_chain *c) {
    if (!c) return;
    cf_free(c->f);
    cfr_loader_free(c->load);
    cfr_free(c);
}

/* Refreshes what the key keeps of f's shape after f changes shape. */
static void chain_shape(cfr_chain *c) {
    cf_stats st;
    cf_get_stats(c->f, &st);
    c->tables = st.tables;
    c->bucket_size = st.bucket_size;
    c->inplace = st.growth_mode == CF_GROWTH_INPLACE;
    c->expiring = st.expire_after > 0;
}

void cfr_chain_touch(cfr_chain *c) {
    c->gen++;
}

size_t cfr_chain_memory(const cfr_chain *c) {
    return sizeof *c + cf_memory_usage(c->f) + (c->load ? cfr_loader_memory(c->load) : 0);
}

/* Turns the key's single table into a growing filter with the key's
 * expansion and the module's limits.  On failure the key is unchanged. */
static bool make_growable(cfr_chain *c, const cfr_limits *lim) {
    cf_config g;
    cf_config_init(&g);
    g.growth = c->expansion;
    g.target_fpp = 0; /* the library's choice: what CF_GROW gives this first table */
    g.max_bytes = lim->max_key_bytes;
    if (cf_make_growable(&c->f, &g) != CF_OK) return false;
    return cf_grow_set_limits(c->f, lim->max_filters, lim->max_key_bytes) == CF_OK;
}

/* The module's limits on a growing filter: MAX_FILTERS, and MAX_KEY_BYTES
 * unless the filter carries a lower limit of its own. */
static bool apply_limits(cf_filter *f, const cfr_limits *lim) {
    cf_stats st;
    cf_get_stats(f, &st);
    if (!(st.flags & CF_GROW)) return true;
    uint64_t bytes =
        st.max_bytes && st.max_bytes < lim->max_key_bytes ? st.max_bytes : lim->max_key_bytes;
    return cf_grow_set_limits(f, lim->max_filters, bytes) == CF_OK;
}

cfr_result cfr_chain_new(const cfr_params *p, const cfr_limits *lim, cfr_chain **out,
                         const char **err) {
    *out = NULL;
    cfr_chain *c = chain_alloc();
    if (!c) {
        *err = "ERR Insufficient memory";
        return CFR_NOMEM;
    }
    c->expansion = p->inplace ? 2 : p->expansion;
    c->capacity = p->capacity;
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = p->capacity;
    cfg.bucket_size = p->bucket_size;
    cfg.fingerprint_bits = p->fingerprint_bits;
    cfg.max_kicks = p->max_kicks;
    cfg.seed = CFR_SEED;
    cfg.allocator = &cfr_allocator;
    cfg.expire_after = p->expire_after;
    bool ok;
    if (p->inplace) {
        /* Growing from the start, within MAX_KEY_BYTES (saved in the image:
         * the library checks it before allocating, at creation and at each
         * doubling).  The caller checked target_fpp and the width
         * (cfr_inplace_check), so a refusal is the limit's. */
        cfg.flags = CF_GROW;
        cfg.growth_mode = CF_GROWTH_INPLACE;
        cfg.target_fpp = p->target_fpp;
        cfg.max_bytes = lim->max_key_bytes;
        ok = cf_new(&cfg, &c->f) == CF_OK;
    } else {
        /* The library sizes the first table; the limit is checked before
         * allocating.  A key is one table until it must grow
         * (grow_and_insert): it dumps as a version-1 image, byte for byte
         * what `cuckoo` writes. */
        cf_shape shape;
        ok = cf_config_resolve(&cfg, &shape) == CF_OK && shape.table_bytes <= lim->max_key_bytes &&
             cf_new(&cfg, &c->f) == CF_OK;
    }
    if (!ok) {
        *err = "ERR Insufficient memory: the filter would exceed the module's per-key limit "
               "(MAX_KEY_BYTES) or the server's memory";
        cfr_chain_free(c);
        return CFR_NOMEM;
    }
    chain_shape(c);
    *out = c;
    return CFR_OK;
}

const cf_option_names cfr_option_names = {{
    [CF_OPT_CAPACITY] = "capacity ",
    [CF_OPT_TARGET_FPP] = "ERROR_RATE ",
    [CF_OPT_FINGERPRINT_BITS] = "FINGERPRINT ",
    [CF_OPT_BUCKET_SIZE] = "BUCKETSIZE ",
    [CF_OPT_MAX_KICKS] = "MAXITERATIONS ",
    [CF_OPT_GROW] = "EXPANSION",
    [CF_OPT_GROW_INPLACE] = "GROWTH INPLACE",
    [CF_OPT_EXPIRE_AFTER] = "EXPIRE (in milliseconds) ",
}};

bool cfr_inplace_check(const cfr_params *p, char *why, size_t cap) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 1; /* the smallest table: only the FPP and width matter */
    cfg.bucket_size = 4;
    cfg.fingerprint_bits = p->fingerprint_bits;
    cfg.target_fpp = p->target_fpp;
    cfg.flags = CF_GROW;
    cfg.growth_mode = CF_GROWTH_INPLACE;
    return cf_config_explain(&cfg, &cfr_option_names, why, cap, NULL) == CF_OK;
}

/* ---- operations ---- */

/* An insert into an in-place key.  The library doubles the table when the
 * item's two buckets are full and no eviction path frees a slot, up to
 * MAX_KEY_BYTES and the key's FPP bound.  At a limit the key is marked
 * exhausted: later inserts search one bucket (max_kicks 1) and try the
 * doubling once more (O(1) either way: the limit is checked before any
 * allocation), until a delete clears the mark.  A refusal for one item's
 * copies (four or more fill its buckets; the library never splits them
 * over a doubling) or for a knot the doubled table could not untie (tiny
 * tables) marks nothing. */
static cfr_result inplace_insert(cfr_chain *c, uint64_t h) {
    /* The table's size tells a doubling (cf_memory_usage is O(1); the
     * statistics are gathered only on the rare paths). */
    size_t before = cf_memory_usage(c->f);
    cf_status s;
    if (c->flags & CFR_CHAIN_EXHAUSTED) {
        cf_stats st;
        cf_get_stats(c->f, &st);
        s = cf_set_max_kicks(c->f, 1);
        if (s == CF_OK) s = cf_insert_hash(c->f, h);
        cf_set_max_kicks(c->f, st.max_kicks);
    } else {
        s = cf_insert_hash(c->f, h);
    }
    bool doubled = cf_memory_usage(c->f) != before;
    if (doubled) c->flags &= ~(uint32_t)CFR_CHAIN_EXHAUSTED; /* the limit no longer holds */
    if (s == CF_OK) return CFR_OK;
    if (s != CF_E_FULL) return CFR_NOMEM; /* the doubled table: nothing changed */
    if (doubled || cf_count_hash(c->f, h) >= 4) return CFR_FULL;
    c->flags |= CFR_CHAIN_EXHAUSTED;
    cf_stats st;
    cf_get_stats(c->f, &st);
    return st.growth_limit == CF_GROWTH_LIMIT_BYTES ? CFR_NOMEM : CFR_MAX_FILTERS;
}

/* Whether a refused insert of h shows the filter full.  A refusal of an
 * item with no copy in its buckets does.  One with copies (or colliding
 * fingerprints) there may be about those two buckets only, so it counts
 * only once the newest table is at least half as loaded as it is sized
 * for. */
static bool really_full(const cfr_chain *c, uint64_t h) {
    if (cf_count_hash(c->f, h) == 0) return true;
    cf_stats st;
    cf_table_stats(c->f, c->tables - 1, &st);
    return st.load_factor >= 0.5 * cf_default_max_load(st.bucket_size);
}

/* Adds a table and puts h there (RedisBloom grows for copies too); the
 * key's first growth makes its table a growing filter. */
static cfr_result grow_and_insert(cfr_chain *c, const cfr_limits *lim, uint64_t h) {
    if (c->expansion == 0) return CFR_FULL;
    /* The cap is known without asking the library (cheap for a full key). */
    if (c->tables >= lim->max_filters) return CFR_MAX_FILTERS;
    cf_stats st;
    cf_get_stats(c->f, &st);
    if (!(st.flags & CF_GROW) && !make_growable(c, lim)) return CFR_NOMEM;
    cf_status s = cf_grow_add_table(c->f);
    if (s != CF_OK) return CFR_NOMEM; /* MAX_KEY_BYTES, 32-bit widths, allocation */
    chain_shape(c);
    /* The new table is empty: the insert lands there. */
    return cf_insert_hash(c->f, h) == CF_OK ? CFR_OK : CFR_FULL;
}

/* Takes note of a table the library added in an insert that succeeded. */
static void note_added_table(cfr_chain *c) {
    cf_stats added;
    if (cf_table_stats(c->f, c->tables, &added) == CF_OK) chain_shape(c);
}

/* The end of a chain key's insert of h that the library refused with s
 * (the filter as it was before it). */
static cfr_result refused(cfr_chain *c, const cfr_limits *lim, uint64_t h, cf_status s) {
    if (s != CF_E_FULL) return CFR_NOMEM;
    chain_shape(c); /* the library may have added a table */
    bool copies_fill = cf_count_hash(c->f, h) >= 2 * (size_t)c->bucket_size * c->tables;
    bool full = !copies_fill && really_full(c, h);
    /* Without room a growing filter has tried to grow already (a single
     * table becomes one now); with copies in the way the library would
     * not, and RedisBloom would. */
    cfr_result r = grow_and_insert(c, lim, h);
    if (r != CFR_OK && full) c->flags |= CFR_CHAIN_EXHAUSTED;
    return r;
}

/* cfr_chain_insert of an item by its hash. */
static cfr_result insert_hash(cfr_chain *c, const cfr_limits *lim, uint64_t h, bool nx) {
    if (nx && cf_contains_hash(c->f, h)) {
        /* An expiring key's NX insert of an item it holds refreshes it (it
         * lives a window from now): what re-adding means to a user of
         * expiry.  A write, so the generation changes. */
        if (!c->expiring) return CFR_EXISTS;
        cfr_chain_touch(c);
        return cf_insert_unique_hash(c->f, h) == CF_E_EXISTS ? CFR_EXISTS : CFR_NOMEM;
    }
    cfr_chain_touch(c);
    if (c->inplace) return inplace_insert(c, h);
    if ((c->flags & CFR_CHAIN_EXHAUSTED) && c->expansion == 0) {
        cf_stats st;
        cf_get_stats(c->f, &st);
        cf_status s = cf_set_max_kicks(c->f, 1);
        if (s == CF_OK) s = cf_insert_hash(c->f, h);
        cf_set_max_kicks(c->f, st.max_kicks);
        return s == CF_OK ? CFR_OK : s == CF_E_FULL ? CFR_FULL : CFR_NOMEM;
    }
    if (c->flags & CFR_CHAIN_EXHAUSTED) {
        /* The limits may have been raised since (a restart with other
         * module arguments): growing is the only way in, and cheap to try. */
        cfr_result r = grow_and_insert(c, lim, h);
        if (r == CFR_OK) c->flags &= ~(uint32_t)CFR_CHAIN_EXHAUSTED;
        return r;
    }
    /* The insert first: the common case needs nothing else.  (Counting
     * copies before every insert probed both buckets of every table: most
     * of a grown key's insert cost.)  A refusal is then told apart: 2b
     * copies in every table (no search could make room) or want of room. */
    cf_status s = cf_insert_hash(c->f, h);
    if (s == CF_OK) {
        note_added_table(c);
        return CFR_OK;
    }
    return refused(c, lim, h, s);
}

cfr_result cfr_chain_insert(cfr_chain *c, const cfr_limits *lim, const void *item, size_t len,
                            bool nx) {
    return insert_hash(c, lim, cf_hash(c->f, item, len), nx);
}

/* Items a batch lookup reads ahead of their inserts (1 KB of stack). */
#define WARM_RUN 256

/* cfr_chain_insert_hashes' items one at a time: NX (each item's answer
 * depends on the ones before it), an in-place key (an insert may double
 * the table, and its refusal is read against that), a full key.  A batch
 * lookup of the items first brings all their buckets into the cache at
 * once, so that each insert finds its own there; under NX it also answers
 * the items already present, which no insert can take away (inserts move
 * fingerprints between an item's buckets, never out; a refresh of an
 * expiring key's item is a write, so those take their own path). */
static void insert_singly(cfr_chain *c, const cfr_limits *lim, const uint64_t *h, size_t n, bool nx,
                          cfr_result *out) {
    bool present[WARM_RUN];
    for (size_t i = 0; i < n; i += WARM_RUN) {
        size_t run = n - i < WARM_RUN ? n - i : WARM_RUN;
        cf_contains_batch(c->f, h + i, run, present);
        for (size_t j = 0; j < run; j++)
            out[i + j] =
                nx && present[j] && !c->expiring ? CFR_EXISTS : insert_hash(c, lim, h[i + j], nx);
    }
}

void cfr_chain_insert_hashes(cfr_chain *c, const cfr_limits *lim, const uint64_t *h, size_t n,
                             bool nx, cfr_result *out) {
    for (size_t i = 0; i < n;) {
        if (nx || c->inplace || (c->flags & CFR_CHAIN_EXHAUSTED)) {
            insert_singly(c, lim, h + i, n - i, nx, out + i);
            return;
        }
        cfr_chain_touch(c);
        size_t done = 0;
        cf_status s = cf_insert_batch(c->f, h + i, n - i, &done);
        for (size_t j = 0; j < done; j++) out[i + j] = CFR_OK;
        i += done;
        if (s == CF_OK) {
            note_added_table(c);
            return;
        }
        /* The refused item ends as a single insert's refusal does: a full
         * key told apart from one that can grow, grown as RedisBloom
         * would. */
        out[i] = refused(c, lim, h[i], s);
        i++;
    }
}

bool cfr_chain_at_cap(const cfr_chain *c, const cfr_limits *lim) {
    return (c->flags & CFR_CHAIN_EXHAUSTED) && c->expansion > 0 && !c->inplace &&
           c->tables >= lim->max_filters;
}

bool cfr_chain_contains(const cfr_chain *c, const void *item, size_t len) {
    return cf_contains(c->f, item, len);
}

uint64_t cfr_chain_hash(const cfr_chain *c, const void *item, size_t len) {
    return cf_hash(c->f, item, len);
}

void cfr_chain_contains_hashes(const cfr_chain *c, const uint64_t *h, size_t n, bool *found) {
    cf_contains_batch(c->f, h, n, found);
}

uint64_t cfr_chain_count(const cfr_chain *c, const void *item, size_t len) {
    return cf_count(c->f, item, len);
}

bool cfr_chain_delete(cfr_chain *c, const void *item, size_t len) {
    if (cf_delete(c->f, item, len) != CF_OK) return false;
    c->flags &= ~(uint32_t)CFR_CHAIN_EXHAUSTED;
    c->deleted++;
    cfr_chain_touch(c);
    return true;
}

uint32_t cfr_chain_compact(cfr_chain *c) {
    unsigned dropped = 0;
    if (cf_grow_trim(c->f, &dropped) != CF_OK || dropped == 0) return 0;
    chain_shape(c);
    c->flags &= ~(uint32_t)CFR_CHAIN_EXHAUSTED; /* the key may grow again */
    cfr_chain_touch(c);
    return dropped;
}

void cfr_chain_info(const cfr_chain *c, cfr_info *out) {
    memset(out, 0, sizeof *out);
    cf_stats st, first;
    cf_get_stats(c->f, &st);
    cf_table_stats(c->f, 0, &first);
    out->table_bytes = st.table_bytes;
    out->buckets = st.num_buckets;
    out->items = st.items;
    out->tables = st.tables;
    out->bucket_size = st.bucket_size;
    /* The width RESERVE chose; later tables are wider (cf_table_stats). */
    out->fingerprint_bits = first.fingerprint_bits;
    out->max_kicks = st.max_kicks;
    out->fpp_bound = st.fpp_bound;
    out->doublings = st.doublings;
    out->memory_bytes = cfr_chain_memory(c);
    out->expire_after = st.expire_after;
    out->expire_span = st.expire_span;
    out->now = st.now;
    out->stamp_bits = st.stamp_bits;
    out->stamps = st.stamps;
}

/* ---- the dump stream ---- */

/* The images of the body: the live filter, or a loading key's complete ones. */
static cf_filter *const *body_images(const cfr_chain *c, uint32_t *n) {
    *n = c->load ? c->load->done : 1;
    return c->load ? c->load->subs : &c->f;
}

uint8_t *cfr_dump_header(const cfr_chain *c, size_t *len) {
    const cfr_loader *l = c->load;
    uint32_t n = l ? l->d.nsubs : 1;
    size_t hl = cfr_dump_header_len(n);
    uint8_t *h = cfr_alloc(hl);
    uint64_t *lens = cfr_alloc(sizeof *lens * n), *flags = cfr_alloc(sizeof *flags * n);
    if (!h || !lens || !flags) {
        cfr_free(h);
        cfr_free(lens);
        cfr_free(flags);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        lens[i] = l ? l->lens[i] : cf_serialized_size(c->f);
        flags[i] = l ? l->flags[i] : 0;
    }
    cfr_dump_fields d = {
        n, c->expansion, c->flags, c->capacity, c->deleted, 0, l ? l->d.version : CFR_DUMP_VERSION};
    cfr_dump_header_write(h, &d, lens, flags);
    cfr_free(lens);
    cfr_free(flags);
    *len = hl;
    return h;
}

uint64_t cfr_dump_body_len(const cfr_chain *c) {
    return c->load ? cfr_loader_images_len(c->load) : cf_serialized_size(c->f);
}

bool cfr_dump_body_range(const cfr_chain *c, uint64_t off, uint8_t *dst, size_t len) {
    uint32_t count;
    cf_filter *const *img = body_images(c, &count);
    uint64_t start = 0; /* body offset of image i */
    for (uint32_t i = 0; i < count && len > 0; i++) {
        uint64_t sl = cf_serialized_size(img[i]);
        if (off < start + sl) {
            uint64_t in = off - start;
            size_t n = sl - in < len ? (size_t)(sl - in) : len;
            if (cf_serialize_range(img[i], in, dst, n) != CF_OK) return false;
            dst += n;
            off += n;
            len -= n;
        }
        start += sl;
    }
    return len == 0;
}

cfr_result cfr_load_begin(const uint8_t *hdr, size_t len, const cfr_limits *lim, uint32_t gen,
                          cfr_chain **out) {
    *out = NULL;
    cfr_chain *c = chain_alloc();
    if (!c) return CFR_NOMEM;
    /* The tables must fit the key's memory limit (the body may pass it by
     * the images' format overhead: a key at the limit loads again). */
    cfr_result r = cfr_loader_new(hdr, len, lim->max_key_bytes, gen, &c->load);
    if (r != CFR_OK) {
        cfr_chain_free(c);
        return r;
    }
    c->expansion = c->load->d.expansion;
    c->flags = c->load->d.flags;
    c->capacity = c->load->d.capacity;
    c->deleted = c->load->d.deleted;
    *out = c;
    return CFR_OK;
}

cfr_result cfr_load_append(cfr_chain *c, const cfr_limits *lim, uint64_t at, const uint8_t *data,
                           size_t len) {
    if (!c->load) return CFR_BAD_POSITION;
    cfr_result r = cfr_loader_append(c->load, at, data, len);
    if (r != CFR_OK || !cfr_loader_complete(c->load)) return r;
    /* Every image has arrived: the key takes the filter, with the module's
     * limits. */
    cf_filter *f = NULL;
    r = cfr_loader_build(c->load, &f);
    if (r != CFR_OK) return r;
    if (!apply_limits(f, lim)) {
        cf_free(f);
        return CFR_BAD_CHUNK;
    }
    c->f = f;
    chain_shape(c);
    if (c->inplace) c->expansion = 2; /* as cfr_chain_new records it */
    cfr_loader_free(c->load);
    c->load = NULL;
    return CFR_OK;
}

cfr_chain *cfr_chain_clone(const cfr_chain *c, const cfr_limits *lim) {
    size_t hl = 0;
    uint8_t *h = cfr_dump_header(c, &hl);
    if (!h) return NULL;
    cfr_chain *out = NULL;
    cfr_result r = cfr_load_begin(h, hl, lim, c->load ? c->load->gen : 0, &out);
    cfr_free(h);
    if (r != CFR_OK) return NULL;
    /* Through a bounded buffer: a copy never holds a second whole form. */
    uint64_t body = cfr_dump_body_len(c);
    size_t cap = (size_t)(body < ((uint64_t)1 << 20) ? body : (uint64_t)1 << 20);
    uint8_t *buf = cfr_alloc(cap ? cap : 1);
    if (!buf) r = CFR_NOMEM;
    for (uint64_t at = 0; r == CFR_OK && at < body;) {
        size_t n = body - at < cap ? (size_t)(body - at) : cap;
        r = cfr_dump_body_range(c, at, buf, n) ? cfr_load_append(out, lim, at, buf, n) : CFR_NOMEM;
        at += n;
    }
    cfr_free(buf);
    if (r == CFR_OK && c->load && c->load->partial_len)
        r = cfr_load_append(out, lim, body, c->load->partial, c->load->partial_len);
    if (r != CFR_OK) {
        cfr_chain_free(out);
        return NULL;
    }
    return out;
}
