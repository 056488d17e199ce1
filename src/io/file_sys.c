/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * file_sys.c -- the POSIX calls under every file of filters: whole reads and
 * writes over EINTR and short transfers, opening a filter's file (regular
 * files only) and routing it by version, writing one table's image, and
 * releasing a mapping.  io/ owns every descriptor and mapping: nothing above
 * it opens, reads, maps or closes.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/file_sys.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* Bound on one read()/write() call (Linux moves at most ~2 GiB per call). */
#define CF__IO_CHUNK ((size_t)1 << 20)

bool cf__write_all(int fd, const uint8_t *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n > CF__IO_CHUNK * 64 ? CF__IO_CHUNK * 64 : n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Reads up to n bytes at offset; returns how many were read (short at EOF),
 * or (size_t)-1 on an error. */
size_t cf__pread_all(int fd, uint8_t *p, size_t n, uint64_t offset) {
    size_t got = 0;
    while (got < n) {
        size_t want = n - got > CF__IO_CHUNK * 64 ? CF__IO_CHUNK * 64 : n - got;
        ssize_t r = pread(fd, p + got, want, (off_t)(offset + got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return (size_t)-1;
        if (r == 0) break;
        got += (size_t)r;
    }
    return got;
}

cf_status cf__open_image(const char *path, int *fd_out, uint64_t *size_out,
                         uint8_t header[CF__HEADER_SIZE], cf__image_kind *kind, cf__header *h) {
    memset(header, 0, CF__HEADER_SIZE);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) { /* a socket cannot be opened at all; say what it is */
        struct stat st;
        return stat(path, &st) == 0 && !S_ISREG(st.st_mode) ? CF_E_NOT_REGULAR : CF_E_IO;
    }
    struct stat st;
    cf_status s = fstat(fd, &st) != 0 ? CF_E_IO : !S_ISREG(st.st_mode) ? CF_E_NOT_REGULAR : CF_OK;
    uint64_t size = 0;
    if (s == CF_OK) {
        size = (uint64_t)st.st_size;
        size_t want = size < CF__HEADER_SIZE ? (size_t)size : CF__HEADER_SIZE;
        size_t got = cf__pread_all(fd, header, want, 0);
        s = got == want ? CF_OK : got == (size_t)-1 ? CF_E_IO : CF_E_TRUNCATED;
    }
    if (s == CF_OK) {
        *kind = cf__image_probe(header, size);
        if (*kind == CF__IMAGE_TABLE) s = cf__header_decode(header, size, h);
    }
    if (s != CF_OK) {
        close(fd);
        return s;
    }
    *fd_out = fd;
    *size_out = size;
    return CF_OK;
}

cf_status cf__read_exact(int fd, uint8_t *p, size_t n, uint64_t offset) {
    size_t got = cf__pread_all(fd, p, n, offset);
    CF__RETURN_IF(got == (size_t)-1, CF_E_IO);
    CF__RETURN_IF(got != n, CF_E_TRUNCATED);
    return CF_OK;
}

void cf__unmap(cf_filter *f) {
    if (f->map_base != NULL) munmap(f->map_base, f->map_len);
    f->map_base = NULL;
}

bool cf__image_write(const cf_filter *t, int fd) {
    uint8_t header[CF__HEADER_SIZE], trailer[CF__TRAILER_SIZE];
    cf__header_encode(t, header);
    cf__image_trailer(header, t->t.table, t->t.table_bytes, trailer);
    return cf__write_all(fd, header, sizeof header) &&
           cf__write_all(fd, t->t.table, t->t.table_bytes) &&
           cf__write_all(fd, trailer, sizeof trailer);
}
