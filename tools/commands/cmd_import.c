/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cmd_import.c -- `cuckoo import`: a Redis key's CF.LOADCHUNK commands
 * written back as a filter file (redis_io.c), or with --shards, a sharded
 * filter's shards as files (redis_shards.c).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "commands/commands.h"
#include "files/files.h"
#include "files/files_help.h"
#include "redis_io/redis_io.h"

static void usage_import(void) {
    fputs(
        "usage: cuckoo import FILE [STREAM] [options]\n"
        "Reads CF.LOADCHUNK commands (Redis protocol, e.g. `cuckoo export`'s output\n"
        "or a rewritten AOF) from STREAM or stdin and writes the key's filter to FILE.\n"
        "Other commands are skipped.  The key must hold one sub-filter.\n"
        "options:\n"
        "  --key KEY             take KEY's chunks when the stream holds several keys\n"
        "  --shards              a sharded filter's shards into a directory\n"
        "                        (cuckoo import --shards --help)\n" FORCE_HELP WAIT_HELP HELP_HELP,
        stdout);
}

static void usage_import_shards(void) {
    fputs("usage: cuckoo import --shards DIR STREAM [options]\n"
          "Reads a sharded filter's metadata (HSET or HMSET commands of its fields, as\n"
          "`cuckoo export --shards` or an AOF rewrite writes them) and its shards'\n"
          "CF.LOADCHUNK commands (a SCANDUMP capture or rewritten AOFs, concatenated)\n"
          "from the file STREAM and writes DIR/meta.resp and DIR/shard-K.cf for every\n"
          "shard, all or nothing: a failure leaves DIR as it was.  Files of shards\n"
          "beyond the stream's count (another, larger import) are removed with --force.\n"
          "STREAM is read once per shard (and twice more).\n"
          "options:\n"
          "  --key NAME            the filter's name when STREAM holds several\n" FORCE_HELP_OF(
              "shard files") WAIT_HELP_OF("shard files") HELP_HELP,
          stdout);
}

static int import_shards(int argc, char **argv) {
    files_opts o;
    unsigned accepted = FILES_OPT_FORCE | FILES_OPT_WAIT | FILES_OPT_IMPORT | FILES_OPT_SHARDS_DIR;
    if (!files_parse(argc, argv, accepted, &o)) return CLI_ERROR;
    if (o.help) return usage_import_shards(), CLI_OK;
    if (o.nkeys != 1 || strcmp(o.keys[0], "-") == 0)
        return cli_error("import: --shards wants DIR and a STREAM file (read once per shard)");
    FILE *in = fopen(o.keys[0], "rb");
    if (!in) return cli_error("%s: cannot open", o.keys[0]);
    int rc = redis_shards_import(&o, in);
    fclose(in);
    return rc;
}

int cli_cmd_import(int argc, char **argv) {
    if (cli_given(argc, argv, "--shards")) return import_shards(argc, argv);
    files_opts o;
    if (!files_parse(argc, argv, FILES_OPT_FORCE | FILES_OPT_WAIT | FILES_OPT_IMPORT, &o))
        return CLI_ERROR;
    if (o.help) return usage_import(), CLI_OK;
    if (o.nkeys > 1) return cli_error("import: unexpected argument '%s'", o.keys[1]);
    const char *stream = o.nkeys == 1 ? o.keys[0] : "-";
    if (!files_may_replace(o.file, o.force)) return CLI_ERROR;
    FILE *in = strcmp(stream, "-") != 0 ? fopen(stream, "rb") : stdin;
    if (!in) return cli_error("%s: cannot open", stream);
    int rc = redis_io_import_key(in, o.redis_key, &o);
    if (in != stdin) fclose(in);
    return rc;
}
