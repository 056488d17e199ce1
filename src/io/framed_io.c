/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * framed_io.c -- header, table, trailer files (framed_io.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <sys/mman.h>
#include <unistd.h>

#include "io/file_io.h"
#include "io/file_sys.h"
#include "io/framed_io.h"

bool cf__framed_write(const cf__framed *d, const cf_filter *f, int fd) {
    uint8_t header[CF__FRAMED_HEADER_MAX], trailer[CF__TRAILER_SIZE];
    d->encode(f, header);
    cf__put_le(trailer, d->checksum(header, f->t.table, f->t.table_bytes), CF__TRAILER_SIZE);
    return cf__write_all(fd, header, d->header_size) &&
           cf__write_all(fd, f->t.table, f->t.table_bytes) &&
           cf__write_all(fd, trailer, sizeof trailer);
}

/* Reads the header (what the file has of it) and opens the filter. */
static cf_status cf__framed_open(const cf__framed *d, int fd, uint64_t size, const cf_allocator *a,
                                 uint8_t header[CF__FRAMED_HEADER_MAX], cf_filter **out,
                                 size_t *table_bytes, size_t *total_size) {
    memset(header, 0, CF__FRAMED_HEADER_MAX);
    size_t want = size < d->header_size ? (size_t)size : d->header_size;
    CF__FORWARD_IF_ERROR(cf__read_exact(fd, header, want, 0));
    return d->open(header, size, a, out, table_bytes, total_size);
}

cf_status cf__framed_load(const cf__framed *d, int fd, uint64_t size, const cf_allocator *a,
                          cf_filter **out) {
    uint8_t header[CF__FRAMED_HEADER_MAX], trailer[CF__TRAILER_SIZE];
    size_t table_bytes = 0, total = 0;
    cf_filter *f = NULL;
    cf_status s = cf__framed_open(d, fd, size, a, header, &f, &table_bytes, &total);
    if (s == CF_OK) s = cf__table_alloc(&f->t, false);
    if (s == CF_OK) s = cf__read_exact(fd, f->t.table, table_bytes, d->header_size);
    if (s == CF_OK) s = cf__read_exact(fd, trailer, sizeof trailer, d->header_size + table_bytes);
    if (s == CF_OK &&
        cf__get_le(trailer, CF__TRAILER_SIZE) != d->checksum(header, f->t.table, table_bytes))
        s = CF_E_CHECKSUM;
    if (s == CF_OK) s = d->check(f);
    close(fd);
    if (s != CF_OK) {
        if (f != NULL) d->free(f);
        return s;
    }
    *out = f;
    return CF_OK;
}

cf_status cf__framed_map(const cf__framed *d, int fd, uint64_t size, const cf_allocator *a,
                         bool verify, cf_filter **out) {
    uint8_t header[CF__FRAMED_HEADER_MAX];
    size_t table_bytes = 0, total = 0;
    cf_filter *f = NULL;
    cf_status s = cf__framed_open(d, fd, size, a, header, &f, &table_bytes, &total);
    if (s != CF_OK) {
        close(fd);
        return s;
    }
    void *map = mmap(NULL, total, PROT_READ, MAP_SHARED, fd, 0);
    close(fd); /* the mapping keeps the file open */
    /* The file may have been replaced in place between the read and the
     * map: the shape decoded from `header` must be the mapped one's. */
    if (map == MAP_FAILED || memcmp(map, header, d->header_size) != 0) {
        if (map != MAP_FAILED) munmap(map, total);
        d->free(f);
        return CF_E_IO;
    }
    f->map_base = map;
    f->map_len = total;
    f->t.table = (uint8_t *)map + d->header_size;
    f->t.read_only = true;
    if (verify) {
        const uint8_t *m = map;
        if (cf__get_le(m + d->header_size + table_bytes, CF__TRAILER_SIZE) !=
            d->checksum(m, f->t.table, table_bytes))
            s = CF_E_CHECKSUM;
        if (s == CF_OK) s = d->check(f);
    }
    if (s != CF_OK) {
        cf__unmap(f);
        d->free(f);
        return s;
    }
    (void)posix_madvise(map, total, POSIX_MADV_RANDOM);
    *out = f;
    return CF_OK;
}
