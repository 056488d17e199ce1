/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * expiring_io.c -- expiring filters (format version 7) in files: save,
 * load and map (the bytes: format/expiring_format.c; the header, table,
 * trailer file: framed_io.c).  A mapping holds the table in place, 128
 * bytes into the file; a mapped filter answers at the file's clock
 * (cf_set_time needs a writable one).
 */
#include "format/expiring_format.h"
#include "io/file_io.h"
#include "io/framed_io.h"
#include "kind/expiring.h"

static cf_status cf__expiring_open(const uint8_t *header, uint64_t size, const cf_allocator *a,
                                   cf_filter **out, size_t *table_bytes, size_t *total_size) {
    cf__expiring_hdr h;
    CF__FORWARD_IF_ERROR(cf__expiring_header_decode(header, size, &h));
    *table_bytes = h.table_bytes;
    *total_size = h.total_size;
    return cf__expiring_from_header(&h, a, out);
}

/* The padding after the table's last bucket is zero, then the slots. */
static cf_status cf__expiring_check_file(const cf_filter *f) {
    CF__FORWARD_IF_ERROR(cf__check_padding(f));
    return cf__expiring_check_table(f);
}

static const cf__framed cf__expiring_file = {
    .header_size = CF__EXPIRING_HEADER_SIZE,
    .encode = cf__expiring_header_encode,
    .open = cf__expiring_open,
    .checksum = cf__expiring_checksum,
    .check = cf__expiring_check_file,
    .free = cf__expiring_free,
};
_Static_assert(CF__EXPIRING_HEADER_SIZE <= CF__FRAMED_HEADER_MAX, "framed_io.h's header room");

bool cf__expiring_write(const cf_filter *f, int fd) {
    return cf__framed_write(&cf__expiring_file, f, fd);
}

cf_status cf__expiring_load(int fd, uint64_t size, const cf_allocator *a, cf_filter **out) {
    return cf__framed_load(&cf__expiring_file, fd, size, a, out);
}

cf_status cf__expiring_map(int fd, uint64_t size, const cf_allocator *a, bool verify,
                           cf_filter **out) {
    return cf__framed_map(&cf__expiring_file, fd, size, a, verify, out);
}
