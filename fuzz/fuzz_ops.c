/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * fuzz_ops.c -- operation sequences on a small filter, checked against an
 * exact model (a multiset of keys), with a twin filter that is periodically
 * replaced by a serialize/deserialize copy of itself.
 *
 * Input: 8 bytes of shape (f, b, nb, max_kicks and the semi-sorting bit,
 * the growth bit, seed), then 2-byte ops (opcode, key).  With the growth bit
 * (data[3] & 0x40) the filter is CF_GROW: small first tables, growth 1..3,
 * a target FPP from data[0], a max_bytes limit when data[7] is odd, and
 * CF_GROWTH_INPLACE (bucket size 4, no semi-sorting) when data[7] & 2.
 * Without it, data[7] & 0x80 makes an expiring filter (expire_after
 * 1 + data[6] % 40, fingerprints of at most 28 bits, no semi-sorting), and
 * op 7 with an odd key moves the clock on by key / 16: the model keeps, per
 * key, the time of its oldest copy still counted, and a key is only required
 * while that copy's window lasts; counts are then upper bounds only where
 * copies may have expired (items <= the model's total).
 * Properties checked after every op:
 *   - no false negatives: every key the model holds is found;
 *   - cf_count is at least the model's count; deletes of held keys succeed;
 *   - items == the model's total (>= with growth: a delete that two tables
 *     could answer keeps its copy); a failed insert changes no slot;
 *   - the twin answers every op with the same status (a loaded filter
 *     behaves exactly as the original: determinism through the format);
 *   - a third filter of the same configuration, fed by its own ops, merges
 *     into both (cf_merge): all its keys found after, or nothing changed;
 *   - serialize twice gives the same bytes, and so does the twin;
 *   - batches: op 1 inserts a run of keys one by one into the filter and
 *     with one cf_insert_batch into the twin (same statuses, same count,
 *     then the same bytes), and cf_contains_batch over every key answers
 *     as single lookups do, on both (op 6 and at the end): the batch
 *     kernels this CPU has (AVX-512, AVX2, or the portable loop) included.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuckoofilter.h"

#define CHECK(c)           \
    do {                   \
        if (!(c)) abort(); \
    } while (0)

#define KEYS 256

static uint8_t *serialize(const cf_filter *f, size_t *len) {
    *len = cf_serialized_size(f);
    uint8_t *p = malloc(*len);
    CHECK(p != NULL);
    size_t w;
    CHECK(cf_serialize(f, p, *len, &w) == CF_OK && w == *len);
    return p;
}

static void same_bytes(const cf_filter *a, const cf_filter *b) {
    size_t la, lb;
    uint8_t *x = serialize(a, &la), *y = serialize(b, &lb);
    CHECK(la == lb && memcmp(x, y, la) == 0);
    free(x);
    free(y);
}

/* The table bytes (header excluded: statistics change on a failed insert;
 * version 4, grown in place, has a 128-byte header). */
static int same_table(const uint8_t *x, const uint8_t *y, size_t len) {
    size_t header = x[8] == 4 || x[8] == 7 ? 128 : 64;
    return memcmp(x + header, y + header, len - header - 8) == 0;
}

/* Key k of the KEYS the fuzzer uses: spread, and few. */
static uint64_t key_of(unsigned k) {
    return k * 0x9e3779b97f4a7c15ull;
}

/* cf_contains_batch over every key's hash against single lookups. */
static void batch_agrees(const cf_filter *f) {
    uint64_t h[KEYS];
    bool out[KEYS];
    size_t found = 0;
    for (unsigned k = 0; k < KEYS; k++) {
        uint64_t key = key_of(k);
        h[k] = cf_hash(f, &key, sizeof key);
    }
    memset(out, 2, sizeof out);
    size_t n = cf_contains_batch(f, h, KEYS, out);
    for (unsigned k = 0; k < KEYS; k++) {
        CHECK(out[k] == cf_contains_hash(f, h[k]));
        found += out[k];
    }
    CHECK(n == found && cf_contains_batch(f, h, KEYS, NULL) == found);
}

