/*
 * expiring_io.c -- expiring filters (format version 7) in files: save,
 * load and map (the bytes: format/expiring_format.c).  A mapping holds
 * the table in place, 128 bytes into the file; a mapped filter answers at
 * the file's clock (cf_set_time needs a writable one).
 */
#define _POSIX_C_SOURCE 200809L

#include <sys/mman.h>
#include <unistd.h>

#include "io/file_io.h"
#include "io/file_sys.h"
#include "format/expiring_format.h"

bool cf__expiring_write(const cf_filter *f, int fd) {
    uint8_t header[CF__EXPIRING_HEADER_SIZE], trailer[CF__TRAILER_SIZE];
    cf__expiring_header_encode(f, header);
    cf__put_le(trailer, cf__expiring_checksum(header, f->t.table, f->t.table_bytes),
               CF__TRAILER_SIZE);
    return cf__write_all(fd, header, sizeof header) &&
           cf__write_all(fd, f->t.table, f->t.table_bytes) &&
           cf__write_all(fd, trailer, sizeof trailer);
}

static cf_status cf__expiring_read_header(int fd, uint64_t size,
                                          uint8_t header[CF__EXPIRING_HEADER_SIZE],
                                          cf__expiring_hdr *h) {
    memset(header, 0, CF__EXPIRING_HEADER_SIZE);
    size_t want = size < CF__EXPIRING_HEADER_SIZE ? (size_t)size : CF__EXPIRING_HEADER_SIZE;
    CF__FORWARD_IF_ERROR(cf__read_exact(fd, header, want, 0));
    return cf__expiring_header_decode(header, size, h);
}

cf_status cf__expiring_load(int fd, uint64_t size, const cf_allocator *a, cf_filter **out) {
    uint8_t header[CF__EXPIRING_HEADER_SIZE], trailer[CF__TRAILER_SIZE];
    cf__expiring_hdr h;
    cf_filter *f = NULL;
    cf_status s = cf__expiring_read_header(fd, size, header, &h);
    if (s == CF_OK) s = cf__expiring_from_header(&h, a, &f);
    if (s == CF_OK) s = cf__table_alloc(&f->t, false);
    if (s == CF_OK) s = cf__read_exact(fd, f->t.table, h.table_bytes, CF__EXPIRING_HEADER_SIZE);
    if (s == CF_OK)
        s = cf__read_exact(fd, trailer, sizeof trailer, CF__EXPIRING_HEADER_SIZE + h.table_bytes);
    if (s == CF_OK && cf__get_le(trailer, CF__TRAILER_SIZE) !=
                          cf__expiring_checksum(header, f->t.table, h.table_bytes))
        s = CF_E_CHECKSUM;
    if (s == CF_OK) s = cf__check_padding(f);
    if (s == CF_OK) s = cf__expiring_check_table(f);
    close(fd);
    if (s != CF_OK) {
        cf__expiring_free(f);
        return s;
    }
    *out = f;
    return CF_OK;
}

cf_status cf__expiring_map(int fd, uint64_t size, const cf_allocator *a, bool verify,
                           cf_filter **out) {
    uint8_t header[CF__EXPIRING_HEADER_SIZE];
    cf__expiring_hdr h;
    cf_status s = cf__expiring_read_header(fd, size, header, &h);
    if (s != CF_OK) {
        close(fd);
        return s;
    }
    void *map = mmap(NULL, h.total_size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd); /* the mapping keeps the file open */
    CF__RETURN_IF(map == MAP_FAILED, CF_E_IO);
    /* The file may have been replaced in place between the read and the
     * map: the shape decoded from `header` must be the mapped one's. */
    if (memcmp(map, header, CF__EXPIRING_HEADER_SIZE) != 0) {
        munmap(map, h.total_size);
        return CF_E_IO;
    }
    cf_filter *f;
    s = cf__expiring_from_header(&h, a, &f);
    if (s != CF_OK) {
        munmap(map, h.total_size);
        return s;
    }
    f->map_base = map;
    f->map_len = h.total_size;
    f->t.table = (uint8_t *)map + CF__EXPIRING_HEADER_SIZE;
    f->t.read_only = true;
    if (verify) {
        const uint8_t *m = map;
        if (cf__get_le(m + CF__EXPIRING_HEADER_SIZE + h.table_bytes, CF__TRAILER_SIZE) !=
            cf__expiring_checksum(m, f->t.table, h.table_bytes))
            s = CF_E_CHECKSUM;
        if (s == CF_OK) s = cf__check_padding(f);
        if (s == CF_OK) s = cf__expiring_check_table(f);
    }
    if (s != CF_OK) {
        cf__unmap(f);
        cf__expiring_free(f);
        return s;
    }
    (void)posix_madvise(map, h.total_size, POSIX_MADV_RANDOM);
    *out = f;
    return CF_OK;
}
