/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cmd_export.c -- `cuckoo export`: a filter file as CF.LOADCHUNK commands
 * for a Redis key (redis_io.c), or with --shards, split into the shards of
 * a sharded filter for a Redis Cluster (redis_shards.c).
 */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cf_redis_dump.h"
#include "cli/cli.h"
#include "commands/commands.h"
#include "cuckoofilter.h"
#include "files/files.h"
#include "files/files_help.h"
#include "redis_io/redis_io.h"

#define IO_DEFAULT_CHUNK ((uint64_t)1 << 20)

static void usage_export(void) {
    fputs("usage: cuckoo export FILE KEY [options]\n"
          "Writes FILE as CF.LOADCHUNK commands for KEY (Redis protocol), for\n"
          "`redis-cli --pipe`.\n"
          "options:\n"
          "  --expansion E         the key's EXPANSION: 0 or a power of two up to " CFR_STR(
              CFR_MAX_EXPANSION) "\n"
                                 "                        (default 1)\n"
                                 "  --chunk-bytes N       bytes per chunk, 16..512 MiB (default 1 "
                                 "MiB)\n"
                                 "  --output OUT          write to OUT instead of stdout (all or "
                                 "nothing)\n"
                                 "  --shards S            split into a sharded filter's S shards, "
                                 "for a\n"
                                 "                        Redis Cluster (cuckoo export --shards 1 "
                                 "--help)\n" FORCE_HELP_OF("OUT") WAIT_HELP_OF("OUT") HELP_HELP,
          stdout);
}

static void usage_export_shards(void) {
    fputs("usage: cuckoo export FILE NAME --shards S --output-dir DIR [options] < keys\n"
          "Splits FILE, built from the keys given (stdin or --keys), into the S shards of\n"
          "the sharded filter NAME (docs/REDIS.md, \"Sharded filters\") and writes to DIR:\n"
          "  shard-K.resp  DEL and CF.LOADCHUNK commands of shard K's key, for\n"
          "                `redis-cli -h <the owner of its slot> --pipe`\n"
          "  shard-K.cf    shard K as a filter file\n"
          "  meta.resp     DEL and HSET of NAME's metadata: load it last\n"
          "  shards.tsv    shard, slot, key and stream of each shard, then a row\n"
          "                'meta' for the metadata (redis/load_sharded.sh loads them)\n"
          "A filter holds fingerprints, not keys: the split re-inserts the keys FILE was\n"
          "built from (each must be in FILE, and as many as FILE's items).\n"
          "options:\n"
          "  --shards S            number of shards, 1..1024\n"
          "  --output-dir DIR      where the streams and files go (created if absent;\n"
          "                        written all or nothing)\n"
          "  --routing-seed N      the routing hash's seed (default 0x6366726f75746531);\n"
          "                        must differ from FILE's seed\n"
          "  --expansion E         each shard key's EXPANSION (default 1)\n"
          "  --chunk-bytes N       bytes per chunk, 16..512 MiB (default 1 MiB)\n" KEYS_HELP
              FORCE_HELP_OF("export in DIR") WAIT_HELP_OF("files of DIR") HELP_HELP,
          stdout);
}

static int export_shards(int argc, char **argv) {
    files_opts o;
    if (!files_parse(argc, argv,
                     FILES_OPT_KEYS | FILES_OPT_EXPORT | FILES_OPT_SHARDS | FILES_OPT_FORCE |
                         FILES_OPT_WAIT,
                     &o))
        return CLI_ERROR;
    if (o.help) return usage_export_shards(), CLI_OK;
    if (o.nkeys != 1)
        return cli_error("export: --shards wants FILE and NAME, then keys on stdin or --keys");
    if (o.shards == 0 || o.output_dir == NULL)
        return cli_error("export: --shards wants a number of shards and --output-dir DIR");
    if (o.output) return cli_error("export: --shards writes into --output-dir, not --output");
    cf_filter *f = files_map(o.file);
    cf_stats st;
    if (f != NULL && cf_get_stats(f, &st) == CF_OK && st.expire_after != 0) {
        cf_free(f);
        return cli_error("export: %s expires its items in seconds, and Redis keys count "
                         "milliseconds: an expiring file cannot become a key yet (create it "
                         "with CF.RESERVE ... EXPIRE)",
                         o.file);
    }
    int rc = f ? redis_shards_export(&o, f) : CLI_ERROR;
    cf_free(f);
    return rc;
}

