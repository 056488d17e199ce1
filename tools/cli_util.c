/* cli_util.c -- error reporting and strict number parsing for the CLI. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int cli_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("cuckoo: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CLI_ERROR;
}

bool cli_parse_u64(const char *s, uint64_t *out) {
    if (s == NULL || *s < '0' || *s > '9') return false; /* no sign, no blanks */
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0') return false;
    *out = (uint64_t)v;
    return true;
}

bool cli_parse_unsigned(const char *s, unsigned min, unsigned max, unsigned *out) {
    uint64_t v;
    if (!cli_parse_u64(s, &v) || v < min || v > max) return false;
    *out = (unsigned)v;
    return true;
}

bool cli_parse_double(const char *s, double *out) {
    if (s == NULL || *s == '\0') return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || *end != '\0' || !isfinite(v)) return false;
    *out = v;
    return true;
}
