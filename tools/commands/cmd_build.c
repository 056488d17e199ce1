/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cmd_build.c -- `cuckoo build`: a filter file from a stream of keys,
 * written only when every key fits.
 */
#include <stdio.h>

#include "cli/cli.h"
#include "commands/commands.h"
#include "files/files.h"
#include "files/files_help.h"

static void usage(void) {
    fputs("usage: cuckoo build FILE --capacity N [options] < keys\n"
          "Builds a filter from a stream of keys.  If it fills before the stream\n"
          "ends, reports how many keys fit and writes nothing, unless --grow.\n"
          "options:\n" SHAPE_HELP
          "  --unique              skip keys the filter already reports present\n"
          "  --grow                build a filter that grows as it fills (as\n"
          "                        create --grow; also --grow=chain, --grow=inplace)\n" EXPIRE_HELP
              AT_HELP FORCE_HELP KEYS_HELP WAIT_HELP HELP_HELP KEYS_RULE,
          stdout);
}

int cli_cmd_build(int argc, char **argv) {
    files_opts o;
    unsigned accepted = FILES_OPT_SHAPE | FILES_OPT_FORCE | FILES_OPT_GROW | FILES_OPT_UNIQUE |
                        FILES_OPT_KEYS | FILES_OPT_WAIT | FILES_OPT_EXPIRE | FILES_OPT_AT;
    if (!files_parse(argc, argv, accepted, &o)) return CLI_ERROR;
    if (o.help) return usage(), CLI_OK;
    if (o.nkeys > 0)
        return cli_error("build: keys come from stdin or --keys FILE, not arguments "
                         "('%s')",
                         o.keys[0]);
    if (!files_check_shape(&o) || !files_may_replace(o.file, o.force)) return CLI_ERROR;
    files_adder a = {0};
    a.unique = o.unique;
    a.drain = true;
    if (o.grow) o.cfg.flags |= CF_GROW;
    if ((a.f = files_new(&o)) == NULL) return CLI_ERROR;
    /* An expiring filter's keys are all written now (the clock, or --at),
     * and a key given twice is refreshed, not stored twice (as add). */
    if (!files_set_clock(a.f, &o, o.file)) return cf_free(a.f), CLI_ERROR;
    if (o.cfg.expire_after != 0) a.unique = true;
    bool read_ok = files_for_each_batch(&o, a.f, files_add_batch, &a);
    files_keys_done();

    int rc = CLI_OK;
    if (!read_ok) {
        rc = CLI_ERROR;
    } else if (a.failure == CF_E_FULL && !o.grow && !a.too_many_copies) {
        rc = cli_error("%s: the filter filled at %s: %llu of %llu keys fit; nothing written "
                       "(raise --capacity or use --grow)",
                       o.file, a.where, (unsigned long long)a.inserted, (unsigned long long)a.seen);
    } else if (a.failure != CF_OK) {
        rc = files_add_failed(&a, o.file, "nothing written");
    } else if (!files_replace(a.f, &o)) {
        rc = CLI_ERROR;
    }
    cf_free(a.f);
    return rc;
}
