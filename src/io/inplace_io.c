/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * inplace_io.c -- in-place grown filters (format version 4) in files:
 * save, load and map (the bytes: format/inplace_format.c; the header,
 * table, trailer file: framed_io.c).  A mapping holds the table in place,
 * 128 bytes into the file.
 */
#include "format/inplace_format.h"
#include "io/file_io.h"
#include "io/framed_io.h"
#include "kind/inplace.h"

static cf_status cf__inplace_open(const uint8_t *header, uint64_t size, const cf_allocator *a,
                                  cf_filter **out, size_t *table_bytes, size_t *total_size) {
    cf__inplace_hdr h;
    CF__FORWARD_IF_ERROR(cf__inplace_header_decode(header, size, &h));
    *table_bytes = h.table_bytes;
    *total_size = h.total_size;
    return cf__inplace_from_header(&h, a, out);
}

static const cf__framed cf__inplace_file = {
    .header_size = CF__INPLACE_HEADER_SIZE,
    .encode = cf__inplace_header_encode,
    .open = cf__inplace_open,
    .checksum = cf__inplace_checksum,
    .check = cf__inplace_check_table,
    .free = cf__inplace_free,
};
_Static_assert(CF__INPLACE_HEADER_SIZE <= CF__FRAMED_HEADER_MAX, "framed_io.h's header room");

bool cf__inplace_write(const cf_filter *f, int fd) {
    return cf__framed_write(&cf__inplace_file, f, fd);
}

cf_status cf__inplace_load(int fd, uint64_t size, const cf_allocator *a, cf_filter **out) {
    return cf__framed_load(&cf__inplace_file, fd, size, a, out);
}

cf_status cf__inplace_map(int fd, uint64_t size, const cf_allocator *a, bool verify,
                          cf_filter **out) {
    return cf__framed_map(&cf__inplace_file, fd, size, a, verify, out);
}
