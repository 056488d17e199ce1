/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* files_util.c -- opening, mapping and saving filter files with one-line
 * messages, and a clear error instead of a crash (SIGBUS) when another
 * program truncates a mapped file in place; JSON strings. */
#define _POSIX_C_SOURCE 200809L

#include "files/files.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

const char *files_not_regular(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode)) return NULL;
    if (S_ISDIR(st.st_mode)) return "is a directory";
    if (S_ISCHR(st.st_mode)) return "is a character device";
    if (S_ISBLK(st.st_mode)) return "is a block device";
    if (S_ISFIFO(st.st_mode)) return "is a FIFO";
    if (S_ISSOCK(st.st_mode)) return "is a socket";
    return "is not a regular file";
}

/* The library reports CF_E_IO without errno; the system call that failed
 * usually left its reason there, which says more ("No such file ...").  A
 * directory or a device fails in ways ("input/output error", "truncated")
 * that hide the real mistake, so that is named first. */
static void open_error(const char *path, const char *shown, cf_status s, int err) {
    const char *what = files_not_regular(path);
    if (what != NULL)
        cli_error("%s %s, not a regular file (not a filter file)", shown, what);
    else if (s == CF_E_IO && err != 0)
        cli_error("%s: %s", shown, strerror(err));
    else
        cli_error("%s: %s", shown, cf_strerror(s));
}

static cf_filter *load_as(const char *path, const char *shown) {
    cf_filter *f = NULL;
    errno = 0;
    cf_status s = cf_load(path, NULL, &f);
    if (s != CF_OK) open_error(path, shown, s, errno);
    return f;
}

cf_filter *files_load(const char *path) {
    return load_as(path, path);
}

cf_filter *files_load_locked(const cf_file_lock *l, const char *shown) {
    return load_as(cf_file_lock_path(l), shown);
}

uint64_t files_clock(const files_opts *o) {
    if (o->has_at) return o->at;
    time_t now = time(NULL);
    return now > 0 ? (uint64_t)now : 0;
}

bool files_set_clock(cf_filter *f, const files_opts *o, const char *shown) {
    cf_stats st;
    cf_get_stats(f, &st);
    if (st.expire_after == 0) {
        if (o->has_at)
            return cli_error("--at: %s does not expire (create it with --expire)", shown), false;
        return true;
    }
    uint64_t now = files_clock(o);
    cf_status s = cf_set_time(f, now);
    if (s == CF_E_INVAL)
        return cli_error("%s: its clock is at %llu, after %llu: time never runs backwards "
                         "(give a later --at)",
                         shown, (unsigned long long)st.now, (unsigned long long)now),
               false;
    if (s != CF_OK) return cli_error("%s: %s", shown, cf_strerror(s)), false;
    return true;
}

cf_filter *files_open_now(const files_opts *o) {
    cf_filter *f = files_map(o->file);
    if (f == NULL) return NULL;
    cf_stats st;
    cf_get_stats(f, &st);
    if (st.expire_after == 0 && !o->has_at) return f;
    cf_free(f);
    if ((f = files_load(o->file)) == NULL) return NULL;
    if (!files_set_clock(f, o, o->file)) return cf_free(f), NULL;
    return f;
}

cf_filter *files_map(const char *path) {
    cf_filter *f = NULL;
    errno = 0;
    cf_status s = cf_map(path, NULL, false, &f);
    if (s != CF_OK)
        open_error(path, path, s, errno);
    else
        files_guard_mapping(path);
    return f;
}

cf_filter *files_map_checked(const char *path, cf_status *verified) {
    cf_filter *f = NULL;
    *verified = cf_map(path, NULL, true, &f);
    if (*verified == CF_OK) {
        files_guard_mapping(path);
        return f;
    }
    /* The public API verifies only while mapping: a file that fails is
     * mapped again with the header checks alone, so that a damaged table
     * can still be described (and one that cannot be mapped is reported). */
    return files_map(path);
}

/* cf_save, or with l cf_save_locked, with the error printed naming shown. */
static bool save_as(const cf_filter *f, const cf_file_lock *l, const char *path,
                    const char *shown) {
    const char *what = files_not_regular(path);
    if (what != NULL)
        return cli_error("%s %s, not a regular file; nothing written", shown, what), false;
    errno = 0;
    cf_status s = l != NULL ? cf_save_locked(f, l) : cf_save(f, path);
    int err = errno;
    if (s == CF_E_LOCKED && l != NULL)
        cli_error("%s: its lock file was removed or replaced while this command held it "
                  "(another writer may be saving); nothing written: run the command again",
                  shown);
    else if (s == CF_E_IO && err != 0)
        cli_error("%s: cannot write: %s", shown, strerror(err));
    else if (s != CF_OK)
        cli_error("%s: cannot write: %s", shown, cf_strerror(s));
    return s == CF_OK;
}

bool files_save(const cf_filter *f, const char *path) {
    return save_as(f, NULL, path, path);
}

bool files_save_locked(const cf_filter *f, const cf_file_lock *l, const char *shown) {
    return save_as(f, l, cf_file_lock_path(l), shown);
}

void files_json_bytes(FILE *out, const char *s, size_t len) {
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

void files_json_string(FILE *out, const char *s) {
    files_json_bytes(out, s, strlen(s));
}

/* The mapped file's name, for the SIGBUS message (set before the handler). */
static const char *mapped_path;
static size_t mapped_len;

static void write_stderr(const char *s, size_t n) {
    ssize_t w = write(STDERR_FILENO, s, n);
    (void)w; /* nothing else can be done about a failed error message */
}

/* Only async-signal-safe calls: write and _exit. */
static void on_sigbus(int sig) {
    static const char pre[] = "cuckoo: ";
    static const char post[] = ": the file shrank while it was read (truncated in place by "
                               "another program?)\n";
    (void)sig;
    write_stderr(pre, sizeof pre - 1);
    write_stderr(mapped_path, mapped_len);
    write_stderr(post, sizeof post - 1);
    _exit(CLI_ERROR);
}

void files_guard_mapping(const char *path) {
    mapped_path = path;
    mapped_len = strlen(path);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}
