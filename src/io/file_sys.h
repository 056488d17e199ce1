/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * file_sys.h -- the POSIX calls under every file of filters (file_sys.c),
 * shared by file_io.c (version 1) and chain_io.c (version 2).
 */
#ifndef CF_FILE_SYS_H
#define CF_FILE_SYS_H

#include "format/cf_format.h"

/* write()/pread() loops over EINTR and short transfers.  cf__pread_all
 * returns the bytes read (short at EOF) or (size_t)-1. */
bool cf__write_all(int fd, const uint8_t *p, size_t n);
size_t cf__pread_all(int fd, uint8_t *p, size_t n, uint64_t offset);

/* Reads exactly n bytes at offset; CF_E_TRUNCATED or CF_E_IO otherwise. */
cf_status cf__read_exact(int fd, uint8_t *p, size_t n, uint64_t offset);

/* Opens path (a regular file, else CF_E_NOT_REGULAR), reads its first
 * min(size, 64) bytes into header (the rest zeroed) and says which reader
 * it is for (*kind, cf__image_probe); a version-1 header is decoded and
 * validated against the file's size into *h.  On CF_OK the caller owns
 * *fd_out (*size_out is the file's size); on failure nothing is open.
 * O_NONBLOCK: opening a FIFO would otherwise wait for a writer forever; the
 * fstat then refuses it (and has no effect on the reads of a regular file). */
cf_status cf__open_image(const char *path, int *fd_out, uint64_t *size_out,
                         uint8_t header[CF__HEADER_SIZE], cf__image_kind *kind, cf__header *h);

/* Writes the image of the single table t to fd; false on a write error. */
bool cf__image_write(const cf_filter *t, int fd);

/* Releases the read-only mapping f's tables live in, if any (f->map_base). */
void cf__unmap(cf_filter *f);

#endif /* CF_FILE_SYS_H */
