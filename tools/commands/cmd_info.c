/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cmd_info.c -- `cuckoo info`: describe a filter file and verify its
 * checksum and table.
 */
#include <stdio.h>

#include "cli/cli.h"
#include "commands/commands.h"
#include "files/files.h"
#include "files/files_help.h"

static void usage(void) {
    fputs("usage: cuckoo info FILE [--json]\n"
          "Prints every parameter and statistic, and verifies the checksum.\n"
          "Exit 2 when the file fails verification.\n"
          "options:\n"
          "  --json                print one JSON object\n" HELP_HELP,
          stdout);
}

/* A grown filter's tables (cf_table_stats), oldest first, one line each or
 * as a JSON array. */
static void print_tables(const cf_filter *f, unsigned n, bool json) {
    if (json) printf(", \"tables\": [");
    for (unsigned k = 0; k < n; k++) {
        cf_stats t;
        if (cf_table_stats(f, k, &t) != CF_OK) break;
        if (json)
            printf("%s{\"items\": %llu, \"num_buckets\": %llu, \"fingerprint_bits\": %u, "
                   "\"semi_sorted\": %s, \"load_factor\": %.6f, \"table_bytes\": %zu, "
                   "\"expected_fpp\": %.6g, \"fpp_bound\": %.6g}",
                   k ? ", " : "", (unsigned long long)t.items, (unsigned long long)t.num_buckets,
                   t.fingerprint_bits, (t.flags & CF_SEMI_SORT) ? "true" : "false", t.load_factor,
                   t.table_bytes, t.expected_fpp, t.fpp_bound);
        else
            printf("  table %-2u        %llu items, %llu buckets, %u bits%s, load %.4f, "
                   "%zu bytes, fpp %.3g (%.3g full)\n",
                   k, (unsigned long long)t.items, (unsigned long long)t.num_buckets,
                   t.fingerprint_bits, (t.flags & CF_SEMI_SORT) ? " semi-sorted" : "",
                   t.load_factor, t.table_bytes, t.expected_fpp, t.fpp_bound);
    }
    if (json) printf("]");
}

/* cf_stats.growth_limit in words, by its value: JSON's name, and the
 * text's reason. */
static const struct {
    const char *name, *text;
} growth_limits[] = {
    [CF_GROWTH_OPEN] = {"open", "can grow"},
    [CF_GROWTH_LIMIT_BYTES] = {"max_bytes", "cannot grow: max bytes reached"},
    [CF_GROWTH_LIMIT_TABLES] = {"tables", "cannot grow: the most tables it may hold"},
    [CF_GROWTH_LIMIT_FPP] = {"fpp", "cannot grow: growing could pass the target FPP"},
    [CF_GROWTH_LIMIT_SIZE] = {"size", "cannot grow: the largest size it can address"},
};

static const char *growth_limit_name(unsigned limit) {
    return limit < sizeof growth_limits / sizeof growth_limits[0] ? growth_limits[limit].name
                                                                  : "unknown";
}

static const char *growth_limit_text(unsigned limit) {
    return limit < sizeof growth_limits / sizeof growth_limits[0] ? growth_limits[limit].text
                                                                  : "unknown";
}

