/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cmd_merge.c -- `cuckoo merge OUT IN...`: one filter from filters built
 * apart (split keys, build the parts in parallel, merge; see docs/CLI.md, "Building a filter in parts").
 *
 * The first input is loaded, the others are mapped read-only and merged
 * into it one by one (cf_merge), and OUT is written atomically through the
 * same save as every other writer, so an error or a kill leaves OUT as it
 * was.  Parts must share their shape: the same --capacity (of the whole
 * set, not of the part) or --buckets, bucket size, width, seed and layout;
 * parts grown in place only the same --seed and --fpp.
 */
#define _POSIX_C_SOURCE 200809L

#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "commands/commands.h"
#include "files/files.h"
#include "files/files_help.h"

static void usage(void) {
    fputs("usage: cuckoo merge OUT IN... [options]\n"
          "Writes to OUT a filter holding every item of the filter files IN: it\n"
          "answers every key as one filter built from all their keys would.  The\n"
          "inputs need the same shape: build them with the same --capacity (that of\n"
          "all the keys) or --buckets, --bucket-size, width (--fpp or\n"
          "--fingerprint-bits), --seed and --semi-sort.  All or nothing: if the\n"
          "items do not fit, nothing is written.  OUT may be one of the inputs.\n"
          "Filters grown in place (--grow=inplace) merge whatever their sizes: they\n"
          "need the same --seed and --fpp only.\n"
          "options:\n" FORCE_HELP_OF("OUT") WAIT_HELP_OF("OUT") HELP_HELP,
          stdout);
}

/* Names the first parameter in which two filters differ, for CF_E_PARAM. */
static int shape_mismatch(const char *a_path, const cf_filter *a, const char *b_path,
                          const cf_filter *b) {
    cf_stats x, y;
    cf_get_stats(a, &x);
    cf_get_stats(b, &y);
    const char *what = "layout (--semi-sort)";
    unsigned long long u = x.flags, v = y.flags;
    bool a_ip = x.growth_mode == CF_GROWTH_INPLACE, b_ip = y.growth_mode == CF_GROWTH_INPLACE;
    if (a_ip != b_ip)
        return cli_error("cannot merge %s into %s: one grows in place (--grow=inplace), the other "
                         "not",
                         b_path, a_path);
    if (a_ip && x.seed == y.seed && x.target_fpp != y.target_fpp) /* sizes may differ */
        return cli_error("cannot merge %s into %s: their --fpp differ (%g vs %g); build every "
                         "part with the same --fpp and --seed",
                         b_path, a_path, y.target_fpp, x.target_fpp);
    if (a_ip && x.seed == y.seed)
        return cli_error("cannot merge %s into %s: their slots differ (%u vs %u bits: "
                         "--fingerprint-bits); build every part with the same options",
                         b_path, a_path, y.bits_per_slot, x.bits_per_slot);
    if (a_ip)
        what = "seed", u = x.seed, v = y.seed;
    else if (x.num_buckets != y.num_buckets)
        what = "buckets", u = x.num_buckets, v = y.num_buckets;
    else if (x.bucket_size != y.bucket_size)
        what = "bucket size", u = x.bucket_size, v = y.bucket_size;
    else if (x.fingerprint_bits != y.fingerprint_bits)
        what = "fingerprint bits", u = x.fingerprint_bits, v = y.fingerprint_bits;
    else if (x.seed != y.seed)
        what = "seed", u = x.seed, v = y.seed;
    return cli_error("cannot merge %s into %s: %s differ (%llu vs %llu); build every part with "
                     "the same --capacity or --buckets, --bucket-size, width, --seed and "
                     "--semi-sort",
                     b_path, a_path, what, v, u);
}

static int merge_failed(const char *out, const char *first, const cf_filter *dst, const char *path,
                        const cf_filter *src, cf_status s) {
    if (s == CF_E_PARAM) return shape_mismatch(first, dst, path, src);
    if (s == CF_E_FULL) {
        cf_stats d, e;
        cf_get_stats(dst, &d);
        cf_get_stats(src, &e);
        if (d.growth_mode == CF_GROWTH_INPLACE)
            return cli_error(
                "%s: the merged filter cannot grow to hold %s's %llu items on top of "
                "%llu (its largest table, or the bound its --fpp sets); nothing written",
                out, path, (unsigned long long)e.items, (unsigned long long)d.items);
        return cli_error("%s: the merged filter cannot hold %s's %llu items on top of %llu "
                         "(%llu slots); nothing written (build the parts with a larger "
                         "--capacity: that of all the keys)",
                         out, path, (unsigned long long)e.items, (unsigned long long)d.items,
                         (unsigned long long)d.slots);
    }
    return cli_error("%s: merging %s: %s; nothing written", out, path, cf_strerror(s));
}

/* True when a and b name one file: the same device and inode, however
 * spelled ("./a.cf", "a.cf", a link or a hard link to it). */
static bool same_file(const char *a, const char *b) {
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

int cli_cmd_merge(int argc, char **argv) {
    files_opts o;
    if (!files_parse(argc, argv, FILES_OPT_FORCE | FILES_OPT_WAIT, &o)) return CLI_ERROR;
    if (o.help) return usage(), CLI_OK;
    if (o.nkeys < 1) return cli_error("merge: wants OUT and at least one IN (see --help)");
    const char *out = o.file;
    bool out_is_input = false;
    for (int i = 0; i < o.nkeys; i++) out_is_input |= same_file(o.keys[i], out);
    if (!out_is_input && !files_may_replace(out, o.force)) return CLI_ERROR;

    /* OUT read as an input is a read-modify-write: locked from before the
     * load until after the save, like add, and the inputs that are OUT are
     * read from the file the lock resolved.  Otherwise files_replace locks
     * around the save, like build. */
    cf_file_lock *lock = NULL;
    if (out_is_input && (lock = files_lock(out, o.wait_ms)) == NULL) return CLI_ERROR;
    cf_filter *dst = lock != NULL && same_file(o.keys[0], cf_file_lock_path(lock))
                         ? files_load_locked(lock, o.keys[0])
                         : files_load(o.keys[0]);
    if (dst == NULL) return files_unlock(lock), CLI_ERROR;
    int rc = CLI_OK;
    for (int i = 1; i < o.nkeys && rc == CLI_OK; i++) {
        bool is_out = lock != NULL && same_file(o.keys[i], cf_file_lock_path(lock));
        cf_filter *src = files_map(is_out ? cf_file_lock_path(lock) : o.keys[i]);
        if (src == NULL) {
            rc = CLI_ERROR;
            break;
        }
        cf_status s = cf_merge(dst, src);
        if (s != CF_OK) rc = merge_failed(out, o.keys[0], dst, o.keys[i], src, s);
        cf_free(src);
    }
    if (rc == CLI_OK &&
        !(out_is_input ? files_save_locked(dst, lock, out) : files_replace(dst, &o)))
        rc = CLI_ERROR;
    files_unlock(lock);
    cf_free(dst);
    return rc;
}
