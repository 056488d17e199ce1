/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * framed_io.h -- files made of one header, the table's bytes and a checksum
 * trailer (format versions 4 and 7: the in-place and expiring kinds): save,
 * load and map written once (framed_io.c), each version's header behind a
 * descriptor (inplace_io.c, expiring_io.c).  A mapping holds the table in
 * place, header_size bytes into the file.
 */
#ifndef CF_IO_FRAMED_IO_H
#define CF_IO_FRAMED_IO_H

#include "format/cf_format.h"

/* The largest header a descriptor may have (both are 128 bytes). */
#define CF__FRAMED_HEADER_MAX 128

typedef struct cf__framed {
    size_t header_size; /* at most CF__FRAMED_HEADER_MAX */
    void (*encode)(const cf_filter *f, uint8_t *header);
    /* Decodes the header of a file of `size` bytes (the buffer is
     * header_size bytes, zero past the file's end) and makes the filter it
     * describes without its table's bytes; sets the table's and the
     * file's sizes. */
    cf_status (*open)(const uint8_t *header, uint64_t size, const cf_allocator *a, cf_filter **out,
                      size_t *table_bytes, size_t *total_size);
    uint64_t (*checksum)(const uint8_t *header, const uint8_t *table, size_t bytes);
    /* The table's invariants, once its bytes are read or mapped. */
    cf_status (*check)(const cf_filter *f);
    void (*free)(cf_filter *f);
} cf__framed;

bool cf__framed_write(const cf__framed *d, const cf_filter *f, int fd);
/* Both close fd. */
cf_status cf__framed_load(const cf__framed *d, int fd, uint64_t size, const cf_allocator *a,
                          cf_filter **out);
cf_status cf__framed_map(const cf__framed *d, int fd, uint64_t size, const cf_allocator *a,
                         bool verify, cf_filter **out);

#endif /* CF_IO_FRAMED_IO_H */
