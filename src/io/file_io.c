/* SPDX-License-Identifier: Apache-2.0 OR MIT */
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

#include <sys/mman.h>
#include <unistd.h>

#include "io/file_io.h"
#include "io/file_path.h"
#include "io/file_sys.h"
#include "table/table.h"

/* The version-1 path of cf__load_path, on the descriptor it opened (fd, a
 * regular file whose validated header is h, read into header); closes fd. */
static cf_status cf__load_table(int fd, const uint8_t header[CF__HEADER_SIZE], const cf__header *hp,
                                const cf_allocator *a, cf_filter **out) {
    const cf__header h = *hp;
    cf_filter *f = NULL;
    cf_status s = cf__filter_from_header(&h, a, &f);
    if (s == CF_OK) s = cf__table_alloc(&f->t, false);
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
        size_t got = cf__pread_all(fd, f->t.table + off, n, CF__HEADER_SIZE + (uint64_t)off);
        if (got != n) {
            s = got == (size_t)-1 ? CF_E_IO : CF_E_TRUNCATED;
            goto fail;
        }
        XXH3_64bits_update(&state, f->t.table + off, n);
        uint64_t first = (uint64_t)(off / h.fp_bits) * 8;
        uint64_t end = first + ((uint64_t)1 << 20) < slots ? first + ((uint64_t)1 << 20) : slots;
        if (!f->t.semi_sort) occupied += cf__count_slots(f->t.table, first, end, h.fp_bits);
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
    if (f->t.semi_sort && (s = cf__check_table(f)) != CF_OK) goto fail;
    if (!f->t.semi_sort && occupied != h.items) {
        s = CF_E_CORRUPT;
        goto fail;
    }
    close(fd);
    *out = f;
    return CF_OK;
fail:
    close(fd);
    cf__handle_free_plain(f);
    return s;
}

cf_status cf__load_path(const char *path, const cf_allocator *a, cf_filter **out) {
    int fd;
    uint64_t size;
    uint8_t header[CF__HEADER_SIZE];
    cf__header h;
    cf__image_kind kind;
    CF__FORWARD_IF_ERROR(cf__open_image(path, &fd, &size, header, &kind, &h));
    switch (kind) {
    case CF__IMAGE_TABLE: return cf__load_table(fd, header, &h, a, out);
    case CF__IMAGE_CHAIN: return cf__chain_load(fd, size, header, a, out);
    case CF__IMAGE_INPLACE: return cf__inplace_load(fd, size, a, out);
    case CF__IMAGE_EXPIRING: return cf__expiring_load(fd, size, a, out);
    }
    close(fd);
    return CF_E_VERSION; /* not reached: every kind is a case */
}

/* The version-1 path of cf__map_path (as cf__load_table); closes fd. */
static cf_status cf__map_table(int fd, const uint8_t header[CF__HEADER_SIZE], const cf__header *hp,
                               const cf_allocator *a, bool verify, cf_filter **out) {
    const cf__header h = *hp;
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
    cf_status s = cf__filter_from_header(&h, a, &f);
    if (s != CF_OK) {
        munmap(map, h.total_size);
        return s;
    }
    /* The table is only ever read here; writes are refused by read_only. */
    f->t.table = (uint8_t *)(uintptr_t)(bytes + CF__HEADER_SIZE);
    f->t.read_only = true;
    f->t.owns_table = false;
    f->map_base = map;
    f->map_len = h.total_size;
    if (verify && (s = cf__check_table(f)) != CF_OK) {
        cf__unmap(f);
        cf__handle_free_plain(f);
        return s;
    }
    /* Lookups touch two random buckets: read-ahead would only waste I/O. */
    (void)posix_madvise(map, h.total_size, POSIX_MADV_RANDOM);
    *out = f;
    return CF_OK;
}

cf_status cf__map_path(const char *path, const cf_allocator *a, bool verify, cf_filter **out) {
    int fd;
    uint64_t size;
    uint8_t header[CF__HEADER_SIZE];
    cf__header h;
    cf__image_kind kind;
    CF__FORWARD_IF_ERROR(cf__open_image(path, &fd, &size, header, &kind, &h));
    switch (kind) {
    case CF__IMAGE_TABLE: return cf__map_table(fd, header, &h, a, verify, out);
    case CF__IMAGE_CHAIN: return cf__chain_map(fd, size, header, a, verify, out);
    case CF__IMAGE_INPLACE: return cf__inplace_map(fd, size, a, verify, out);
    case CF__IMAGE_EXPIRING: return cf__expiring_map(fd, size, a, verify, out);
    }
    close(fd);
    return CF_E_VERSION; /* not reached: every kind is a case */
}

cf_status cf__save_file(const char *path, cf__file_writer write, const cf_filter *f,
                        const cf_file_lock *held) {
    cf__temp t;
    CF__FORWARD_IF_ERROR(cf__temp_open(path, &t));
    t.held_fd = held != NULL ? cf__lock_fd(held) : -1;
    bool ok = write(f, t.fd);
    return cf__temp_commit(&t, ok && fsync(t.fd) == 0);
}
