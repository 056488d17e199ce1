/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cli_base.h -- what the two parts of the `cuckoo` program, its commands
 * (tools/) and the article's experiment that `cuckoo report` runs
 * (experiment/), print and exit through: the exit codes, the one shape of
 * an error message, and numbers for people to read (the library
 * cuckoo_cli_base).  Neither part's own code: each includes this, and
 * neither includes the other's headers for it.
 */
#ifndef CF_CLI_BASE_H
#define CF_CLI_BASE_H

#include <stddef.h>
#include <stdint.h>

/* Exit codes of every subcommand. */
enum { CLI_OK = 0, CLI_NOT_FOUND = 1, CLI_ERROR = 2 };

/* Prints "cuckoo: <message>" on stderr and returns CLI_ERROR. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Writes n with thousands separators ("1,000,000") for people to read;
 * returns buf (so it can be an argument of printf). */
const char *cli_thousands(uint64_t n, char *buf, size_t cap);

#endif /* CF_CLI_BASE_H */
