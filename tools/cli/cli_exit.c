/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cli_exit.c -- what the `cuckoo` process sets up before a command runs and
 * checks after it: a file-size limit is an error, not a kill, and so is an
 * answer that could not be written. */
#include "cli/cli.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

void cli_setup(void) {
    /* A write past `ulimit -f` then fails with EFBIG, and cf_save removes its
     * temporary file and reports it, instead of SIGXFSZ killing the process. */
    signal(SIGXFSZ, SIG_IGN);
}

int cli_finish(int rc) {
    /* Flushed here rather than by exit(), whose errors nobody sees: a full
     * disk or a closed stdout must not pass for a complete answer. */
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return rc;
    if (errno != 0)
        cli_error("cannot write to standard output: %s", strerror(errno));
    else
        cli_error("cannot write to standard output");
    return CLI_ERROR;
}
