/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * file_io.h -- filters in files: load, map and save (file_io.c), with the
 * version-2 paths of grown filters (chain_io.c) and the version-4 paths of
 * in-place grown ones (inplace_io.c).  api/files.c checks the
 * arguments and picks the writer by the filter's kind.
 */
#ifndef CF_FILE_IO_H
#define CF_FILE_IO_H

#include "kind/handle.h"

/* cf_load and cf_map after their argument checks: either version. */
cf_status cf__load_path(const char *path, const cf_allocator *a, cf_filter **out);
cf_status cf__map_path(const char *path, const cf_allocator *a, bool verify, cf_filter **out);

/* Writes a filter's bytes to fd; false on a write error. */
typedef bool (*cf__file_writer)(const cf_filter *f, int fd);

/* Replaces path atomically with what write(f, fd) writes (file_path.c's
 * temporary file, fsync, rename).  With held (not NULL: cf_save_locked),
 * the lock is checked again just before the rename (CF_E_LOCKED when it
 * was lost, nothing written). */
cf_status cf__save_file(const char *path, cf__file_writer write, const cf_filter *f,
                        const cf_file_lock *held);

/* file_lock.c: the descriptor that holds the lock's flock. */
int cf__lock_fd(const cf_file_lock *l);

/* Writers for cf__save_file: one table's version-1 image (file_sys.c), a
 * grown filter's version-2 bytes (chain_io.c), an in-place grown filter's
 * version-4 bytes (inplace_io.c). */
bool cf__image_write(const cf_filter *t, int fd);
bool cf__chain_write(const cf_filter *f, int fd);
bool cf__inplace_write(const cf_filter *f, int fd);

/* The version-2 paths of cf__load_path and cf__map_path, on the file it
 * opened (fd, a regular file of size bytes, whose first min(size, 64)
 * bytes are head).  They close fd. */
cf_status cf__chain_load(int fd, uint64_t size, const uint8_t *head, const cf_allocator *a,
                         cf_filter **out);
cf_status cf__chain_map(int fd, uint64_t size, const uint8_t *head, const cf_allocator *a,
                        bool verify, cf_filter **out);

/* The version-4 paths, the same way (inplace_io.c): they read the
 * 128-byte header themselves, and close fd. */
cf_status cf__inplace_load(int fd, uint64_t size, const cf_allocator *a, cf_filter **out);
cf_status cf__inplace_map(int fd, uint64_t size, const cf_allocator *a, bool verify,
                          cf_filter **out);

/* The version-7 paths of expiring filters, the same way (expiring_io.c). */
bool cf__expiring_write(const cf_filter *f, int fd);
cf_status cf__expiring_load(int fd, uint64_t size, const cf_allocator *a, cf_filter **out);
cf_status cf__expiring_map(int fd, uint64_t size, const cf_allocator *a, bool verify,
                           cf_filter **out);

#endif /* CF_FILE_IO_H */
