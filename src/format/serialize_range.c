/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * serialize_range.c -- any byte range of a filter's serialized form, built
 * on the fly from the live filter (format: docs/FORMAT.md).
 *
 *   offset 0          64                 64 + table_bytes    + 8
 *          ┌─ header ─┬────── table ──────┬─ trailer ─┐
 *          encoded     copied from f->table  XXH3-64 of header and table,
 *          per call                          computed when a range reaches it
 *
 * A program that streams a large filter (the Redis module's CF.SCANDUMP)
 * asks for one chunk at a time and needs no copy of the whole form.  Each
 * call reads the filter as it is then; pieces taken across a change do not
 * fit together, and the trailer (or the header's item count) shows it to
 * cf_deserialize.  A grown filter (version 2) is served table by table.
 * The public cf_serialize_range (api/bytes.c) checks the range first.
 */
#include "format/cf_format.h"
#include "format/chain_format.h"

/* A grown filter's form (version 2) is its header, then each table's
 * version-1 image padded to a multiple of 64 bytes: the ranges of each
 * record come from that table, the padding is zeros; version 8's ledger
 * follows the records.  The caller checked
 * the range against the whole form. */
void cf__chain_range(const cf_filter *f, uint64_t offset, uint8_t *out, size_t len) {
    uint8_t header[CF__HEADER_SIZE];
    cf__chain_header_encode(f, header);
    uint64_t start = 0, end = CF__HEADER_SIZE; /* the current piece: [start, end) */
    for (unsigned k = 0; len > 0; k++) {
        if (offset < end) {
            uint64_t in = offset - start;
            size_t n = end - offset < len ? (size_t)(end - offset) : len;
            if (k == 0) {
                memcpy(out, header + in, n);
            } else if (k > cf__chain_of(f)->count) {
                cf__chain_owed_range(f, in, out, n);
            } else {
                const cf_filter *t = cf__chain_of(f)->tables[k - 1];
                uint64_t image = cf__image_size(t);
                size_t from_image = in < image ? (image - in < n ? (size_t)(image - in) : n) : 0;
                if (from_image > 0) cf__image_range(t, in, out, from_image);
                memset(out + from_image, 0, n - from_image);
            }
            out += n;
            offset += n;
            len -= n;
        }
        if (k < cf__chain_of(f)->count) {
            start = end;
            end += cf__chain_record_size(cf__image_size(cf__chain_of(f)->tables[k]));
        } else if (k == cf__chain_of(f)->count) { /* the ledger (version 8) */
            start = end;
            end += cf__chain_owed_size(cf__chain_of(f)->pending.count);
        }
    }
}

void cf__image_range(const cf_filter *f, uint64_t offset, uint8_t *dst, size_t len) {
    uint8_t header[CF__HEADER_SIZE];
    cf__header_encode(f, header);
    cf__form_range(header, CF__HEADER_SIZE, f->t.table, f->t.table_bytes, offset, dst, len);
}
