/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cli_base.c -- error messages and number printing for the `cuckoo` program. */
#include "cli_base.h"

#include <stdarg.h>
#include <stdio.h>

int cli_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("cuckoo: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CLI_ERROR;
}

const char *cli_thousands(uint64_t n, char *buf, size_t cap) {
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
    size_t at = 0;
    for (int i = 0; i < len && at + 1 < cap; i++) {
        if (i > 0 && (len - i) % 3 == 0 && at + 2 < cap) buf[at++] = ',';
        buf[at++] = digits[i];
    }
    buf[at < cap ? at : cap - 1] = '\0';
    return buf;
}
