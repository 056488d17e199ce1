/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * chain_format.h -- format version 2, a CF_GROW filter's bytes: the pieces
 * that chain_format.c (memory buffers) and chain_io.c (files, mappings) share.
 * docs/FORMAT.md, "Grown filters (version 2)", is the specification.
 *
 *   0     64          64 + R0              ...                     len
 *   ┌─────┬───────────────────┬──────────┬───────────┬───────┬──────┐
 *   │ hdr │ record 0: version │ zero pad │ record 1  │ pad   │ ...  │
 *   │     │ 1 image of table 0│ to 64    │           │       │      │
 *   └─────┴───────────────────┴──────────┴───────────┴───────┴──────┘
 *
 * Each record is exactly a version-1 file of one table (header, table,
 * checksum), padded with zeros to a multiple of 64 bytes so that every
 * table starts cache-line aligned in a mapping, as a single table does.
 *
 * Version 8 is the same with the deletes the chain owes (kind/pending.h)
 * after the last record: E entries of (u64 hash, u64 deletes owed), hashes
 * strictly ascending, then a u64 XXH3-64 (seed 0) of those 16E bytes; the
 * header names E in bytes version 2 keeps zero.
 */
#ifndef CF_CHAIN_FORMAT_H
#define CF_CHAIN_FORMAT_H

#include "format/cf_format.h"
#include "kind/chain.h"

/* Offsets of the version-2 header fields (magic and version as in version 1). */
enum {
    CF__GOFF_TABLES = 10,     /* u16, 1..CF_MAX_TABLES                  */
    CF__GOFF_GROWTH = 12,     /* u32, 1..CF_MAX_GROWTH                  */
    CF__GOFF_MAX_BYTES = 16,  /* u64, 0 = none                          */
    CF__GOFF_TARGET_FPP = 24, /* u64, IEEE-754 binary64 bits, in (0, 1) */
    CF__GOFF_FAILED = 32,     /* u64, inserts the whole filter refused  */
    CF__GOFF_FLAGS = 40,      /* u16, CF_GROW and optionally CF_SEMI_SORT */
    CF__GOFF_RESERVED = 42,   /* 18 bytes of zeros (version 2)          */
    CF__GOFF_OWED = 44,       /* version 8: u32, entries owed, >= 1     */
    CF__GOFF_CHECK = 60,      /* u32, low 32 bits of XXH3-64(bytes 0..59) */
};

/* Bytes of a ledger of e entries after the records (0 for version 2). */
static inline uint64_t cf__chain_owed_size(uint64_t e) {
    return e == 0 ? 0 : e * 16 + 8;
}

/* A version-2 input validated record by record before anything is
 * allocated: the header's fields, then each record's header and place. */
typedef struct cf__chain_plan {
    unsigned tables, growth, flags;
    uint64_t max_bytes, failed_inserts;
    uint64_t owed; /* version 8's ledger entries (0 in version 2) */
    double target_fpp;
    cf__header rec[CF_MAX_TABLES];  /* record k's decoded header          */
    uint64_t offset[CF_MAX_TABLES]; /* where record k starts              */
    uint64_t end;                   /* where the next record would start  */
    uint64_t table_bytes;           /* sum of the records' T              */
} cf__chain_plan;

/* Bytes of a record: its version-1 image rounded up to 64. */
static inline uint64_t cf__chain_record_size(uint64_t image_size) {
    return (image_size + 63) & ~(uint64_t)63;
}

/* Decodes the version-2 header (buf holds min(len, 64) bytes of an input of
 * len bytes whose version field is 2): length, header check, fields. */
cf_status cf__chain_plan_begin(const uint8_t *buf, uint64_t len, cf__chain_plan *p);

/* Decodes record k at p->end (rec holds min(len - p->end, 64) bytes of it):
 * a valid version-1 header whose image and padding fit in the input,
 * consistent with the records before it.  Advances p->end. */
cf_status cf__chain_plan_record(cf__chain_plan *p, unsigned k, const uint8_t *rec, uint64_t len);

/* After the last record: the ledger's bytes and no more (version 8), the
 * FPP budget and max_bytes respected. */
cf_status cf__chain_plan_finish(const cf__chain_plan *p, uint64_t len);

/* The ledger's p->owed entries from its bytes at block (p->end; the plan
 * is finished): ascending hashes, deletes from 1 to the slots of all
 * tables, the checksum.  CF_E_CORRUPT / CF_E_CHECKSUM otherwise. */
cf_status cf__chain_owed_decode(const cf__chain_plan *p, const uint8_t *block,
                                cf__pending_entry *out);

/* The ledger read from block into the chain f (allocated through f's
 * allocator): cf__chain_owed_decode, then the chain owes them. */
cf_status cf__chain_owed_attach(cf_filter *f, const cf__chain_plan *p, const uint8_t *block);

/* Bytes [offset, offset + len) of f's ledger block (cf__chain_owed_size). */
void cf__chain_owed_range(const cf_filter *f, uint64_t offset, uint8_t *out, size_t len);

/* CF_E_CORRUPT unless the n padding bytes at pad are zero. */
cf_status cf__chain_check_pad(const uint8_t *pad, size_t n);

/* The version-2 header of f. */
void cf__chain_header_encode(const cf_filter *f, uint8_t out[CF__HEADER_SIZE]);

/* A CF_GROW filter in memory, format version 2 (chain_format.c): its size,
 * its bytes (cf__chain_serialized_size of them at dst), the filter from
 * len bytes at in (everything validated before anything is allocated), and
 * any range of its bytes (serialize_range.c). */
size_t cf__chain_serialized_size(const cf_filter *f);
void cf__chain_serialize(const cf_filter *f, uint8_t *dst);
cf_status cf__chain_deserialize(const uint8_t *in, size_t len, const cf_allocator *a,
                                cf_filter **out);
void cf__chain_range(const cf_filter *f, uint64_t offset, uint8_t *out, size_t len);

#endif /* CF_CHAIN_FORMAT_H */