int cli_cmd_info(int argc, char **argv) {
    files_opts o;
    if (!files_parse(argc, argv, FILES_OPT_JSON, &o)) return CLI_ERROR;
    if (o.help) return usage(), CLI_OK;
    if (o.nkeys > 0) return cli_error("info: unexpected argument '%s'", o.keys[0]);
    cf_status verified;
    cf_filter *f = files_map_checked(o.file, &verified);
    if (f == NULL) return CLI_ERROR;
    /* A mapped file is exactly its serialized form (cf_map refuses trailing
     * bytes), so its length is asked of the handle, not of the file again. */
    unsigned long long size = cf_serialized_size(f);
    cf_stats st;
    cf_get_stats(f, &st);
    double bytes_per_item = st.items ? (double)size / (double)st.items : 0.0;
    const char *check = verified == CF_OK ? "ok" : cf_strerror(verified);

    if (o.json) {
        printf("{\"file\": ");
        files_json_string(stdout, o.file);
        printf(", \"kind\": \"%s\"", cf_kind_name(f));
        printf(", \"format_version\": %u, \"file_bytes\": %llu, \"items\": %llu, "
               "\"num_buckets\": %llu, \"bucket_size\": %u, \"slots\": %llu, "
               "\"fingerprint_bits\": %u, \"semi_sorted\": %s, \"load_factor\": %.6f, "
               "\"bits_per_item\": %.4f, "
               "\"file_bytes_per_item\": %.4f, \"expected_fpp\": %.6g, \"table_bytes\": %zu, "
               "\"max_kicks\": %u, \"seed\": %llu, \"flags\": %u, \"total_kicks\": %llu, "
               "\"failed_inserts\": %llu, \"checksum_ok\": %s, \"verification\": ",
               st.format_version, size, (unsigned long long)st.items,
               (unsigned long long)st.num_buckets, st.bucket_size, (unsigned long long)st.slots,
               st.fingerprint_bits, (st.flags & CF_SEMI_SORT) ? "true" : "false", st.load_factor,
               st.bits_per_item, bytes_per_item, st.expected_fpp, st.table_bytes, st.max_kicks,
               (unsigned long long)st.seed, st.flags, (unsigned long long)st.total_kicks,
               (unsigned long long)st.failed_inserts, verified == CF_OK ? "true" : "false");
        files_json_string(stdout, check);
        if (st.flags & CF_GROW) {
            printf(", \"growth\": %u, \"max_bytes\": %llu, \"target_fpp\": %.6g, "
                   "\"fpp_bound\": %.6g, \"growth_mode\": \"%s\", \"doublings\": %llu, "
                   "\"growth_limit\": \"%s\"",
                   st.growth, (unsigned long long)st.max_bytes, st.target_fpp, st.fpp_bound,
                   st.growth_mode == CF_GROWTH_INPLACE ? "inplace" : "chain",
                   (unsigned long long)st.doublings, growth_limit_name(st.growth_limit));
            print_tables(f, st.tables, true);
        }
        if (st.expire_after != 0)
            printf(", \"expire_after\": %llu, \"expire_span\": %llu, \"stamps\": %u, "
                   "\"stamp_bits\": %u, \"clock\": %llu",
                   (unsigned long long)st.expire_after, (unsigned long long)st.expire_span,
                   st.stamps, st.stamp_bits, (unsigned long long)st.now);
        printf("}\n");
    } else {
        printf("file              %s\n", o.file);
        printf("kind              %s\n", cf_kind_name(f));
        printf("format version    %u\n", st.format_version);
        printf("file bytes        %llu\n", size);
        printf("items             %llu\n", (unsigned long long)st.items);
        printf("buckets           %llu\n", (unsigned long long)st.num_buckets);
        printf("bucket size       %u\n", st.bucket_size);
        printf("slots             %llu\n", (unsigned long long)st.slots);
        printf("fingerprint bits  %u%s\n", st.fingerprint_bits,
               (st.flags & CF_SEMI_SORT) ? " (semi-sorted: one bit less each in the table)" : "");
        printf("load factor       %.4f\n", st.load_factor);
        printf("bits per item     %.2f (table), %.2f (file)\n", st.bits_per_item,
               8 * bytes_per_item);
        printf("expected fpp      %.3g (now); %.3g at full load\n", st.expected_fpp, st.fpp_bound);
        printf("table bytes       %zu\n", st.table_bytes);
        printf("max kicks         %u\n", st.max_kicks);
        printf("seed              %llu\n", (unsigned long long)st.seed);
        printf("flags             %u\n", st.flags);
        printf("total kicks       %llu\n", (unsigned long long)st.total_kicks);
        printf("failed inserts    %llu\n", (unsigned long long)st.failed_inserts);
        printf("checksum          %s\n", check);
        if (st.flags & CF_GROW && st.growth_mode == CF_GROWTH_INPLACE) {
            printf("growth            in place: %llu doublings (FPP bound %.3g < target %.3g, "
                   "max bytes %llu); %s\n",
                   (unsigned long long)st.doublings, st.fpp_bound, st.target_fpp,
                   (unsigned long long)st.max_bytes, growth_limit_text(st.growth_limit));
        } else if (st.flags & CF_GROW) {
            printf("tables            %u (growth %u, FPP bound %.3g < target %.3g, max bytes "
                   "%llu); %s\n",
                   st.tables, st.growth, st.fpp_bound, st.target_fpp,
                   (unsigned long long)st.max_bytes, growth_limit_text(st.growth_limit));
            print_tables(f, st.tables, false);
        }
        if (st.expire_after != 0) {
            printf("expires after     %llu s (%u stamps of %llu s, %u bits each; an item is gone\n"
                   "                  %llu s after its last add at most)\n",
                   (unsigned long long)st.expire_after, st.stamps,
                   (unsigned long long)st.expire_span, st.stamp_bits,
                   (unsigned long long)((st.stamps + 1) * st.expire_span));
            printf("clock             %llu (the file's: the last write)\n",
                   (unsigned long long)st.now);
        }
    }
    cf_free(f);
    if (verified == CF_OK) return CLI_OK;
    fflush(stdout); /* the description before the error, where both reach one terminal */
    return cli_error("%s: %s", o.file, check);
}
