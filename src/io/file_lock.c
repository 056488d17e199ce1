/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * file_lock.c -- the advisory lock that serialises writers of a filter file.
 *
 *   FILE        the filter; every save replaces it by rename, so it cannot
 *               carry the lock: a lock on the old inode would not stop a
 *               writer that opens the new one.
 *   FILE.lock   an empty file beside it, created by the first writer and
 *               never removed; flock(LOCK_EX) on it is the lock.
 *
 * flock belongs to the open file description and the kernel drops it when
 * the last descriptor closes, also when the holder is killed: a stale lock
 * cannot block anyone.  Waiting with a timeout polls LOCK_NB (1, 2, 4 ...
 * up to 64 ms apart): flock itself has no timeout, and interrupting it with
 * a signal is not for a library to arrange.
 */
#define _GNU_SOURCE /* flock */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/file_io.h"
#include "io/file_path.h"

struct cf_file_lock {
    cf_allocator alloc;
    int fd;
    char target[]; /* the filter file, resolved once: load, save and lock agree */
};

/* Longest pause between two tries of a lock with a timeout. */
#define CF__LOCK_MAX_PAUSE_MS 64

static long long cf__now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void cf__sleep_ms(long long ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Opens (creating) the lock file.  Read-only is enough for flock, and is
 * all a writer gets when another user created the lock file. */
static int cf__open_lock(const char *lock_path) {
    int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);
    if (fd < 0 && errno == EACCES) {
        fd = open(lock_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        /* No lock file, and none can be made (a read-only directory): the
         * reason is the EACCES, not the retry's ENOENT. */
        if (fd < 0 && errno == ENOENT) errno = EACCES;
    }
    return fd;
}

/* flock(LOCK_EX) on fd, giving up at deadline_ms (< 0: never). */
static cf_status cf__flock_until(int fd, long long deadline_ms) {
    if (deadline_ms < 0) {
        while (flock(fd, LOCK_EX) != 0) CF__RETURN_IF(errno != EINTR, CF_E_IO);
        return CF_OK;
    }
    long long pause = 1;
    for (;;) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) return CF_OK;
        CF__RETURN_IF(errno != EWOULDBLOCK && errno != EINTR, CF_E_IO);
        long long left = deadline_ms - cf__now_ms();
        CF__RETURN_IF(left <= 0, CF_E_LOCKED);
        cf__sleep_ms(pause < left ? pause : left);
        if (pause < CF__LOCK_MAX_PAUSE_MS) pause *= 2;
    }
}

static cf_status cf__acquire(const char *lock_path, int timeout_ms, int *fd_out) {
    long long deadline = timeout_ms < 0 ? -1 : cf__now_ms() + timeout_ms;
    for (;;) {
        int fd = cf__open_lock(lock_path);
        CF__RETURN_IF(fd < 0, CF_E_IO);
        struct stat st;
        cf_status s = fstat(fd, &st) != 0    ? CF_E_IO
                      : !S_ISREG(st.st_mode) ? CF_E_NOT_REGULAR
                                             : cf__flock_until(fd, deadline);
        if (s == CF_OK && cf__still_named(fd, lock_path)) {
            *fd_out = fd;
            return CF_OK;
        }
        close(fd);
        if (s != CF_OK) return s;
    }
}

cf_status cf_file_lock_acquire(const char *path, int timeout_ms, const cf_allocator *a,
                               cf_file_lock **out) {
    CF__RETURN_IF(out == NULL, CF_E_PARAM);
    *out = NULL;
    CF__RETURN_IF(path == NULL || path[0] == '\0', CF_E_PARAM);
    cf_allocator alloc;
    CF__FORWARD_IF_ERROR(cf__allocator_resolve(a, &alloc));
    char target[PATH_MAX], lock_path[CF__PATH_CAP];
    CF__FORWARD_IF_ERROR(cf__resolve_target(path, target));
    snprintf(lock_path, sizeof lock_path, "%s.lock", target);
    size_t tlen = strlen(target) + 1;
    cf_file_lock *l = cf__alloc(&alloc, sizeof *l + tlen);
    CF__RETURN_IF(l == NULL, CF_E_NOMEM);
    l->alloc = alloc;
    memcpy(l->target, target, tlen);
    cf_status s = cf__acquire(lock_path, timeout_ms, &l->fd);
    if (s != CF_OK) {
        cf__free(&alloc, l);
        return s;
    }
    cf__remove_dead_temps(target);
    *out = l;
    return CF_OK;
}

const char *cf_file_lock_path(const cf_file_lock *l) {
    return l == NULL ? NULL : l->target;
}

int cf__lock_fd(const cf_file_lock *l) {
    return l->fd;
}

void cf_file_lock_release(cf_file_lock *l) {
    if (l == NULL) return;
    /* A lock taken for a file that was never written (a create that failed,
     * for lack of space say) leaves no stray FILE.lock.  Removed while still
     * held: a writer waiting on it finds it unnamed once it gets it, and
     * locks a new one (cf__acquire), as when a human removes it. */
    struct stat st;
    if (lstat(l->target, &st) != 0 && errno == ENOENT) {
        char lock_path[CF__PATH_CAP];
        snprintf(lock_path, sizeof lock_path, "%s.lock", l->target);
        if (cf__still_named(l->fd, lock_path)) (void)unlink(lock_path);
    }
    /* LOCK_UN first: a child forked meanwhile shares the descriptor, and
     * closing ours alone would leave the lock held by it. */
    (void)flock(l->fd, LOCK_UN);
    close(l->fd);
    cf_allocator alloc = l->alloc;
    cf__free(&alloc, l);
}
