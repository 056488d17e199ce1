/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * files_lock.c -- what keeps the filter-file commands' writes safe beside
 * other processes: the writers' lock (cf_file_lock_acquire) and the checks
 * before a file is replaced, on files_util.c's loads and saves.
 */
#define _POSIX_C_SOURCE 200809L

#include "files/files.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

/* cf_file_lock_acquire with the error printed. */
static cf_file_lock *lock_or_say(const char *path, int wait_ms) {
    cf_file_lock *l = NULL;
    errno = 0;
    cf_status s = cf_file_lock_acquire(path, wait_ms, NULL, &l);
    int err = errno;
    if (s == CF_E_LOCKED && wait_ms == 0)
        cli_error("%s: %s (--no-wait)", path, cf_strerror(s));
    else if (s == CF_E_LOCKED)
        cli_error("%s: %s (gave up after --wait %.3g)", path, cf_strerror(s), wait_ms / 1000.0);
    else if (s == CF_E_NOT_REGULAR && files_not_regular(path) != NULL)
        cli_error("%s %s, not a regular file (not a filter file)", path, files_not_regular(path));
    else if (s == CF_E_NOT_REGULAR) /* the file is fine: its lock file is not */
        cli_error("%s: its lock file (FILE.lock, beside the link's target for a link) is not a "
                  "regular file; remove it",
                  path);
    else if (s == CF_E_IO && err != 0)
        cli_error("%s: cannot lock: %s", path, strerror(err));
    else if (s != CF_OK)
        cli_error("%s: %s", path, cf_strerror(s));
    return l;
}

cf_file_lock *files_lock(const char *path, int wait_ms) {
    /* A missing file is reported as the load would, before the lock creates
     * FILE.lock beside a mistyped name. */
    struct stat st;
    if (stat(path, &st) != 0) return cli_error("%s: %s", path, strerror(errno)), NULL;
    return lock_or_say(path, wait_ms);
}

cf_file_lock *files_lock_target(const char *path, int wait_ms) {
    return lock_or_say(path, wait_ms);
}

void files_unlock(cf_file_lock *l) {
    cf_file_lock_release(l);
}

bool files_may_replace_as(const char *path, const char *shown, bool force) {
    struct stat st;
    if (stat(path, &st) != 0) {
        if (lstat(path, &st) == 0) /* a symbolic link to nowhere */
            return cli_error("%s: the link's target does not exist", shown), false;
        return true;
    }
    if (!S_ISREG(st.st_mode))
        return cli_error("%s %s, not a regular file; never replaced", shown,
                         files_not_regular(path)),
               false;
    if (!force) return cli_error("%s exists (use --force to replace it)", shown), false;
    return true;
}

bool files_may_replace(const char *path, bool force) {
    return files_may_replace_as(path, path, force);
}

bool files_replace(const cf_filter *f, const files_opts *o) {
    cf_file_lock *l = lock_or_say(o->file, o->wait_ms);
    if (l == NULL) return false;
    /* Checked again under the lock: another writer may have created the
     * file since the command started.  A failed save of a new file leaves
     * no FILE.lock behind (cf_file_lock_release removes it). */
    bool ok = files_may_replace_as(cf_file_lock_path(l), o->file, o->force) &&
              files_save_locked(f, l, o->file);
    files_unlock(l);
    return ok;
}
