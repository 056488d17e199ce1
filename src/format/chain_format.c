/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * chain_format.c -- a CF_GROW filter to bytes and back, in memory (format
 * version 2: chain_format.h, docs/FORMAT.md).
 *
 * A reader validates the header, then every record's header, place and
 * padding, then every record's checksum, all before allocating; each table
 * is then built by the version-1 code (cf__table_from_bytes), which checks
 * its invariants.  Single-table filters keep writing version 1, so their
 * bytes are what they always were and older readers still read them.
 */
#include "format/chain_format.h"
#include "table/table.h"

void cf__chain_header_encode(const cf_filter *f, uint8_t out[CF__HEADER_SIZE]) {
    const cf__chain *c = cf__chain_of(f);
    memset(out, 0, CF__HEADER_SIZE);
    memcpy(out + CF__OFF_MAGIC, cf__magic, sizeof cf__magic);
    cf__put_le(out + CF__OFF_VERSION, cf__format_version(f), 2);
    cf__put_le(out + CF__GOFF_TABLES, c->count, 2);
    cf__put_le(out + CF__GOFF_GROWTH, c->growth, 4);
    cf__put_le(out + CF__GOFF_MAX_BYTES, c->max_bytes, 8);
    cf__put_le(out + CF__GOFF_TARGET_FPP, cf__double_bits(c->target_fpp), 8);
    cf__put_le(out + CF__GOFF_FAILED, f->t.failed_inserts, 8);
    cf__put_le(out + CF__GOFF_FLAGS, f->t.flags, 2);
    if (c->pending.count != 0) cf__put_le(out + CF__GOFF_OWED, c->pending.count, 4);
    cf__put_le(out + CF__GOFF_CHECK, cf__header_check(out), 4);
}

cf_status cf__chain_plan_begin(const uint8_t *buf, uint64_t len, cf__chain_plan *p) {
    memset(p, 0, sizeof *p);
    CF__RETURN_IF(len < CF__HEADER_SIZE, CF_E_TRUNCATED);
    CF__RETURN_IF(cf__get_le(buf + CF__GOFF_CHECK, 4) != cf__header_check(buf), CF_E_CHECKSUM);
    p->tables = (unsigned)cf__get_le(buf + CF__GOFF_TABLES, 2);
    p->growth = (unsigned)cf__get_le(buf + CF__GOFF_GROWTH, 4);
    p->max_bytes = cf__get_le(buf + CF__GOFF_MAX_BYTES, 8);
    p->target_fpp = cf__bits_double(cf__get_le(buf + CF__GOFF_TARGET_FPP, 8));
    p->failed_inserts = cf__get_le(buf + CF__GOFF_FAILED, 8);
    p->flags = (unsigned)cf__get_le(buf + CF__GOFF_FLAGS, 2);
    CF__RETURN_IF(p->tables < 1 || p->tables > CF_MAX_TABLES, CF_E_CORRUPT);
    CF__RETURN_IF(p->growth < 1 || p->growth > CF_MAX_GROWTH, CF_E_CORRUPT);
    CF__RETURN_IF(!(p->target_fpp > 0.0 && p->target_fpp < 1.0), CF_E_CORRUPT);
    CF__RETURN_IF((p->flags & ~(unsigned)CF_SEMI_SORT) != CF_GROW, CF_E_CORRUPT);
    if (cf__get_le(buf + CF__OFF_VERSION, 2) == CF__FORMAT_VERSION_CHAIN_OWED) {
        p->owed = cf__get_le(buf + CF__GOFF_OWED, 4);
        CF__RETURN_IF(p->owed == 0, CF_E_CORRUPT); /* a ledger of none is version 2 */
    }
    /* What neither version uses is zero. */
    for (unsigned i = CF__GOFF_RESERVED; i < CF__GOFF_CHECK; i++) {
        bool used = p->owed != 0 && i >= CF__GOFF_OWED && i < CF__GOFF_OWED + 4;
        CF__RETURN_IF(!used && buf[i] != 0, CF_E_CORRUPT);
    }
    p->end = CF__HEADER_SIZE;
    return CF_OK;
}

/* Whether table k of shape h must be semi-sorted: where the filter asks for
 * it and the width allows it (cf__next_config's rule). */
static bool cf__chain_semi_expected(const cf__chain_plan *p, const cf__header *h) {
    return (p->flags & CF_SEMI_SORT) && cf__semi_sort_fits(h->bucket_size, h->fp_bits);
}

