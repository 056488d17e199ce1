/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cuckoo.c -- the `cuckoo` command: dispatches to one subcommand per file. */
#include "cli/cli.h"
#include "commands/commands.h"

#include <stdio.h>
#include <string.h>

#include "cuckoofilter.h"

typedef struct cli_command {
    const char *name;
    cli_command_fn run;
    const char *summary;
} cli_command;

static const cli_command commands[] = {
    {"report", cli_cmd_report, "reproduce the article's experiment (tables, CSV, plots)"},
    {"create", cli_cmd_create, "create an empty filter file"},
    {"add", cli_cmd_add, "add keys to a filter file"},
    {"query", cli_cmd_query, "ask whether keys are in a filter file"},
    {"delete", cli_cmd_delete, "remove keys from a filter file"},
    {"count", cli_cmd_count, "count the copies of a key in a filter file"},
    {"build", cli_cmd_build, "build a filter file from a stream of keys"},
    {"info", cli_cmd_info, "describe and verify a filter file"},
    {"merge", cli_cmd_merge, "merge filter files built apart into one"},
    {"export", cli_cmd_export, "write a filter file as CF.LOADCHUNK commands for Redis"},
    {"import", cli_cmd_import, "write a filter file from a key's CF.LOADCHUNK commands"},
};

static void usage(FILE *out) {
    fprintf(out, "usage: cuckoo <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'cuckoo help <command>' or 'cuckoo <command> --help' lists a command's "
                 "options;\n'man cuckoo' describes them all.\n");
}

static int run(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return CLI_ERROR;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(argv[1], "help") == 0) {
        if (argc < 3) {
            usage(stdout);
            return CLI_OK;
        }
        /* "cuckoo help CMD" is "cuckoo CMD --help". */
        char *help_argv[] = {argv[2], "--help", NULL};
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (strcmp(argv[2], commands[i].name) == 0) return commands[i].run(2, help_argv);
        fprintf(stderr, "cuckoo: help: unknown command '%s'\n", argv[2]);
        usage(stderr);
        return CLI_ERROR;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("cuckoo %s\n", cf_version_string());
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "cuckoo: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return CLI_ERROR;
}

int main(int argc, char **argv) {
    cli_setup();
    return cli_finish(run(argc, argv));
}
