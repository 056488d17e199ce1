/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cmd_create.c -- `cuckoo create`: an empty filter file of the shape the
 * options describe.
 */
#include <stdio.h>

#include "cli/cli.h"
#include "commands/commands.h"
#include "files/files.h"
#include "files/files_help.h"

static void usage(void) {
    fputs("usage: cuckoo create FILE --capacity N [options]\n"
          "Creates an empty filter file sized for N items (or exactly NB buckets).\n"
          "options:\n" SHAPE_HELP
          "  --grow                add tables as the filter fills (each twice the last),\n"
          "                        keeping the FPP of all of them under --fpp; as\n"
          "                        --grow=chain.  With --grow=inplace, one table that\n"
          "                        doubles in place instead: lookups read two buckets at\n"
          "                        any size (15/16/32-bit slots, FPP < --fpp)\n" EXPIRE_HELP AT_HELP
              FORCE_HELP WAIT_HELP HELP_HELP,
          stdout);
}

int cli_cmd_create(int argc, char **argv) {
    files_opts o;
    unsigned accepted = FILES_OPT_SHAPE | FILES_OPT_FORCE | FILES_OPT_GROW | FILES_OPT_WAIT |
                        FILES_OPT_EXPIRE | FILES_OPT_AT;
    if (!files_parse(argc, argv, accepted, &o)) return CLI_ERROR;
    if (o.help) return usage(), CLI_OK;
    if (o.nkeys > 0) return cli_error("create: unexpected argument '%s'", o.keys[0]);
    if (!files_check_shape(&o) || !files_may_replace(o.file, o.force)) return CLI_ERROR;
    if (o.grow) o.cfg.flags |= CF_GROW;
    cf_filter *f = files_new(&o);
    if (f == NULL) return CLI_ERROR;
    if (!files_set_clock(f, &o, o.file)) return cf_free(f), CLI_ERROR; /* the clock starts now */
    bool ok = files_replace(f, &o);
    cf_free(f);
    return ok ? CLI_OK : CLI_ERROR;
}
