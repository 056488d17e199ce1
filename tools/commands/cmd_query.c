/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cmd_query.c -- `cuckoo query`: whether each key is in a filter file
 * (mapped read-only).
 */
#include <stdio.h>

#include "cli/cli.h"
#include "commands/commands.h"
#include "files/files.h"
#include "files/files_help.h"

static void usage(void) {
    fputs("usage: cuckoo query FILE [options] [KEY...]\n"
          "Prints 'KEY<TAB>yes' or 'KEY<TAB>no' for each key.  Exit 0 when every key\n"
          "was found, 1 otherwise.\n"
          "options:\n"
          "  -q                    print nothing (the exit code answers)\n"
          "  --found               print only the keys found, one per line\n"
          "  --missing             print only the keys not found\n"
          "  --json                print {\"key\": ..., \"found\": true|false} lines\n"
          "  --summary             print 'N of M found' on stderr at the end (also\n"
          "                        shown when stderr is a terminal and keys are "
          "streamed)\n" KEYS_HELP
          "                        (with -0, printed keys end with NUL too)\n" AT_HELP HELP_HELP
              KEYS_RULE,
          stdout);
}

int cli_cmd_query(int argc, char **argv) {
    files_opts o;
    unsigned accepted =
        FILES_OPT_QUIET | FILES_OPT_KEYS | FILES_OPT_ANSWERS | FILES_OPT_JSON | FILES_OPT_AT;
    if (!files_parse(argc, argv, accepted, &o)) return CLI_ERROR;
    if (o.help) return usage(), CLI_OK;
    return files_answer_all(&o, false);
}
