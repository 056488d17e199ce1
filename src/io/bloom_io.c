/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * bloom_io.c -- comparison Bloom filters in files.
 *
 * A save writes header, bits and trailer to a temporary file beside the
 * target and renames it over the target (file_path.c: cf_save's steps, so
 * a crash leaves the old file or the new one).  A load reads the 40-byte
 * header and validates it against the file's size before allocating, then
 * reads the bits straight into the new filter and checks the trailer and
 * the bits (docs/FORMAT.md, "Bloom filters": B1 to B9, in that order).
 *
 * A map makes the same checks on the file's pages and uses them as the bits
 * in place (read-only; adds are refused).  The header has no check of its
 * own, so a map always reads the whole file once to verify the trailer: a
 * header damaged into other valid values (k, the seed) would otherwise give
 * false negatives.  The header read before the mmap is compared with the
 * mapped one: the file may have been replaced in place between the two.
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/bloom_format.h"
#include "io/bloom_io.h"
#include "io/file_path.h"
#include "io/file_sys.h"

cf_status cf__bloom_save_path(const cf_bloom *b, const char *path) {
    cf__temp t;
    CF__FORWARD_IF_ERROR(cf__temp_open(path, &t));
    uint8_t header[CF__BLOOM_HEADER_SIZE], trailer[CF__TRAILER_SIZE];
    cf__bloom_header_encode(b, header);
    cf__put_le(trailer, cf__bloom_checksum(header, b->bits, b->bytes), CF__TRAILER_SIZE);
    bool ok = cf__write_all(t.fd, header, sizeof header) &&
              cf__write_all(t.fd, b->bits, b->bytes) &&
              cf__write_all(t.fd, trailer, sizeof trailer) && fsync(t.fd) == 0;
    return cf__temp_commit(&t, ok);
}

/* The rest of a load once the header is valid: bits, trailer, checks. */
static cf_status cf__bloom_read_rest(int fd, const uint8_t header[CF__BLOOM_HEADER_SIZE],
                                     size_t bytes, const cf_allocator *a, cf_bloom **out) {
    cf_bloom *b;
    CF__FORWARD_IF_ERROR(cf__bloom_from_header(header, a, &b));
    uint8_t trailer[CF__TRAILER_SIZE];
    cf_status s = cf__read_exact(fd, b->bits, bytes, CF__BLOOM_HEADER_SIZE);
    if (s == CF_OK)
        s = cf__read_exact(fd, trailer, sizeof trailer, CF__BLOOM_HEADER_SIZE + (uint64_t)bytes);
    if (s == CF_OK &&
        cf__get_le(trailer, CF__TRAILER_SIZE) != cf__bloom_checksum(header, b->bits, bytes))
        s = CF_E_CHECKSUM;
    if (s == CF_OK) s = cf__bloom_check_bits(header, b->bits, bytes);
    if (s != CF_OK) {
        cf__bloom_destroy(b);
        return s;
    }
    *out = b;
    return CF_OK;
}

/* Opens path (a regular file), reads its header and validates it against
 * the file's size (B1 to B7): on CF_OK the caller owns *fd, and *bytes is
 * the bit array's size; on failure nothing is open. */
static cf_status cf__bloom_open(const char *path, int *fd_out,
                                uint8_t header[CF__BLOOM_HEADER_SIZE], size_t *bytes) {
    /* O_NONBLOCK: opening a FIFO would wait for a writer; fstat refuses it. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        struct stat st;
        return stat(path, &st) == 0 && !S_ISREG(st.st_mode) ? CF_E_NOT_REGULAR : CF_E_IO;
    }
    struct stat st;
    cf_status s = fstat(fd, &st) != 0 ? CF_E_IO : !S_ISREG(st.st_mode) ? CF_E_NOT_REGULAR : CF_OK;
    memset(header, 0, CF__BLOOM_HEADER_SIZE);
    uint64_t size = s == CF_OK ? (uint64_t)st.st_size : 0;
    if (s == CF_OK) {
        size_t want = size < CF__BLOOM_HEADER_SIZE ? (size_t)size : CF__BLOOM_HEADER_SIZE;
        s = cf__read_exact(fd, header, want, 0);
    }
    if (s == CF_OK) s = cf__bloom_header_decode(header, size, bytes);
    if (s != CF_OK) {
        close(fd);
        return s;
    }
    *fd_out = fd;
    return CF_OK;
}

cf_status cf__bloom_load_path(const char *path, const cf_allocator *a, cf_bloom **out) {
    int fd;
    uint8_t header[CF__BLOOM_HEADER_SIZE];
    size_t bytes;
    CF__FORWARD_IF_ERROR(cf__bloom_open(path, &fd, header, &bytes));
    cf_status s = cf__bloom_read_rest(fd, header, bytes, a, out);
    close(fd);
    return s;
}

/* Checks the mapped image of `bytes` bits at map (header as read before
 * the mapping): the same header, the trailer, the bits (B8, B9). */
static cf_status cf__bloom_check_mapped(const uint8_t *map,
                                        const uint8_t header[CF__BLOOM_HEADER_SIZE], size_t bytes) {
    CF__RETURN_IF(memcmp(map, header, CF__BLOOM_HEADER_SIZE) != 0, CF_E_IO);
    const uint8_t *bits = map + CF__BLOOM_HEADER_SIZE;
    CF__RETURN_IF(cf__get_le(bits + bytes, CF__TRAILER_SIZE) !=
                      cf__bloom_checksum(header, bits, bytes),
                  CF_E_CHECKSUM);
    return cf__bloom_check_bits(header, bits, bytes);
}

cf_status cf__bloom_map_path(const char *path, const cf_allocator *a, cf_bloom **out) {
    int fd;
    uint8_t header[CF__BLOOM_HEADER_SIZE];
    size_t bytes;
    CF__FORWARD_IF_ERROR(cf__bloom_open(path, &fd, header, &bytes));
    size_t len =
        CF__BLOOM_HEADER_SIZE + bytes + CF__TRAILER_SIZE; /* checked by the header decode */
    void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    close(fd); /* the mapping keeps the file open */
    CF__RETURN_IF(map == MAP_FAILED, CF_E_IO);
    uint8_t *image = map;
    cf_status s = cf__bloom_check_mapped(image, header, bytes);
    /* The bits are only ever read: adds are refused while map_base is set. */
    if (s == CF_OK) s = cf__bloom_view_from_header(header, a, image + CF__BLOOM_HEADER_SIZE, out);
    if (s != CF_OK) {
        munmap(map, len);
        return s;
    }
    (*out)->map_base = map;
    (*out)->map_len = len;
    /* Lookups touch k random bytes: read-ahead would only waste I/O. */
    (void)posix_madvise(map, len, POSIX_MADV_RANDOM);
    return CF_OK;
}

void cf__bloom_unmap(cf_bloom *b) {
    if (b->map_base == NULL) return;
    munmap(b->map_base, b->map_len);
    /* The bits were the mapping's: nothing of them is left to free. */
    b->map_base = NULL;
    b->bits = NULL;
}