cf_status cf__chain_plan_record(cf__chain_plan *p, unsigned k, const uint8_t *rec, uint64_t len) {
    cf__header *h = &p->rec[k];
    cf_status s = cf__header_decode_prefix(rec, len - p->end, h);
    /* Inside a version-2 input, a record that is not a version-1 image is
     * damage, not a foreign or newer file. */
    CF__RETURN_IF(s == CF_E_MAGIC || s == CF_E_VERSION, CF_E_CORRUPT);
    CF__FORWARD_IF_ERROR(s);
    CF__RETURN_IF(((h->flags & CF_SEMI_SORT) != 0) != cf__chain_semi_expected(p, h), CF_E_CORRUPT);
    if (k > 0) {
        const cf__header *prev = &p->rec[k - 1];
        CF__RETURN_IF(h->seed != prev->seed || h->bucket_size != prev->bucket_size ||
                          h->max_kicks != prev->max_kicks,
                      CF_E_CORRUPT);
        CF__RETURN_IF(prev->num_buckets > UINT64_MAX / p->growth ||
                          h->num_buckets != prev->num_buckets * p->growth,
                      CF_E_CORRUPT);
    }
    uint64_t size = cf__chain_record_size(h->total_size);
    CF__RETURN_IF(len - p->end < size, CF_E_TRUNCATED);
    p->offset[k] = p->end;
    p->end += size;
    p->table_bytes += h->table_bytes; /* records fit in len: no overflow */
    return CF_OK;
}

cf_status cf__chain_plan_finish(const cf__chain_plan *p, uint64_t len) {
    uint64_t owed = cf__chain_owed_size(p->owed);
    CF__RETURN_IF(len - p->end < owed, CF_E_TRUNCATED);
    CF__RETURN_IF(len - p->end != owed, CF_E_CORRUPT); /* trailing bytes */
    double spent = 0.0;
    for (unsigned k = 0; k < p->tables; k++)
        spent += cf__fpp(p->rec[k].fp_bits, p->rec[k].bucket_size, 1.0);
    CF__RETURN_IF(!(spent < p->target_fpp), CF_E_CORRUPT);
    CF__RETURN_IF(p->max_bytes != 0 && p->table_bytes > p->max_bytes, CF_E_CORRUPT);
    return CF_OK;
}

cf_status cf__chain_check_pad(const uint8_t *pad, size_t n) {
    for (size_t i = 0; i < n; i++) CF__RETURN_IF(pad[i] != 0, CF_E_CORRUPT);
    return CF_OK;
}

/* One entry's 16 bytes. */
static void cf__owed_entry_bytes(const cf__pending_entry *e, uint8_t out[16]) {
    cf__put_le(out, e->h, 8);
    cf__put_le(out + 8, e->n, 8);
}

/* The ledger's checksum: XXH3-64 of its entries' bytes, made from the
 * entries, so that the writer and the reader ask one function. */
static uint64_t cf__owed_checksum(const cf__pending_entry *e, size_t count) {
    XXH3_state_t st; /* on the stack: the library allocates only via the filter */
    cf__checksum_reset(&st);
    uint8_t piece[16];
    for (size_t i = 0; i < count; i++) {
        cf__owed_entry_bytes(&e[i], piece);
        cf__checksum_update(&st, piece, sizeof piece);
    }
    return cf__checksum_digest(&st);
}

cf_status cf__chain_owed_decode(const cf__chain_plan *p, const uint8_t *block,
                                cf__pending_entry *out) {
    uint64_t slots = 0;
    for (unsigned k = 0; k < p->tables; k++)
        slots += p->rec[k].num_buckets * p->rec[k].bucket_size; /* the records fit in memory */
    for (uint64_t i = 0; i < p->owed; i++) {
        out[i].h = cf__get_le(block + 16 * i, 8);
        out[i].n = cf__get_le(block + 16 * i + 8, 8);
        CF__RETURN_IF(i > 0 && out[i].h <= out[i - 1].h, CF_E_CORRUPT);
        CF__RETURN_IF(out[i].n == 0 || out[i].n > slots, CF_E_CORRUPT);
    }
    uint64_t sum = cf__owed_checksum(out, (size_t)p->owed);
    CF__RETURN_IF(cf__get_le(block + 16 * p->owed, 8) != sum, CF_E_CHECKSUM);
    return CF_OK;
}

