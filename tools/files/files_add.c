/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * files_add.c -- inserting a stream of keys, for add and build: batches while
 * all goes well, one key at a time with --unique or after a failure, and
 * the message that names the key that did not fit.
 */
#include "cli/cli.h"
#include "files/files.h"

/* A batch of keys (files_for_each_batch): cf_insert_batch while all goes
 * well; with --unique, or after a failure, one key at a time.  A failure
 * keeps the key for the message; build (drain) goes on counting keys. */
bool files_add_batch(void *ctx, const files_batch *b) {
    files_adder *a = ctx;
    size_t from = 0;
    cf_status batch = CF_OK; /* the status of key `from`, already tried */
    if (!a->unique && a->failure == CF_OK) {
        size_t done = 0;
        batch = cf_insert_batch(a->f, b->hash, b->n, &done);
        a->seen += done;
        a->inserted += done;
        if (batch == CF_OK) return true;
        from = done;
    }
    for (size_t i = from; i < b->n; i++) {
        a->seen++;
        if (a->failure != CF_OK) {
            if (!a->drain) return false;
            continue;
        }
        cf_status s = i == from && batch != CF_OK ? batch
                      : a->unique                 ? cf_insert_unique_hash(a->f, b->hash[i])
                                                  : cf_insert_hash(a->f, b->hash[i]);
        if (s == CF_E_EXISTS) {
            a->skipped++;
            continue;
        }
        if (s == CF_OK) {
            a->inserted++;
            continue;
        }
        a->failure = s;
        files_key_where_at(b->pos[i], b->key[i], b->len[i], a->where, sizeof a->where);
        if (s == CF_E_FULL) {
            cf_stats st;
            cf_get_stats(a->f, &st);
            if (cf_count_hash(a->f, b->hash[i]) >= 2 * (size_t)st.bucket_size) {
                a->too_many_copies = true;
                return false;
            }
        }
        if (!a->drain) return false;
    }
    return a->failure == CF_OK || a->drain;
}

/* The message for a failed add or build: which key, why, what to do. */
int files_add_failed(const files_adder *a, const char *file, const char *outcome) {
    cf_stats st;
    cf_get_stats(a->f, &st);
    if (a->too_many_copies)
        return cli_error("%s: %s is stored %u times already, the most a key can be (both its "
                         "buckets of %u hold only it); %s (use --unique to skip keys present)",
                         file, a->where, 2 * st.bucket_size, st.bucket_size, outcome);
    /* An in-place filter stops doubling where a doubling would let the
     * FPP of its full table pass its bound (or max_bytes, or its size). */
    if (a->failure == CF_E_FULL && st.growth_mode == CF_GROWTH_INPLACE &&
        st.growth_limit == CF_GROWTH_LIMIT_FPP)
        return cli_error("%s: %s: the filter cannot double again (%llu items, %.1f%% of its "
                         "slots): the FPP of its full table would pass --fpp %g with %u-bit "
                         "slots after %llu doublings; %s (rebuild with a larger --fpp, or "
                         "--fingerprint-bits 32)",
                         file, a->where, (unsigned long long)st.items, 100 * st.load_factor,
                         st.target_fpp, st.bits_per_slot, (unsigned long long)st.doublings,
                         outcome);
    /* A growing filter that is full hit a limit (tables, widths); more
     * growth is not the advice then. */
    if (a->failure == CF_E_FULL)
        return cli_error("%s: %s: the filter is full (%llu items, %.1f%% of its slots); %s "
                         "(rebuild with a larger --capacity%s)",
                         file, a->where, (unsigned long long)st.items, 100 * st.load_factor,
                         outcome, (st.flags & CF_GROW) ? "" : ", or 'cuckoo build --grow'");
    return cli_error("%s: %s: %s; %s", file, a->where, cf_strerror(a->failure), outcome);
}
