/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cli_util.c -- strict number parsing for the commands' options. */
#include "cli/cli.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every option's value is read the same way: blanks around it are ignored
 * (a shell variable with a stray space should not change the meaning), and
 * nothing else may follow the number.  Copies the trimmed value to buf. */
static bool trimmed(const char *s, char *buf, size_t cap) {
    if (s == NULL) return false;
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) n--;
    if (n == 0 || n >= cap) return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return true;
}

/* 2^53: every integer up to here is exact in a double. */
#define CLI_EXACT_DOUBLE 9007199254740992.0

bool cli_parse_u64(const char *s, uint64_t *out) {
    char v[64];
    if (!trimmed(s, v, sizeof v) || v[0] < '0' || v[0] > '9') return false; /* no sign */
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno == 0 && *end == '\0') {
        *out = (uint64_t)n;
        return true;
    }
    /* 2e6, 2.5M, 10k: a decimal number (no hexadecimal: counts of items are
     * decimal), then at most one SI suffix, written as the exponent it
     * stands for so that one correctly rounded strtod reads the value
     * ("4.1M" is 4.1e6 exactly; 4.1 * 1e6 is not).  Must be a whole number. */
    static const char suffixes[] = "kMGT";
    size_t len = strlen(v);
    const char *suffix = strchr(suffixes, v[len - 1]);
    if (suffix != NULL && *suffix != '\0') {
        if (len + 3 >= sizeof v) return false;
        snprintf(v + len - 1, sizeof v - (len - 1), "e%d", 3 * (int)(suffix - suffixes + 1));
    }
    if (strspn(v, "0123456789.eE+-") != strlen(v)) return false;
    double d = strtod(v, &end);
    if (*end != '\0' || !(d >= 0) || d > CLI_EXACT_DOUBLE || d != floor(d)) return false;
    *out = (uint64_t)d;
    return true;
}

bool cli_parse_unsigned(const char *s, unsigned min, unsigned max, unsigned *out) {
    uint64_t v;
    if (!cli_parse_u64(s, &v) || v < min || v > max) return false;
    *out = (unsigned)v;
    return true;
}

bool cli_parse_double(const char *s, double *out) {
    char v[64];
    if (!trimmed(s, v, sizeof v)) return false;
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    /* ERANGE on a nonzero result is a subnormal (5e-324): a number all the
     * same, which the option's own check judges; on zero or HUGE_VAL the
     * value is out of a double's range. */
    if ((errno != 0 && !(errno == ERANGE && d != 0 && isfinite(d))) || *end != '\0' || !isfinite(d))
        return false;
    *out = d;
    return true;
}

const char *cli_number_hint(const char *s) {
    if (s != NULL && (strchr(s, ',') != NULL || strchr(s, '_') != NULL || strchr(s, '\'') != NULL))
        return " (no digit separators: write 2000000, 2e6 or 2M)";
    uint64_t v;
    if (cli_parse_u64(s, &v)) return "";
    /* A number, but not one a 64-bit count holds: say which bound. */
    double d;
    if (cli_parse_double(s, &d) && d < 0) return " (a count is not negative)";
    if (cli_parse_double(s, &d) && d >= 18446744073709551616.0)
        return " (the largest is 18446744073709551615, about 1.8e19)";
    return " (write 2000000, 2e6 or 2M)";
}