cf_status cf__chain_owed_attach(cf_filter *f, const cf__chain_plan *p, const uint8_t *block) {
    if (p->owed == 0) return CF_OK;
    cf__pending *ledger = &cf__chain_of(f)->pending;
    cf__pending_entry *e = cf__pending_room(ledger, &f->t.alloc, p->owed);
    CF__RETURN_IF(e == NULL, CF_E_NOMEM);
    cf_status s = cf__chain_owed_decode(p, block, e);
    if (s == CF_OK) {
        cf__pending_filled(ledger, (size_t)p->owed);
        cf__chain_of(f)->unsettled = true;
    } else
        cf__pending_clear(ledger, &f->t.alloc);
    return s;
}

void cf__chain_owed_range(const cf_filter *f, uint64_t offset, uint8_t *out, size_t len) {
    const cf__pending *p = &cf__chain_of(f)->pending;
    uint64_t entries = 16 * (uint64_t)p->count;
    uint8_t piece[16];
    /* The entries asked for, each encoded once, then the checksum if any of
     * it is asked for (no copy of the block is ever allocated). */
    while (len > 0 && offset < entries) {
        size_t at = (size_t)(offset % 16), n = 16 - at < len ? 16 - at : len;
        cf__owed_entry_bytes(&p->e[offset / 16], piece);
        memcpy(out, piece + at, n);
        out += n, offset += n, len -= n;
    }
    if (len == 0) return;
    cf__put_le(piece, cf__owed_checksum(p->e, p->count), 8);
    memcpy(out, piece + (offset - entries), len);
}

size_t cf__chain_serialized_size(const cf_filter *f) {
    size_t n = CF__HEADER_SIZE + cf__chain_owed_size(cf__chain_of(f)->pending.count);
    for (unsigned k = 0; k < cf__chain_of(f)->count; k++)
        n += cf__chain_record_size(cf__image_size(cf__chain_of(f)->tables[k]));
    return n;
}

void cf__chain_serialize(const cf_filter *f, uint8_t *dst) {
    cf__chain_header_encode(f, dst);
    uint8_t *p = dst + CF__HEADER_SIZE;
    for (unsigned k = 0; k < cf__chain_of(f)->count; k++) {
        const cf_filter *t = cf__chain_of(f)->tables[k];
        size_t image = cf__image_size(t), size = cf__chain_record_size(image);
        cf__image_encode(t, p);
        memset(p + image, 0, size - image);
        p += size;
    }
    cf__chain_owed_range(f, 0, p, cf__chain_owed_size(cf__chain_of(f)->pending.count));
}

/* Validates everything the bytes say before allocating (chain_format.h). */
static cf_status cf__chain_validate(const uint8_t *in, size_t len, cf__chain_plan *p) {
    CF__FORWARD_IF_ERROR(cf__chain_plan_begin(in, len, p));
    for (unsigned k = 0; k < p->tables; k++)
        CF__FORWARD_IF_ERROR(cf__chain_plan_record(p, k, in + p->end, len));
    CF__FORWARD_IF_ERROR(cf__chain_plan_finish(p, len));
    for (unsigned k = 0; k < p->tables; k++) {
        const cf__header *h = &p->rec[k];
        const uint8_t *rec = in + p->offset[k];
        CF__FORWARD_IF_ERROR(cf__chain_check_pad(
            rec + h->total_size, (size_t)(cf__chain_record_size(h->total_size) - h->total_size)));
    }
    for (unsigned k = 0; k < p->tables; k++) {
        const cf__header *h = &p->rec[k];
        const uint8_t *rec = in + p->offset[k];
        CF__RETURN_IF(!cf__image_ok(rec, h->table_bytes), CF_E_CHECKSUM);
    }
    return CF_OK;
}

cf_status cf__chain_deserialize(const uint8_t *in, size_t len, const cf_allocator *a,
                                cf_filter **out) {
    cf__chain_plan p;
    CF__FORWARD_IF_ERROR(cf__chain_validate(in, len, &p));
    cf_filter *f;
    CF__FORWARD_IF_ERROR(cf__chain_shell(a, p.flags, p.growth, p.max_bytes, p.target_fpp, &f));
    f->t.failed_inserts = p.failed_inserts;
    for (unsigned k = 0; k < p.tables; k++) {
        cf_filter *t;
        cf_status s = cf__table_from_bytes(&p.rec[k], in + p.offset[k] + CF__HEADER_SIZE, a, &t);
        if (s != CF_OK) {
            cf__chain_free(f);
            return s;
        }
        cf__chain_attach(f, t);
    }
    cf_status s = cf__chain_owed_attach(f, &p, in + p.end);
    if (s != CF_OK) {
        cf__chain_free(f);
        return s;
    }
    *out = f;
    return CF_OK;
}
