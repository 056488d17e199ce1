/*
 * file_io.c -- filters in files: atomic save, validated load, zero-copy map.
 *
 * Save never exposes a half-written file under the target name
 * (file_path.c has the picture):
 *
 *   temporary file beside the target ──write header, table, checksum──►
 *   fsync ──► rename(tmp, target) ──► fsync(directory)   (rename is atomic)
 *
 * A reader that opened or mapped the old file keeps the old inode, so files
 * are replaced, never modified in place: a mapping never sees bytes change
 * under it.  A crash before the rename leaves the old file, after it the
 * new one.  A symbolic link at path is followed: its target is replaced.
 * Only regular files are read or replaced: a FIFO would block a reader
 * forever, and replacing a device node (/dev/null) would break the system.
 *
 * Load reads the header first and validates it (cf__header_decode) before
 * allocating: the table allocated is exactly what the file's size holds.
 * Map validates the header (its own 32-bit check included) and uses the
 * table in place, so opening is O(1) in the file's size; verify = true also
 * checks the trailer checksum and the table's invariants, reading it all.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cf_format.h"
#include "file_path.h"
#include "grow.h"
#include "concurrent.h"

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

/* Opens path, reads the first min(size, 64) bytes (the rest of header is
 * zeroed) and decodes them as a header validated against the file's size.
 * On CF_OK the caller owns *fd_out; also on CF_E_VERSION for a version-2
 * (grown) file, which grow_io.c reads from the same descriptor (*size_out
 * is the file's size); on any other failure fd is closed.  O_NONBLOCK:
 * opening a FIFO would otherwise wait for a writer forever; the fstat then
 * refuses it (and has no effect on the reads of a regular file). */
static cf_status cf__open_header(const char *path, int *fd_out, uint64_t *size_out,
                                 uint8_t header[CF__HEADER_SIZE], cf__header *h) {
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
        s = got == want         ? cf__header_decode(header, size, h)
            : got == (size_t)-1 ? CF_E_IO
                                : CF_E_TRUNCATED;
    }
    if (s != CF_OK && !cf__is_grown(s, h)) {
        close(fd);
        return s;
    }
    *fd_out = fd;
    *size_out = size;
    return s;
}

cf_status cf_load(const char *path, const cf_allocator *a, cf_filter **out) {
    CF__RETURN_IF(out == NULL, CF_E_PARAM);
    *out = NULL;
    CF__RETURN_IF(path == NULL, CF_E_PARAM);

    int fd;
    uint64_t size;
    uint8_t header[CF__HEADER_SIZE];
    cf__header h;
    cf_status s0 = cf__open_header(path, &fd, &size, header, &h);
    if (cf__is_grown(s0, &h)) return cf__grow_load(fd, size, header, a, out);
    CF__FORWARD_IF_ERROR(s0);
    cf_filter *f = NULL;
    cf_status s = cf__filter_from_header(&h, a, &f);
    if (s == CF_OK) s = cf__table_alloc(f, false);
    if (s != CF_OK) goto fail;

    /* One pass: each chunk is read, hashed and its slots counted while it
     * is in cache.  A chunk of f * 2^17 bytes holds exactly 2^20 slots.
     * Semi-sorted tables are not slot arrays: they are checked whole below. */
    XXH3_state_t state;
    cf__checksum_begin(&state, header);
    const size_t chunk = (size_t)h.fp_bits << 17;
    const uint64_t slots = h.num_buckets * h.bucket_size;
    uint64_t occupied = 0;
    for (size_t off = 0; off < h.table_bytes; off += chunk) {
        size_t n = h.table_bytes - off < chunk ? h.table_bytes - off : chunk;
        size_t got = cf__pread_all(fd, f->table + off, n, CF__HEADER_SIZE + (uint64_t)off);
        if (got != n) {
            s = got == (size_t)-1 ? CF_E_IO : CF_E_TRUNCATED;
            goto fail;
        }
        XXH3_64bits_update(&state, f->table + off, n);
        uint64_t first = (uint64_t)(off / h.fp_bits) * 8;
        uint64_t end = first + ((uint64_t)1 << 20) < slots ? first + ((uint64_t)1 << 20) : slots;
        if (!f->semi_sort) occupied += cf__count_slots(f->table, first, end, h.fp_bits);
    }
    uint8_t trailer[CF__TRAILER_SIZE];
    size_t got = cf__pread_all(fd, trailer, sizeof trailer, CF__HEADER_SIZE + h.table_bytes);
    if (got != sizeof trailer) {
        s = got == (size_t)-1 ? CF_E_IO : CF_E_TRUNCATED;
        goto fail;
    }
    if (!cf__checksum_ok(&state, trailer)) {
        s = CF_E_CHECKSUM;
        goto fail;
    }
    if ((s = cf__check_padding(f)) != CF_OK) goto fail;
    if (f->semi_sort && (s = cf__check_table(f)) != CF_OK) goto fail;
    if (!f->semi_sort && occupied != h.items) {
        s = CF_E_CORRUPT;
        goto fail;
    }
    close(fd);
    *out = f;
    return CF_OK;
fail:
    close(fd);
    cf_free(f);
    return s;
}

