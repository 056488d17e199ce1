/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cmd_add.c -- `cuckoo add`: insert keys into a filter file, all or nothing,
 * under its lock.
 */
#include <stdio.h>

#include "cli/cli.h"
#include "commands/commands.h"
#include "files/files.h"
#include "files/files_help.h"

static void usage(void) {
    fputs("usage: cuckoo add FILE [options] [KEY...]\n"
          "Inserts each key.  All or nothing: if the filter fills, FILE is left\n"
          "unchanged and the message names the key.  Through a symbolic link, the\n"
          "link's target is updated.\n"
          "options:\n"
          "  --unique              skip keys the filter already reports present (an\n"
          "                        expiring filter always does, and starts their window\n"
          "                        again: a refresh)\n"
          "  --grow                make a file created without --grow grow from now on (its\n"
          "                        table first, FPP bound 4x that table's); a file\n"
          "                        created with --grow grows anyway\n" AT_HELP KEYS_HELP WAIT_HELP
              HELP_HELP KEYS_RULE,
          stdout);
}

int cli_cmd_add(int argc, char **argv) {
    files_opts o;
    if (!files_parse(
            argc, argv,
            FILES_OPT_UNIQUE | FILES_OPT_GROW | FILES_OPT_KEYS | FILES_OPT_WAIT | FILES_OPT_AT, &o))
        return CLI_ERROR;
    if (o.help) return usage(), CLI_OK;
    files_adder a = {0};
    a.unique = o.unique;
    cf_file_lock *lock = files_lock(o.file, o.wait_ms);
    if (lock == NULL) return CLI_ERROR;
    if ((a.f = files_load_locked(lock, o.file)) == NULL) return files_unlock(lock), CLI_ERROR;
    if (!files_set_clock(a.f, &o, o.file)) return cf_free(a.f), files_unlock(lock), CLI_ERROR;
    cf_stats st;
    cf_get_stats(a.f, &st);
    /* A key added again starts its window again, as one copy. */
    if (st.expire_after != 0) a.unique = true;
    if (o.grow && !(st.flags & CF_GROW) && o.cfg.growth_mode == CF_GROWTH_INPLACE) {
        cf_free(a.f);
        files_unlock(lock);
        return cli_error("%s: an existing table cannot grow in place (its slots have no room "
                         "for the longer fingerprints): create it with --grow=inplace",
                         o.file);
    }
    if (o.grow && !(st.flags & CF_GROW)) {
        o.cfg.target_fpp = 0; /* the library's choice for a table made growable */
        cf_status s = cf_make_growable(&a.f, &o.cfg);
        if (s != CF_OK) {
            cf_free(a.f);
            files_unlock(lock);
            return cli_error("%s: cannot make it grow: %s", o.file, cf_strerror(s));
        }
    }
    bool read_ok = files_for_each_batch(&o, a.f, files_add_batch, &a);
    files_keys_done();
    int rc = CLI_OK;
    if (!read_ok) {
        rc = CLI_ERROR;
    } else if (a.failure != CF_OK) {
        rc = files_add_failed(&a, o.file, "file unchanged");
    } else if (!files_save_locked(a.f, lock, o.file)) {
        rc = CLI_ERROR;
    }
    files_unlock(lock);
    cf_free(a.f);
    return rc;
}
