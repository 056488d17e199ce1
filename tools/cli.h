/*
 * cli.h -- what the `cuckoo` commands, and the report (experiment/), share:
 * the command table's entry signature, exit codes, messages, strict number
 * parsing and the option parser (the library cuckoo_cli).
 */
#ifndef CF_CLI_H
#define CF_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuckoofilter.h"

/* Exit codes of every subcommand. */
enum { CLI_OK = 0, CLI_NOT_FOUND = 1, CLI_ERROR = 2 };

/* A subcommand: argv[0] is the subcommand's name. Returns an exit code. */
typedef int (*cli_command_fn)(int argc, char **argv);

/* Prints "cuckoo: <message>" on stderr and returns CLI_ERROR. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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

/* Writes n with thousands separators ("1,000,000") for people to read;
 * returns buf (so it can be an argument of printf). */
const char *cli_thousands(uint64_t n, char *buf, size_t cap);

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

/* The commands of cuckoo.c's table, each in its cmd_<name>.c. */
int cli_cmd_report(int argc, char **argv);
int cli_cmd_create(int argc, char **argv);
int cli_cmd_add(int argc, char **argv);
int cli_cmd_query(int argc, char **argv);
int cli_cmd_delete(int argc, char **argv);
int cli_cmd_count(int argc, char **argv);
int cli_cmd_build(int argc, char **argv);
int cli_cmd_info(int argc, char **argv);
int cli_cmd_merge(int argc, char **argv);
int cli_cmd_export(int argc, char **argv);
int cli_cmd_import(int argc, char **argv);

#endif /* CF_CLI_H */