cf_status cf_map(const char *path, bool verify, cf_filter **out) {
    CF__RETURN_IF(out == NULL, CF_E_PARAM);
    *out = NULL;
    CF__RETURN_IF(path == NULL, CF_E_PARAM);

    int fd;
    uint64_t size;
    uint8_t header[CF__HEADER_SIZE];
    cf__header h;
    cf_status s0 = cf__open_header(path, &fd, &size, header, &h);
    if (cf__is_grown(s0, &h)) return cf__grow_map(fd, size, header, verify, out);
    CF__FORWARD_IF_ERROR(s0);
    void *map = mmap(NULL, h.total_size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd); /* the mapping keeps the file open */
    CF__RETURN_IF(map == MAP_FAILED, CF_E_IO);
    const uint8_t *bytes = map;
    /* The file may have been replaced in place between the read and the map. */
    if (memcmp(bytes, header, CF__HEADER_SIZE) != 0) {
        munmap(map, h.total_size);
        return CF_E_IO;
    }
    if (verify && !cf__image_ok(bytes, h.table_bytes)) {
        munmap(map, h.total_size);
        return CF_E_CHECKSUM;
    }
    cf_filter *f;
    cf_status s = cf__filter_from_header(&h, NULL, &f);
    if (s != CF_OK) {
        munmap(map, h.total_size);
        return s;
    }
    /* The table is only ever read here; writes are refused by read_only. */
    f->table = (uint8_t *)(uintptr_t)(bytes + CF__HEADER_SIZE);
    f->read_only = true;
    f->owns_table = false;
    f->map_base = map;
    f->map_len = h.total_size;
    if (verify && (s = cf__check_table(f)) != CF_OK) {
        cf_free(f);
        return s;
    }
    /* Lookups touch two random buckets: read-ahead would only waste I/O. */
    (void)posix_madvise(map, h.total_size, POSIX_MADV_RANDOM);
    *out = f;
    return CF_OK;
}

cf_status cf_save(const cf_filter *f, const char *path) {
    CF__RETURN_IF(f == NULL || path == NULL || path[0] == '\0', CF_E_PARAM);
    return cf__save_to(f, path, NULL);
}

cf_status cf_save_locked(const cf_filter *f, const cf_file_lock *lock) {
    CF__RETURN_IF(f == NULL || lock == NULL, CF_E_PARAM);
    return cf__save_to(f, cf_file_lock_path(lock), lock);
}

cf_status cf__save_to(const cf_filter *f, const char *path, const cf_file_lock *held) {
    if (f->flags & CF_CONCURRENT) return cf__cc_save(f, path, held);
    cf__temp t;
    CF__FORWARD_IF_ERROR(cf__temp_open(path, &t));
    t.held = held;
    bool ok = (f->flags & CF_GROW) ? cf__grow_write(f, t.fd) : cf__image_write(t.fd, f);
    return cf__temp_commit(&t, ok && fsync(t.fd) == 0);
}

bool cf__image_write(int fd, const cf_filter *t) {
    uint8_t header[CF__HEADER_SIZE], trailer[CF__TRAILER_SIZE];
    cf__header_encode(t, header);
    cf__image_trailer(header, t->table, t->table_bytes, trailer);
    return cf__write_all(fd, header, sizeof header) &&
           cf__write_all(fd, t->table, t->table_bytes) &&
           cf__write_all(fd, trailer, sizeof trailer);
}
