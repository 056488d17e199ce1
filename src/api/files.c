/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * files.c -- the public functions of filters in files: load, map, save.
 * io/ does the work and owns every descriptor and mapping; these check the
 * arguments and pick what a save writes by the filter's kind.
 */
#include "kind/concurrent.h"
#include "io/file_io.h"
#include "api/kind.h"

cf_status cf_load(const char *path, const cf_allocator *a, cf_filter **out) {
    CF__RETURN_IF(out == NULL, CF_E_PARAM);
    *out = NULL;
    CF__RETURN_IF(path == NULL, CF_E_PARAM);
    return cf__load_path(path, a, out);
}

cf_status cf_map(const char *path, const cf_allocator *a, bool verify, cf_filter **out) {
    CF__RETURN_IF(out == NULL, CF_E_PARAM);
    *out = NULL;
    CF__RETURN_IF(path == NULL, CF_E_PARAM);
    return cf__map_path(path, a, verify, out);
}

/* Where a save goes, and the lock to check before its rename (NULL: none). */
typedef struct cf__save_to {
    const char *path;
    const cf_file_lock *held;
} cf__save_to;

/* A concurrent filter's consistent view, saved as the plain table it is. */
static cf_status cf__save_view(const cf_filter *view, void *arg) {
    const cf__save_to *to = arg;
    return cf__save_file(to->path, cf__image_write, view, to->held);
}

static cf_status cf__save(const cf_filter *f, const char *path, const cf_file_lock *held) {
    switch (f->kind) {
    case CF__PLAIN: return cf__save_file(path, cf__image_write, f, held);
    case CF__CHAIN: return cf__save_file(path, cf__chain_write, f, held);
    case CF__INPLACE: return cf__save_file(path, cf__inplace_write, f, held);
    case CF__EXPIRING: return cf__save_file(path, cf__expiring_write, f, held);
    case CF__CONCURRENT: {
        cf__save_to to = {path, held};
        return cf__concurrent_with_view(f, cf__save_view, &to);
    }
    }
    CF__NO_OTHER_KIND();
}

cf_status cf_save(const cf_filter *f, const char *path) {
    CF__RETURN_IF(f == NULL || path == NULL || path[0] == '\0', CF_E_PARAM);
    return cf__save(f, path, NULL);
}

cf_status cf_save_locked(const cf_filter *f, const cf_file_lock *lock) {
    CF__RETURN_IF(f == NULL || lock == NULL, CF_E_PARAM);
    return cf__save(f, cf_file_lock_path(lock), lock);
}
