/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * files_set.c -- several files written all or nothing: what `cuckoo import
 * --shards`, `export --shards` and `export --output` need so that a command
 * that fails half way leaves every file as it was.
 *
 *   files_set_add(s, "d/meta.resp")   every target named first
 *   files_set_add(s, "d/shard-0.cf") ...
 *   files_set_lock(s)                 each target's lock, in name order; each
 *                                     checked: may it be replaced (--force)?
 *   write each to its temporary name  "d/shard-0.cf.<pid>.<n>.tmp"
 *   files_set_commit(s)
 *       link each old target to "<target>.<pid>.<n>.old"   (kept aside)
 *       rename each temporary file over its target, unlink each removed one
 *       fsync the directories, unlink the ".old" names
 *   (a failed rename puts every old file back and removes the new ones)
 *
 * Each target's writers' lock (cf_file_lock_acquire, the one `cuckoo add` takes)
 * is held from files_set_lock until files_set_free, so a concurrent command
 * on the same files waits instead of mixing its files with these.  The temporary names follow the library's pattern
 * (cf_save's "<target>.<pid>.<n>.tmp"), which a later lock of the target
 * removes when the process that wrote them is gone.  What is not covered:
 * a crash (power loss, kill -9) during the renames themselves, which take
 * microseconds; the ".old" names then still hold the old files.
 */
#define _POSIX_C_SOURCE 200809L

#include "files/files.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

enum { SET_MAX = 4 * 1024 + 8 };

typedef struct set_file {
    char *shown;        /* the name given, for messages */
    const char *target; /* the file the lock resolved (links followed), renamed over */
    char *temp;         /* where the new contents are written (writes) */
    char *old;          /* "<target>.<pid>.<n>.old" while the commit runs */
    cf_file_lock *lock; /* the target's writers' lock */
    bool write;         /* new contents (else: the target is to go) */
    bool unlocked;      /* a stream another target's lock covers (no lock file) */
    bool existed;       /* a file was at target when the commit began */
    bool done;          /* renamed or removed by the commit */
} set_file;

struct files_set {
    bool force, locked;
    int wait_ms;
    size_t n;
    set_file f[SET_MAX];
};

/* A process-wide counter keeps the temporary names of one process apart. */
static unsigned set_counter;

static char *name_beside(const char *target, const char *suffix) {
    size_t n = strlen(target) + 64;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s.%ld.%u.%s", target, (long)getpid(), set_counter++, suffix);
    return p;
}

files_set *files_set_new(bool force, int wait_ms) {
    files_set *s = calloc(1, sizeof *s);
    if (!s) return cli_error("out of memory"), NULL;
    s->force = force;
    s->wait_ms = wait_ms;
    return s;
}

static int set_put(files_set *s, const char *path, bool write, bool unlocked) {
    if (s->locked || s->n == SET_MAX)
        return cli_error("%s: too many files in one command", path), -1;
    set_file *e = &s->f[s->n];
    memset(e, 0, sizeof *e);
    e->shown = strdup(path);
    if (!e->shown) return cli_error("out of memory"), -1;
    e->write = write;
    e->unlocked = unlocked;
    return (int)s->n++;
}

int files_set_add(files_set *s, const char *path) {
    return set_put(s, path, true, false);
}

int files_set_add_stream(files_set *s, const char *path) {
    return set_put(s, path, true, true);
}

bool files_set_remove(files_set *s, const char *path) {
    return set_put(s, path, false, false) >= 0;
}

static const files_set *sort_set;
static int by_name(const void *a, const void *b) {
    return strcmp(sort_set->f[*(const size_t *)a].shown, sort_set->f[*(const size_t *)b].shown);
}

bool files_set_lock(files_set *s) {
    /* In one order for every command, so that two commands locking
     * overlapping sets cannot each hold a lock the other waits for. */
    size_t *order = malloc(sizeof *order * (s->n ? s->n : 1));
    if (!order) return cli_error("out of memory"), false;
    for (size_t i = 0; i < s->n; i++) order[i] = i;
    sort_set = s;
    qsort(order, s->n, sizeof *order, by_name);
    s->locked = true;
    bool ok = true;
    for (size_t k = 0; k < s->n && ok; k++) {
        set_file *e = &s->f[order[k]];
        if (e->unlocked) {
            e->target = e->shown;
        } else {
            e->lock = files_lock_target(e->shown, s->wait_ms);
            ok = e->lock != NULL;
            if (ok) e->target = cf_file_lock_path(e->lock);
        }
        /* Under the lock: another writer may have made the file meanwhile. */
        ok = ok && files_may_replace_as(e->target, e->shown, s->force);
        if (ok && e->write) {
            e->temp = name_beside(e->target, "tmp");
            if (!e->temp) ok = false, cli_error("out of memory");
        }
    }
    free(order);
    return ok;
}

FILE *files_set_open(const files_set *s, int i) {
    FILE *out = fopen(s->f[i].temp, "wbx");
    if (!out) cli_error("%s: cannot open for writing: %s", s->f[i].temp, strerror(errno));
    return out;
}

bool files_set_close(const files_set *s, int i, FILE *out) {
    bool ok = fflush(out) == 0 && ferror(out) == 0 && fsync(fileno(out)) == 0;
    int err = errno;
    if (fclose(out) != 0 && ok) ok = false, err = errno;
    if (!ok) cli_error("%s: write failed: %s", s->f[i].shown, strerror(err));
    return ok;
}

bool files_set_save(const files_set *s, int i, const cf_filter *f) {
    cf_status st = cf_save(f, s->f[i].temp);
    if (st != CF_OK) cli_error("%s: cannot write: %s", s->f[i].shown, cf_strerror(st));
    return st == CF_OK;
}

/* fsync of the directory holding path, so that the renames are durable. */
static bool sync_dir_of(const char *path) {
    char *copy = strdup(path);
    if (!copy) return false;
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(copy);
    if (fd < 0) return false;
    bool ok = fsync(fd) == 0;
    close(fd);
    return ok;
}

/* Whether a and b name files of one directory (their parts before the
 * last '/' agree): one fsync serves both. */
static bool same_dir(const char *a, const char *b) {
    const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
    size_t na = sa ? (size_t)(sa - a) : 0, nb = sb ? (size_t)(sb - b) : 0;
    return na == nb && strncmp(a, b, na) == 0;
}

/* Puts back what the commit changed, and lets go of the old names. */
static void set_undo(files_set *s) {
    for (size_t i = s->n; i-- > 0;) {
        set_file *e = &s->f[i];
        if (e->done && e->existed)
            rename(e->old, e->target);
        else if (e->done)
            unlink(e->target);
        else if (e->old)
            unlink(e->old);
        e->done = false;
    }
}

bool files_set_commit(files_set *s) {
    /* Old files are kept aside under a second name first: a rename below
     * that fails can then be undone whatever came before it. */
    for (size_t i = 0; i < s->n; i++) {
        set_file *e = &s->f[i];
        struct stat st;
        e->existed = lstat(e->target, &st) == 0;
        if (!e->existed) continue;
        e->old = name_beside(e->target, "old");
        if (!e->old || link(e->target, e->old) != 0) {
            int err = e->old ? errno : ENOMEM;
            free(e->old), e->old = NULL;
            set_undo(s);
            return cli_error("%s: cannot keep the old file aside: %s (nothing was changed)",
                             e->shown, strerror(err)),
                   false;
        }
    }
    for (size_t i = 0; i < s->n; i++) {
        set_file *e = &s->f[i];
        if (!e->write && !e->existed) continue;
        if ((e->write ? rename(e->temp, e->target) : unlink(e->target)) != 0) {
            int err = errno;
            set_undo(s);
            return cli_error("%s: cannot replace: %s (nothing was changed)", e->shown,
                             strerror(err)),
                   false;
        }
        e->done = true;
    }
    bool synced = true;
    for (size_t i = 0; i < s->n; i++) {
        set_file *e = &s->f[i];
        if (e->old) unlink(e->old);
        if (i == 0 || !same_dir(e->target, s->f[i - 1].target))
            synced = sync_dir_of(e->target) && synced;
        if (e->write) free(e->temp), e->temp = NULL; /* renamed: nothing left to remove */
    }
    if (!synced) return cli_error("%s: the directory could not be synced", s->f[0].shown), false;
    return true;
}

void files_set_free(files_set *s) {
    if (!s) return;
    for (size_t i = 0; i < s->n; i++) {
        set_file *e = &s->f[i];
        if (e->temp) unlink(e->temp); /* not committed: the new contents go */
        files_unlock(e->lock);
        free(e->shown), free(e->temp), free(e->old);
    }
    free(s);
}
