/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * files_help.h -- the help-text lines of options that several commands
 * take (the cmd_*.c of the filter-file commands), written once so that an
 * option is described the same way by every command that accepts it.
 * Column 25 starts the description, as in every help text.
 */
#ifndef CF_FILES_HELP_H
#define CF_FILES_HELP_H

/* The options of create and build that shape the table. */
#define SHAPE_HELP                                                                      \
    "  --capacity N          items the filter must hold (2000000, 2e6 or 2M)\n"         \
    "  --fpp P               false-positive rate wanted at full load (default 0.001)\n" \
    "  --fingerprint-bits F  fingerprint width, 1..32 bits (instead of --fpp)\n"        \
    "  --bucket-size B       slots per bucket: 1, 2, 4 or 8 (default 4)\n"              \
    "  --buckets NB          exactly NB buckets (instead of sizing from --capacity)\n"  \
    "  --max-kicks K         eviction budget per insert, 1..65535 (default 500)\n"      \
    "  --seed S              hash seed; filters to merge need the same (default 0)\n"   \
    "  --semi-sort           one bit less per item (bucket size 4, 5..16-bit widths)\n"

/* Where keys come from, for every command that reads keys. */
#define KEYS_HELP                                                                      \
    "  --keys FILE           read keys from FILE (- for stdin) instead of arguments\n" \
    "  -0                    keys end with NUL, not newline (find -print0, xargs -0)\n"
#define KEYS_RULE                                                                  \
    "Keys: each KEY argument, else one per line of --keys FILE or stdin; a \\r\n"  \
    "before the \\n is dropped and blank lines are skipped.  With -0 every byte\n" \
    "counts and an empty record is the empty key (as is an argument '').\n"
#define HELP_HELP "  -h, --help            show this help\n"

/* The writers' options; F names the file written in the command's usage
 * line (FILE, OUT). */
#define FORCE_HELP_OF(F) "  --force               replace an existing " F " (a regular file only)\n"
#define WAIT_HELP_OF(F)                                                                     \
    "  --wait SECONDS        give up after waiting that long for another writer of " F "\n" \
    "                        (default: wait as long as it takes)\n"                         \
    "  --no-wait             fail at once if another writer holds " F "\n"
/* An expiring filter's options. */
#define EXPIRE_HELP                                                                    \
    "  --expire DURATION     items expire that long after they were added: seconds,\n" \
    "                        or 90m, 24h, 7d (not with --grow or --semi-sort)\n"
#define AT_HELP                                                                        \
    "  --at TIME             an expiring filter's clock: TIME in seconds since 1970\n" \
    "                        (date +%s), instead of the wall clock\n"
#define FORCE_HELP FORCE_HELP_OF("FILE")
#define WAIT_HELP WAIT_HELP_OF("FILE")

#endif /* CF_FILES_HELP_H */
