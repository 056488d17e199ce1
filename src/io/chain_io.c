/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * chain_io.c -- CF_GROW filters in files: the bytes cf_save writes, and the
 * version-2 and version-8 paths of cf_load and cf_map (layout:
 * chain_format.h).
 *
 * Load and map work on the descriptor cf_load or cf_map opened (the file
 * is opened once), read every record's header with small reads and
 * validate them all (sizes, shapes, padding) before anything is allocated
 * or mapped; then load reads each table into memory it allocates
 * and checks its checksum and invariants, and map uses each table in place
 * in one read-only mapping of the whole file (checksums and invariants only
 * with verify), as for a single table.
 */
#define _POSIX_C_SOURCE 200809L

#include <sys/mman.h>
#include <unistd.h>

#include "io/file_io.h"
#include "io/file_sys.h"
#include "format/chain_format.h"
#include "table/table.h"

static const uint8_t cf__zeros[64];

bool cf__chain_write(const cf_filter *f, int fd) {
    uint8_t header[CF__HEADER_SIZE];
    cf__chain_header_encode(f, header);
    if (!cf__write_all(fd, header, sizeof header)) return false;
    for (unsigned k = 0; k < cf__chain_of(f)->count; k++) {
        const cf_filter *t = cf__chain_of(f)->tables[k];
        size_t image = cf__image_size(t);
        if (!cf__image_write(t, fd) ||
            !cf__write_all(fd, cf__zeros, (size_t)(cf__chain_record_size(image) - image)))
            return false;
    }
    /* Version 8's ledger, in pieces of a few entries (no allocation). */
    uint64_t owed = cf__chain_owed_size(cf__chain_of(f)->pending.count);
    uint8_t buf[256];
    for (uint64_t at = 0; at < owed; at += sizeof buf) {
        size_t n = owed - at < sizeof buf ? (size_t)(owed - at) : sizeof buf;
        cf__chain_owed_range(f, at, buf, n);
        if (!cf__write_all(fd, buf, n)) return false;
    }
    return true;
}

/* The ledger of a validated version-8 file (p->end on): read into memory
 * of the filter's allocator, decoded and attached to f. */
static cf_status cf__chain_load_owed(int fd, const cf__chain_plan *p, cf_filter *f) {
    if (p->owed == 0) return CF_OK;
    uint64_t size = cf__chain_owed_size(p->owed);
    CF__RETURN_IF(size > SIZE_MAX, CF_E_NOMEM);
    uint8_t *block = cf__alloc(&f->t.alloc, (size_t)size);
    CF__RETURN_IF(block == NULL, CF_E_NOMEM);
    cf_status s = cf__read_exact(fd, block, (size_t)size, p->end);
    if (s == CF_OK) s = cf__chain_owed_attach(f, p, block);
    cf__free(&f->t.alloc, block);
    return s;
}

/* Validates the header (head, the first min(size, 64) bytes of fd), the
 * records and the padding of the version-2 file fd of size bytes; no table
 * bytes are read.  hdrs receives each record's header. */
static cf_status cf__chain_check_file(int fd, uint64_t size, const uint8_t *head, cf__chain_plan *p,
                                      uint8_t (*hdrs)[CF__HEADER_SIZE]) {
    cf_status s = cf__chain_plan_begin(head, size, p);
    for (unsigned k = 0; s == CF_OK && k < p->tables; k++) {
        uint64_t left = size - p->end;
        s = cf__read_exact(fd, hdrs[k], left < CF__HEADER_SIZE ? (size_t)left : CF__HEADER_SIZE,
                           p->end);
        if (s == CF_OK) s = cf__chain_plan_record(p, k, hdrs[k], size);
    }
    if (s == CF_OK) s = cf__chain_plan_finish(p, size);
    uint8_t buf[CF__HEADER_SIZE];
    for (unsigned k = 0; s == CF_OK && k < p->tables; k++) {
        uint64_t image = p->rec[k].total_size;
        size_t pad = (size_t)(cf__chain_record_size(image) - image);
        s = cf__read_exact(fd, buf, pad, p->offset[k] + image);
        if (s == CF_OK) s = cf__chain_check_pad(buf, pad);
    }
    return s;
}

/* Table k of a validated file: read into allocated memory, checksum and
 * invariants checked. */
