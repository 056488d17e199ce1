/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * fuzz_replay.c -- a plain main() for the fuzz targets (no libFuzzer): runs
 * each file named, and each file in each directory named, through
 * LLVMFuzzerTestOneInput.  CTest runs the committed corpus this way with gcc
 * or clang, so every input the fuzzers found interesting stays a test.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        fprintf(stderr, "fuzz_replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    size_t n;
    while (buf != NULL && (n = fread(buf + len, 1, cap - len, fp)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *p = realloc(buf, cap *= 2);
            if (p == NULL) free(buf);
            buf = p;
        }
    }
    fclose(fp);
    if (buf == NULL) return 1;
    /* An exact-size copy, as libFuzzer gives, so over-reads are caught. */
    uint8_t *exact = malloc(len ? len : 1);
    if (exact == NULL) return free(buf), 1;
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file in dir, in name order; returns the count or -1. */
static long run_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) return -1;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) names = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
        if (names == NULL) return closedir(d), -1;
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n > 0) qsort(names, n, sizeof *names, cmp_names);
    long ran = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && run_file(path) == 0) ran++;
        free(names[i]);
    }
    free(names);
    return ran;
}

int main(int argc, char **argv) {
    long total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "fuzz_replay: %s does not exist\n", argv[i]);
            return 1;
        }
        long n = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]) == 0;
        if (n < 0) return 1;
        total += n;
    }
    printf("%ld inputs replayed without a failure\n", total);
    return 0;
}
