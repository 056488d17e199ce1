/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cmd_delete.c -- `cuckoo delete`: remove one copy of each key from a filter
 * file, under its lock.
 */
#include <stdio.h>

#include "cli/cli.h"
#include "commands/commands.h"
#include "files/files.h"
#include "files/files_help.h"

static void usage(void) {
    fputs("usage: cuckoo delete FILE [options] [KEY...]\n"
          "Removes one copy of each key.  Only delete keys that were added.  Exit 1\n"
          "when some key was not found (the others are removed).\n"
          "options:\n" KEYS_HELP WAIT_HELP HELP_HELP KEYS_RULE,
          stdout);
}

typedef struct deleter {
    cf_filter *f;
    uint64_t seen, missing;
    cf_status failure;
    char where[160]; /* the failed key, for the message */
} deleter;

static bool delete_one(void *ctx, const char *key, size_t len) {
    deleter *d = ctx;
    d->seen++;
    cf_status s = cf_delete(d->f, key, len);
    if (s == CF_E_NOT_FOUND)
        d->missing++;
    else if (s != CF_OK) {
        d->failure = s;
        files_key_where(key, len, d->where, sizeof d->where);
    }
    return d->failure == CF_OK;
}

int cli_cmd_delete(int argc, char **argv) {
    files_opts o;
    if (!files_parse(argc, argv, FILES_OPT_KEYS | FILES_OPT_WAIT, &o)) return CLI_ERROR;
    if (o.help) return usage(), CLI_OK;
    deleter d = {0};
    cf_file_lock *lock = files_lock(o.file, o.wait_ms);
    if (lock == NULL) return CLI_ERROR;
    if ((d.f = files_load_locked(lock, o.file)) == NULL) return files_unlock(lock), CLI_ERROR;
    bool ok = files_for_each_key(&o, delete_one, &d);
    files_keys_done();
    int rc = CLI_OK;
    if (!ok) {
        rc = CLI_ERROR;
    } else if (d.failure != CF_OK) {
        rc = cli_error("%s: %s: %s; file unchanged", o.file, d.where, cf_strerror(d.failure));
    } else if (!files_save_locked(d.f, lock, o.file)) {
        rc = CLI_ERROR;
    } else if (d.missing > 0) {
        fprintf(stderr, "cuckoo: %llu of %llu keys not found\n", (unsigned long long)d.missing,
                (unsigned long long)d.seen);
        rc = CLI_NOT_FOUND;
    }
    files_unlock(lock);
    cf_free(d.f);
    return rc;
}
