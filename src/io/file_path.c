/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * file_path.c -- where a save writes.
 *
 *   path ──realpath──► target            (a link's target, not the link)
 *                        │
 *   dir(target) ──O_TMPFILE──► unnamed file ──write, fsync (file_io.c)──┐
 *                                                                       │
 *   linkat ──► target.<pid>.<n>.tmp ──rename──► target ──fsync(dir)  ◄──┘
 *
 * The temporary file has no name while it is written, so a writer killed
 * there (or by SIGXFSZ) leaves nothing behind; it gets one only for the
 * instant between linkat and rename, which is what rename needs (linkat
 * cannot replace a file).  Where O_TMPFILE or /proc/self/fd is missing the
 * file is named from the start.  Either way a killed writer can leave a
 * "<target>.<pid>.<n>.tmp": cf__remove_dead_temps removes those whose pid
 * is gone, under the lock, where no locking writer can be using one.
 */
#define _GNU_SOURCE /* O_TMPFILE */

#include "io/file_path.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

cf_status cf__resolve_target(const char *path, char target[PATH_MAX]) {
    struct stat st;
    if (realpath(path, target) != NULL) {
        CF__RETURN_IF(stat(target, &st) != 0, CF_E_IO);
        return S_ISREG(st.st_mode) ? CF_OK : CF_E_NOT_REGULAR;
    }
    CF__RETURN_IF(errno != ENOENT, CF_E_IO);
    /* Nothing there yet (a new file), unless path is a link to nowhere:
     * writing through it would create a file the caller never named. */
    CF__RETURN_IF(lstat(path, &st) == 0 || errno != ENOENT, CF_E_IO);
    size_t n = strlen(path);
    CF__RETURN_IF(n >= PATH_MAX, CF_E_IO);
    memcpy(target, path, n + 1);
    return CF_OK;
}

bool cf__still_named(int fd, const char *path) {
    struct stat a, b;
    return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* The directory holding path ("." when it has no slash). */
static void cf__dirname(const char *path, char dir[PATH_MAX]) {
    const char *slash = strrchr(path, '/');
    if (slash == NULL) {
        memcpy(dir, ".", 2);
    } else if (slash == path) {
        memcpy(dir, "/", 2);
    } else {
        memcpy(dir, path, (size_t)(slash - path));
        dir[slash - path] = '\0';
    }
}

/* Attempt n's temporary name: the pid tells cf__remove_dead_temps whether
 * its writer is alive; n separates threads of one process. */
static void cf__temp_name(cf__temp *t, unsigned n) {
    snprintf(t->name, sizeof t->name, "%s.%ld.%u.tmp", t->target, (long)getpid(), n);
}

cf_status cf__temp_open(const char *path, cf__temp *t) {
    t->fd = -1;
    t->named = false;
    t->held_fd = -1;
    CF__FORWARD_IF_ERROR(cf__resolve_target(path, t->target));
    struct stat st;
    bool exists = stat(t->target, &st) == 0;
#ifdef O_TMPFILE
    /* An unnamed file is only useful if it can be named later, through
     * /proc/self/fd (linkat's AT_EMPTY_PATH needs a privilege). */
    if (access("/proc/self/fd", X_OK) == 0) {
        char dir[PATH_MAX];
        cf__dirname(t->target, dir);
        t->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    }
#endif
    for (unsigned n = 0; t->fd < 0 && n < 1000; n++) {
        cf__temp_name(t, n);
        t->fd = open(t->name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (t->fd >= 0)
            t->named = true;
        else if (errno != EEXIST)
            break;
    }
    CF__RETURN_IF(t->fd < 0, CF_E_IO);
    /* A replaced file keeps its permissions; a new one gets 0666 & ~umask. */
    if (exists) (void)fchmod(t->fd, st.st_mode & 07777);
    return CF_OK;
}

/* Gives the unnamed file a temporary name, for rename. */
static bool cf__link_unnamed(cf__temp *t) {
    char proc[48];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", t->fd);
    for (unsigned n = 0; n < 1000; n++) {
        cf__temp_name(t, n);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, t->name, AT_SYMLINK_FOLLOW) == 0) {
            t->named = true;
            return true;
        }
        if (errno != EEXIST) return false;
    }
    return false;
}

cf_status cf__temp_commit(cf__temp *t, bool written) {
    bool ok = written && (t->named || cf__link_unnamed(t));
    ok = close(t->fd) == 0 && ok;
    t->fd = -1;
    /* A lock removed while held may be another writer's by now: renaming
     * would replace what it saves, so nothing is written.  (A removal in
     * the instant between this check and the rename is not caught; the
     * lock file must not be removed while writers run.) */
    char lock_path[CF__PATH_CAP];
    snprintf(lock_path, sizeof lock_path, "%s.lock", t->target);
    bool lost = ok && t->held_fd >= 0 && !cf__still_named(t->held_fd, lock_path);
    ok = ok && !lost && rename(t->name, t->target) == 0;
    if (!ok) {
        if (t->named) unlink(t->name);
        return lost ? CF_E_LOCKED : CF_E_IO;
    }
    /* Make the rename itself durable.  Some file systems cannot fsync a
     * directory (EINVAL); the rename is then as durable as they allow. */
    char dir[PATH_MAX];
    cf__dirname(t->target, dir);
    int dfd = open(dir, O_RDONLY | O_CLOEXEC);
    CF__RETURN_IF(dfd < 0, CF_E_IO);
    bool synced = fsync(dfd) == 0 || errno == EINVAL;
    close(dfd);
    return synced ? CF_OK : CF_E_IO;
}

/* True when s is exactly ".<pid>.<n>.tmp"; the pid goes to *pid. */
static bool cf__temp_suffix(const char *s, pid_t *pid) {
    if (s[0] != '.' || !isdigit((unsigned char)s[1])) return false;
    char *end;
    long p = strtol(s + 1, &end, 10);
    if (p <= 0 || p > INT_MAX || end[0] != '.' || !isdigit((unsigned char)end[1])) return false;
    (void)strtoul(end + 1, &end, 10);
    *pid = (pid_t)p;
    return strcmp(end, ".tmp") == 0;
}

void cf__remove_dead_temps(const char *target) {
    char dir[PATH_MAX];
    cf__dirname(target, dir);
    const char *slash = strrchr(target, '/');
    const char *base = slash == NULL ? target : slash + 1;
    size_t blen = strlen(base);
    DIR *d = opendir(dir);
    if (d == NULL) return; /* nothing can be cleaned; the lock still holds */
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        pid_t pid;
        if (strncmp(e->d_name, base, blen) != 0 || !cf__temp_suffix(e->d_name + blen, &pid))
            continue;
        /* ESRCH only: EPERM means a live process of another user. */
        if (kill(pid, 0) != 0 && errno == ESRCH) (void)unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}
