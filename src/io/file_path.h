/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * file_path.h -- where a save writes (file_path.c): the file a path
 * designates, the temporary file written beside it, and the removal of
 * temporary files that killed writers left.  file_io.c (cf_save) and
 * file_lock.c (cf_file_lock_acquire) share it.
 */
#ifndef CF_FILE_PATH_H
#define CF_FILE_PATH_H

#include <limits.h>

#include "kind/handle.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Room for a target path plus a suffix (".lock", ".<pid>.<n>.tmp"). */
#define CF__PATH_CAP (PATH_MAX + 48)

/* Resolves path to the file a save must replace: symbolic links are
 * followed (a save through a link updates its target, as writing through it
 * would), and a path that does not exist yet stays as given.  Returns CF_OK,
 * CF_E_NOT_REGULAR (it exists and is not a regular file: a save must not
 * replace a FIFO, a device or a directory) or CF_E_IO (a dangling link, a
 * path too long, a directory that cannot be searched; errno says which). */
cf_status cf__resolve_target(const char *path, char target[PATH_MAX]);

/* A file being written for a save: unnamed (O_TMPFILE) where the file
 * system allows, so a killed writer leaves nothing, else named
 * "<target>.<pid>.<n>.tmp". */
typedef struct cf__temp {
    int fd;
    bool named;              /* name holds a directory entry to remove on failure */
    int held_fd;             /* a held "<target>.lock", re-checked before the rename; -1: none */
    char target[PATH_MAX];   /* what the commit replaces                          */
    char name[CF__PATH_CAP]; /* the temporary entry, once there is one            */
} cf__temp;

/* Resolves path (cf__resolve_target) and opens a temporary file beside the
 * target with the target's permissions (or 0666 & ~umask for a new file).
 * Statuses as cf__resolve_target. */
cf_status cf__temp_open(const char *path, cf__temp *t);

/* written true: names the file if it is unnamed, renames it over the target
 * and fsyncs the directory; CF_OK or CF_E_IO, or CF_E_LOCKED when
 * t->held_fd is set and no longer the file named "<target>.lock" just
 * before the rename (cf__still_named).  written false (or any step
 * failing): closes and removes the temporary file; the target is untouched.
 * Either way t->fd is closed. */
cf_status cf__temp_commit(cf__temp *t, bool written);

/* True when fd is still the file named path: someone may have removed or
 * replaced a lock file while it was waited for or held, and a lock on an
 * unlinked file excludes nobody (a new writer locks the new one). */
bool cf__still_named(int fd, const char *path);

/* Removes "<target>.<pid>.<n>.tmp" files whose writer (pid) no longer
 * exists.  Called under the target's lock (cf_file_lock_acquire), where no writer
 * that takes the lock can be between naming and renaming such a file. */
void cf__remove_dead_temps(const char *target);

#endif /* CF_FILE_PATH_H */
