/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * commands.h -- the `cuckoo` commands: cuckoo.c's table names each, and each
 * is defined in its cmd_<name>.c (which includes this, so a definition that
 * does not match the table's signature fails to compile).
 */
#ifndef CF_COMMANDS_H
#define CF_COMMANDS_H

/* A command: argv[0] is the command's name.  Returns an exit code (CLI_OK,
 * CLI_NOT_FOUND, CLI_ERROR: cli_base.h). */
typedef int (*cli_command_fn)(int argc, char **argv);

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

#endif /* CF_COMMANDS_H */
