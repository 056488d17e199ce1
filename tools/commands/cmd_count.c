/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cmd_count.c -- `cuckoo count`: an upper bound on the copies of each key in
 * a filter file.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "commands/commands.h"
#include "files/files.h"
#include "files/files_help.h"

static void usage(void) {
    fputs("usage: cuckoo count FILE [options] [KEY...]\n"
          "Prints an upper bound on the copies of each key stored: the number alone\n"
          "for one KEY argument, else 'KEY<TAB>N' lines.  Exit 1 when some count is 0.\n"
          "options:\n"
          "  --json                print {\"key\": ..., \"count\": N} lines\n" AT_HELP KEYS_HELP
              HELP_HELP KEYS_RULE,
          stdout);
}

int cli_cmd_count(int argc, char **argv) {
    files_opts o;
    if (!files_parse(argc, argv, FILES_OPT_KEYS | FILES_OPT_JSON | FILES_OPT_AT, &o))
        return CLI_ERROR;
    if (o.help) return usage(), CLI_OK;
    if (o.nkeys != 1 || o.json) return files_answer_all(&o, true);
    /* One key argument: the number alone, for scripts. */
    cf_filter *f = files_open_now(&o);
    if (f == NULL) return CLI_ERROR;
    size_t n = cf_count(f, o.keys[0], strlen(o.keys[0]));
    cf_free(f);
    printf("%zu\n", n);
    return n > 0 ? CLI_OK : CLI_NOT_FOUND;
}