static cf_filter *reload(cf_filter *f) {
    size_t len;
    uint8_t *a = serialize(f, &len), *b = serialize(f, &len);
    CHECK(memcmp(a, b, len) == 0); /* serialize twice, same bytes */
    cf_filter *g = NULL;
    CHECK(cf_deserialize(a, len, NULL, &g) == CF_OK);
    size_t len2;
    uint8_t *c = serialize(g, &len2);
    CHECK(len2 == len && memcmp(a, c, len) == 0);
    free(a), free(b), free(c);
    cf_free(f);
    return g;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 8) return 0;
    static const unsigned bucket_sizes[4] = {1, 2, 4, 8};
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.fingerprint_bits = 1 + data[0] % 32;
    cfg.bucket_size = bucket_sizes[data[1] % 4];
    cfg.num_buckets = 1 + data[2] % 48;
    cfg.max_kicks = 1 + data[3] % 64;
    if ((data[3] & 0x80) && cfg.bucket_size == 4 && cfg.fingerprint_bits >= 5 &&
        cfg.fingerprint_bits <= 16)
        cfg.flags = CF_SEMI_SORT;
    cfg.seed = (uint64_t)data[4] | (uint64_t)data[5] << 8 | (uint64_t)data[6] << 16 |
               (uint64_t)data[7] << 24;
    bool grow = (data[3] & 0x40) != 0;
    if (grow) {
        static const double targets[4] = {0.3, 0.05, 0.01, 0.0005};
        cfg.flags |= CF_GROW;
        cfg.fingerprint_bits = 0;
        cfg.target_fpp = targets[data[0] % 4];
        cfg.num_buckets = 1 + data[2] % 8;
        cfg.growth = 1 + data[2] / 8 % 3;
        cfg.max_bytes = (data[7] & 1) ? 3000 : 0;
        if (cfg.flags & CF_SEMI_SORT) cfg.target_fpp = 0.01; /* a width of 5..16 */
        if (data[7] & 2) { /* in place: one table of four-slot buckets */
            cfg.growth_mode = CF_GROWTH_INPLACE;
            cfg.flags = CF_GROW;
            cfg.bucket_size = 4;
        }
    }
    bool expiring = !grow && (data[7] & 0x80) != 0;
    if (expiring) {
        cfg.expire_after = 1 + data[6] % 40;
        cfg.flags = 0;
        if (cfg.fingerprint_bits > 28) cfg.fingerprint_bits = 28;
    }
    uint64_t now = 0, first[KEYS] = {0}; /* expiring: the oldest copy counted */
    cf_filter *f = NULL, *twin = NULL, *side = NULL;
    CHECK(cf_new(&cfg, &f) == CF_OK);
    CHECK(cf_new(&cfg, &twin) == CF_OK);
    CHECK(cf_new(&cfg, &side) == CF_OK);
    unsigned model[KEYS] = {0}, side_model[KEYS] = {0};
    uint64_t total = 0, side_total = 0;

    for (size_t i = 8; i + 1 < size; i += 2) {
        unsigned op = data[i] % 8, k = data[i + 1];
        uint64_t key = key_of(k);
        cf_status s, t;
        switch (op) {
        case 0: { /* insert, checking that a failure changes nothing */
            size_t len;
            uint8_t *before = serialize(f, &len);
            s = cf_insert(f, &key, sizeof key);
            t = cf_insert(twin, &key, sizeof key);
            CHECK(s == t && (s == CF_OK || s == CF_E_FULL));
            if (s == CF_OK) {
                if (model[k]++ == 0) first[k] = now;
                total++;
            } else {
                /* In place, an insert that doubled the table and still
                 * found no room keeps the doubled table (the contents are
                 * the same: checked by the lookups below). */
                size_t len2;
                uint8_t *after = serialize(f, &len2);
                CHECK(len2 == len ? same_table(before, after, len) : before[8] == 4);
                free(after);
            }
            free(before);
            break;
        }
        case 1: { /* a run of 1..16 keys: singles into f, one batch into the twin */
            uint64_t h[16];
            unsigned run = 1 + k % 16;
            for (unsigned j = 0; j < run; j++) {
                uint64_t kj = key_of((k + j) % KEYS);
                h[j] = cf_hash(f, &kj, sizeof kj);
            }
            size_t done = 0, batch_done = 99;
            s = CF_OK;
            while (done < run && (s = cf_insert_hash(f, h[done])) == CF_OK) done++;
            t = cf_insert_batch(twin, h, run, &batch_done);
            CHECK(s == t && done == batch_done && (s == CF_OK || s == CF_E_FULL));
            for (unsigned j = 0; j < done; j++) {
                unsigned kj = (k + j) % KEYS;
                if (model[kj]++ == 0) first[kj] = now;
                total++;
            }
            break;
        }
        case 2: /* insert_unique */
            s = cf_insert_unique(f, &key, sizeof key);
            t = cf_insert_unique(twin, &key, sizeof key);
            CHECK(s == t);
            CHECK(!(model[k] > 0 && s != CF_E_EXISTS));
            if (s == CF_OK) model[k]++, total++;
            if (s == CF_OK || s == CF_E_EXISTS) first[k] = now; /* written or refreshed */
            break;
        case 3: /* delete: only keys the model holds (others may hit collisions) */
            if (model[k] > 0) {
                CHECK(cf_delete(f, &key, sizeof key) == CF_OK);
                CHECK(cf_delete(twin, &key, sizeof key) == CF_OK);
                model[k]--, total--;
            } else if (!cf_contains(f, &key, sizeof key)) {
                CHECK(cf_delete(f, &key, sizeof key) == CF_E_NOT_FOUND);
                CHECK(cf_delete(twin, &key, sizeof key) == CF_E_NOT_FOUND);
            }
            break;
        case 4: /* count */
            CHECK(cf_count(f, &key, sizeof key) >= model[k]);
            CHECK(cf_count(f, &key, sizeof key) == cf_count(twin, &key, sizeof key));
            break;
        case 5: /* the twin becomes a deserialized copy of itself */ twin = reload(twin); break;
        case 6: /* both must be byte-identical, and their batches right */
            same_bytes(f, twin);
            batch_agrees(f);
            batch_agrees(twin);
            break;
        case 7: /* rarely: clear; else feed the side filter, or merge it */
            if (expiring && k % 2 == 1) { /* the clock moves on */
                now += k / 16;
                CHECK(cf_set_time(f, now) == CF_OK && cf_set_time(twin, now) == CF_OK &&
                      cf_set_time(side, now) == CF_OK);
                CHECK(now == 0 || cf_set_time(f, now - 1) == CF_E_INVAL);
                for (unsigned j = 0; j < KEYS; j++)
                    if (model[j] > 0 && now >= first[j] + cfg.expire_after) {
                        total -= model[j]; /* may be gone: no longer required */
                        model[j] = 0;
                    }
                for (unsigned j = 0; j < KEYS; j++)
                    if (side_model[j] > 0) side_total -= side_model[j], side_model[j] = 0;
            } else if (k == 0) {
                CHECK(cf_clear(f) == CF_OK && cf_clear(twin) == CF_OK);
                memset(model, 0, sizeof model);
                total = 0;
            } else if (k % 4 != 2) {
                if (cf_insert(side, &key, sizeof key) == CF_OK) side_model[k]++, side_total++;
            } else {
                size_t len, len2;
                uint8_t *before = serialize(f, &len);
                s = cf_merge(f, side);
                t = cf_merge(twin, side);
                CHECK(s == t);
                if (s == CF_OK) {
                    for (unsigned j = 0; j < KEYS; j++) {
                        if (model[j] == 0 && side_model[j] > 0) first[j] = now;
                        model[j] += side_model[j];
                    }
                    total += side_total;
                } else { /* all or nothing: not a byte changed */
                    CHECK(s == CF_E_FULL || s == CF_E_PARAM);
                    uint8_t *after = serialize(f, &len2);
                    CHECK(len2 == len && memcmp(before, after, len) == 0);
                    free(after);
                }
                free(before);
            }
            break;
        }
        cf_stats st;
        cf_get_stats(f, &st);
        CHECK(grow ? st.items >= total : expiring ? st.items >= total : st.items == total);
        CHECK(cf_contains(f, &key, sizeof key) == cf_contains(twin, &key, sizeof key));
    }
    batch_agrees(f);
    for (unsigned k = 0; k < KEYS; k++) {
        uint64_t key = key_of(k);
        if (model[k] > 0) CHECK(cf_contains(f, &key, sizeof key));
        if (model[k] > 0) CHECK(cf_contains(twin, &key, sizeof key));
    }
    twin = reload(twin);
    same_bytes(f, twin);
    cf_free(f);
    cf_free(twin);
    cf_free(side);
    return 0;
}