static cf_status cf__chain_load_table(int fd, const cf__chain_plan *p, unsigned k,
                                      const uint8_t *hdr, const cf_allocator *a, cf_filter **out) {
    const cf__header *h = &p->rec[k];
    cf_filter *t;
    CF__FORWARD_IF_ERROR(cf__filter_from_header(h, a, &t));
    cf_status s = cf__table_alloc(&t->t, false);
    if (s != CF_OK) goto fail;
    uint8_t trailer[CF__TRAILER_SIZE];
    uint64_t at = p->offset[k] + CF__HEADER_SIZE;
    if ((s = cf__read_exact(fd, t->t.table, h->table_bytes, at)) != CF_OK) goto fail;
    if ((s = cf__read_exact(fd, trailer, sizeof trailer, at + h->table_bytes)) != CF_OK) goto fail;
    s = CF_E_CHECKSUM;
    if (!cf__image_trailer_ok(hdr, t->t.table, h->table_bytes, trailer)) goto fail;
    if ((s = cf__check_table(t)) != CF_OK) goto fail;
    *out = t;
    return CF_OK;
fail:
    cf__handle_free_plain(t);
    return s;
}

cf_status cf__chain_load(int fd, uint64_t size, const uint8_t *head, const cf_allocator *a,
                         cf_filter **out) {
    cf__chain_plan p;
    uint8_t hdrs[CF_MAX_TABLES][CF__HEADER_SIZE];
    cf_filter *f = NULL;
    cf_status s = cf__chain_check_file(fd, size, head, &p, hdrs);
    if (s == CF_OK) s = cf__chain_shell(a, p.flags, p.growth, p.max_bytes, p.target_fpp, &f);
    if (s != CF_OK) {
        close(fd);
        return s;
    }
    f->t.failed_inserts = p.failed_inserts;
    for (unsigned k = 0; k < p.tables; k++) {
        cf_filter *t;
        if ((s = cf__chain_load_table(fd, &p, k, hdrs[k], a, &t)) != CF_OK) break;
        cf__chain_attach(f, t);
    }
    if (s == CF_OK) s = cf__chain_load_owed(fd, &p, f);
    close(fd);
    if (s != CF_OK) {
        cf__chain_free(f);
        return s;
    }
    *out = f;
    return CF_OK;
}

/* Table k in place in the mapping at base. */
static cf_status cf__chain_map_table(const uint8_t *base, const cf__chain_plan *p, unsigned k,
                                     const cf_allocator *a, bool verify, cf_filter **out) {
    const cf__header *h = &p->rec[k];
    const uint8_t *rec = base + p->offset[k];
    if (verify && !cf__image_ok(rec, h->table_bytes)) return CF_E_CHECKSUM;
    cf_filter *t;
    CF__FORWARD_IF_ERROR(cf__filter_from_header(h, a, &t));
    /* Only ever read; writes are refused by read_only. */
    t->t.table = (uint8_t *)(uintptr_t)(rec + CF__HEADER_SIZE);
    t->t.read_only = true;
    cf_status s = verify ? cf__check_table(t) : CF_OK;
    if (s != CF_OK) {
        cf__handle_free_plain(t);
        return s;
    }
    *out = t;
    return CF_OK;
}

cf_status cf__chain_map(int fd, uint64_t size, const uint8_t *head, const cf_allocator *a,
                        bool verify, cf_filter **out) {
    cf__chain_plan p;
    uint8_t hdrs[CF_MAX_TABLES][CF__HEADER_SIZE];
    cf_status s0 = cf__chain_check_file(fd, size, head, &p, hdrs);
    if (s0 != CF_OK) {
        close(fd);
        return s0;
    }
    void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd); /* the mapping keeps the file open */
    CF__RETURN_IF(map == MAP_FAILED, CF_E_IO);
    const uint8_t *bytes = map;
    cf_filter *f = NULL;
    cf_status s = CF_E_IO;
    /* The file may have been replaced in place between the reads and the map. */
    if (memcmp(bytes, head, CF__HEADER_SIZE) != 0) goto fail;
    for (unsigned k = 0; k < p.tables; k++)
        if (memcmp(bytes + p.offset[k], hdrs[k], CF__HEADER_SIZE) != 0) goto fail;
    s = cf__chain_shell(a, p.flags, p.growth, p.max_bytes, p.target_fpp, &f);
    if (s != CF_OK) goto fail;
    f->t.failed_inserts = p.failed_inserts;
    f->map_base = map;
    f->map_len = (size_t)size;
    for (unsigned k = 0; k < p.tables; k++) {
        cf_filter *t;
        if ((s = cf__chain_map_table(bytes, &p, k, a, verify, &t)) != CF_OK) {
            cf__unmap(f);
            cf__chain_free(f);
            return s;
        }
        cf__chain_attach(f, t);
    }
    /* The ledger is copied out of the mapping: it is small, and a mapped
     * filter never changes it. */
    if ((s = cf__chain_owed_attach(f, &p, bytes + p.end)) != CF_OK) {
        cf__unmap(f);
        cf__chain_free(f);
        return s;
    }
    (void)posix_madvise(map, (size_t)size, POSIX_MADV_RANDOM);
    *out = f;
    return CF_OK;
fail:
    munmap(map, (size_t)size);
    return s;
}