/* --output OUT: a regular file (or none yet) is written all or nothing, as
 * a filter file is (a failed export leaves OUT as it was; --force to
 * replace one); a FIFO or device is a stream, written as it comes. */
static int export_to(const files_opts *o, const cf_filter *f, const char *key, uint32_t expansion,
                     size_t chunk) {
    struct stat st;
    if (stat(o->output, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        FILE *out = fopen(o->output, "wb");
        if (!out) return cli_error("%s: cannot open for writing", o->output);
        int rc = redis_io_export_filter(f, key, expansion, chunk, out);
        bool failed = ferror(out) != 0; /* fclose may not say it again */
        if (fclose(out) != 0 || failed) rc = cli_error("%s: write failed", o->output);
        return rc;
    }
    files_set *set = files_set_new(o->force, o->wait_ms);
    int at = set ? files_set_add(set, o->output) : -1;
    FILE *out = at >= 0 && files_set_lock(set) ? files_set_open(set, at) : NULL;
    int rc = CLI_ERROR;
    if (out) {
        rc = redis_io_export_filter(f, key, expansion, chunk, out);
        if (!files_set_close(set, at, out)) rc = CLI_ERROR;
        if (rc == CLI_OK && !files_set_commit(set)) rc = CLI_ERROR;
    }
    files_set_free(set);
    return rc;
}

int cli_cmd_export(int argc, char **argv) {
    if (cli_given(argc, argv, "--shards")) return export_shards(argc, argv);
    files_opts o;
    if (!files_parse(argc, argv, FILES_OPT_EXPORT | FILES_OPT_FORCE | FILES_OPT_WAIT, &o))
        return CLI_ERROR;
    if (o.help) return usage_export(), CLI_OK;
    if (o.nkeys != 1)
        return o.nkeys == 0 ? cli_error("export: wants FILE and KEY (see --help)")
                            : cli_error("export: unexpected argument '%s'", o.keys[1]);
    const char *output = o.output, *key = o.keys[0];
    uint32_t expansion = o.has_expansion ? o.expansion : 1;
    uint64_t chunk = o.chunk_bytes ? o.chunk_bytes : IO_DEFAULT_CHUNK;
    if (!output && isatty(STDOUT_FILENO))
        return cli_error("export: refusing to write binary data to a terminal "
                         "(pipe it to redis-cli --pipe, or use --output)");
    /* Mapped: chunks are read from the file in place, with no second copy. */
    cf_filter *f = files_map(o.file);
    if (f == NULL) return CLI_ERROR;
    cf_stats st;
    cf_get_stats(f, &st);
    /* An expiring file's clock counts seconds, a key's milliseconds, and
     * its stamps do not rescale exactly (redis_io.c's import says so too). */
    if (st.expire_after != 0) {
        cf_free(f);
        return cli_error("export: %s expires its items in seconds, and Redis keys count "
                         "milliseconds: an expiring file cannot become a key yet (create it "
                         "with CF.RESERVE ... EXPIRE)",
                         o.file);
    }
    /* A grown file keeps growing by its own factor: that is the key's
     * EXPANSION (the module refuses any other).  One that grows in place
     * doubles (growth 2): the module loads it as a GROWTH INPLACE key. */
    if (st.flags & CF_GROW) {
        if (o.has_expansion && expansion != st.growth) {
            cf_free(f);
            return cli_error("export: %s grows by %u; --expansion must be that or absent", o.file,
                             st.growth);
        }
        expansion = st.growth;
    }
    int rc = output ? export_to(&o, f, key, expansion, (size_t)chunk)
                    : redis_io_export_filter(f, key, expansion, (size_t)chunk, stdout);
    cf_free(f);
    return rc;
}
