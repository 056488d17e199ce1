/*
 * cli.h -- what the `cuckoo` subcommands share: the command table's entry
 * signature, exit codes, and strict argument parsing.
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

/* cli_opts.c: the one spelling of an option.  cli_flag_value returns the
 * value of argv[*i] when it is "--name value" (advancing *i) or
 * "--name=value"; NULL when it is not --name, and then sets *missing (never
 * clears it) when it is --name last, with no value.  cli_table_flag reads
 * argv[*i] into cfg when it is one of the options that shape a table
 * (--fingerprint-bits, --bucket-size, --buckets, --max-kicks, --seed,
 * --semi-sort), setting *matched when it is; it returns false after
 * printing "--x needs a value" or "--x wants ..., not '...'". */
const char *cli_flag_value(int argc, char **argv, int *i, const char *name, bool *missing);
bool cli_table_flag(int argc, char **argv, int *i, cf_config *cfg, bool *matched);

/* Subcommands: `report` in cmd_report.c, the filter-file commands in cmd_files.c. */
int cli_cmd_report(int argc, char **argv); /* cmd_report.c */
int cli_cmd_create(int argc, char **argv); /* cmd_files.c: filter files */
int cli_cmd_add(int argc, char **argv);
int cli_cmd_query(int argc, char **argv);
int cli_cmd_delete(int argc, char **argv);
int cli_cmd_count(int argc, char **argv);
int cli_cmd_build(int argc, char **argv);
int cli_cmd_info(int argc, char **argv);
int cli_cmd_merge(int argc, char **argv);  /* cmd_merge.c */
int cli_cmd_export(int argc, char **argv); /* cmd_redis_io.c: the Redis module's dumps */
int cli_cmd_import(int argc, char **argv);

#endif /* CF_CLI_H */
