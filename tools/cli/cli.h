/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cli.h -- what every `cuckoo` command is built on (tools/cli/): strict
 * number parsing, the option parser and its table of the options that shape
 * a table, and what the process does around a command; with cli_base.h's
 * exit codes and messages, which the report's experiment shares.
 */
#ifndef CF_CLI_H
#define CF_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli_base.h"
#include "cuckoofilter.h"

/* cli_exit.c: cli_setup runs before a command (SIGXFSZ ignored: writes past
 * a file-size limit fail with EFBIG); cli_finish(rc) after it flushes stdout
 * and returns CLI_ERROR, with a message, if stdout could not be written. */
void cli_setup(void);
int cli_finish(int rc);

/* Strict parsers: the whole string, blanks around it aside, must be a number
 * in range; false otherwise.  Integers may be written 2000000, 2e6 or 2M
 * (suffixes k, M, G, T: powers of 1000) when the value is whole. */
bool cli_parse_u64(const char *s, uint64_t *out);
bool cli_parse_unsigned(const char *s, unsigned min, unsigned max, unsigned *out);
bool cli_parse_double(const char *s, double *out);
/* How to write the number s failed to be, for the end of its message:
 * " (no digit separators: ...)" when s looks like 2,000,000; "" when s is a
 * number (then only its range was wrong). */
const char *cli_number_hint(const char *s);

/* cli_opts.c: the one option parser.  A command lists its options in
 * tables; an option is a switch (CLI_SWITCH: "--name" alone), takes a value
 * (CLI_VALUE: "--name value" or "--name=value"), or is a switch that may
 * also be given one (CLI_EQUALS: "--name" or "--name=value", as --grow).
 * set stores the value (NULL for a switch) in the field at offset in the
 * table's ctx (offset 0 and the whole struct when the option fills several
 * fields); it returns false after printing "--name wants ..., not '...'"
 * (cli_error). */
typedef enum cli_arg { CLI_SWITCH, CLI_VALUE, CLI_EQUALS } cli_arg;
typedef struct cli_option {
    const char *name;
    cli_arg arg;
    bool (*set)(void *field, const char *value);
    size_t offset;
} cli_option;
/* A table and the struct its options write. */
typedef struct cli_options {
    const cli_option *opt;
    size_t n;
    void *ctx;
} cli_options;

/* The setter of a bool switch: sets it to true. */
bool cli_set_flag(void *field, const char *value);

/* Reads argv[1..argc-1] (argv[0] is the command's name) against the
 * tables, in order.  Positionals (an argument not starting with '-', "-"
 * itself, and every argument after "--") are moved, in order, to
 * argv[1..*npos]: options may come anywhere before "--".  "-h" or "--help"
 * sets *help and stops.  Returns false after printing one line: "--x needs
 * a value", "CMD: unknown option '--x' (see --help)", or a setter's. */
bool cli_parse(int argc, char **argv, const cli_options *tables, size_t ntables, int *npos,
               bool *help);

/* True when argv holds name ("--name" or "--name=...") before any "--": for
 * an option that selects another form of a command, with its own table
 * (export --shards). */
bool cli_given(int argc, char **argv, const char *name);

/* The options that shape a table, which report and the filter-file
 * commands both take (--fingerprint-bits, --bucket-size, --buckets,
 * --max-kicks, --seed, --semi-sort), as a table writing cfg. */
cli_options cli_table_options(cf_config *cfg);

#endif /* CF_CLI_H */
