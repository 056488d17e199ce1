/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_load.h -- a restore in progress: the state machine that turns a
 * dump stream (cf_redis_dump.h), arriving in pieces from CF.LOADCHUNK, an
 * RDB value or COPY, into a filter.  A key (cf_redis_chain.h) holds one of
 * these instead of its filter while it is loading; the loader knows nothing
 * of keys, commands or persistence.
 *
 *   header accepted ──► images arrive in order, each validated whole
 *   (cfr_loader_new)    (cfr_loader_append: pieces of any size, at the
 *                        offset received so far)
 *                   ──► all images in: cfr_loader_build gives one filter
 *                       (a version-1 dump's sub-filters become the tables
 *                        of one growing filter)
 *
 * Memory grows with the bytes received, never with what a header claims:
 * an image is collected in a buffer doubled as bytes arrive (up to its
 * stated length), then validated by cf_deserialize and the buffer freed.
 */
#ifndef CF_REDIS_LOAD_H
#define CF_REDIS_LOAD_H

#include "cf_redis_dump.h"
#include "cuckoofilter.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the key and loader functions answer. */
typedef enum cfr_result {
    CFR_OK = 0,
    CFR_EXISTS,       /* NX insert: may already be present */
    CFR_FULL,         /* no room and the key may not grow (EXPANSION 0) */
    CFR_MAX_FILTERS,  /* growth refused: MAX_FILTERS tables, or an in-place
                         key's doubling would pass its ERROR_RATE */
    CFR_NOMEM,        /* growth refused: allocation failed or MAX_KEY_BYTES */
    CFR_BAD_POSITION, /* LOADCHUNK out of order */
    CFR_STALE,        /* LOADCHUNK: chunks of two generations (a write mid-dump) */
    CFR_BAD_HEADER,   /* LOADCHUNK / RDB header invalid */
    CFR_BAD_CHUNK     /* an image failed validation */
} cfr_result;

typedef struct cfr_loader {
    cfr_dump_fields d; /* the accepted header's fields */
    uint32_t gen;      /* generation the header chunk was tagged with */
    uint32_t done;     /* images complete so far, in subs */
    uint64_t *lens;    /* expected length of each image */
    uint64_t *flags;   /* version 1: each sub-filter's flags */
    cf_filter **subs;
    uint64_t received; /* body bytes accepted so far */
    uint8_t *partial;  /* bytes of the image being received */
    size_t partial_len;
    size_t partial_cap;
} cfr_loader;

/* A loader for the header h (len bytes), which must pass
 * cfr_dump_header_read with at most max_tables bytes of tables: CFR_OK,
 * CFR_BAD_HEADER or CFR_NOMEM. */
cfr_result cfr_loader_new(const uint8_t *h, size_t len, uint64_t max_tables, uint32_t gen,
                          cfr_loader **out);
void cfr_loader_free(cfr_loader *l);

/* Appends body bytes at offset `at`, which must equal l->received
 * (CFR_BAD_POSITION, nothing taken); each image completed is validated
 * (CFR_BAD_CHUNK: not a writable filter of a kind the header allows).
 * CFR_NOMEM when a buffer cannot grow. */
cfr_result cfr_loader_append(cfr_loader *l, uint64_t at, const uint8_t *data, size_t len);

static inline bool cfr_loader_complete(const cfr_loader *l) {
    return l->done == l->d.nsubs;
}

/* Once complete: the one filter of every image (the loader keeps nothing
 * of it), or CFR_BAD_CHUNK (sub-filters that do not form one chain). */
cfr_result cfr_loader_build(cfr_loader *l, cf_filter **out);

/* Bytes the loader holds (MEMORY USAGE of a loading key). */
size_t cfr_loader_memory(const cfr_loader *l);

/* The body bytes a loader holds so far: its complete images (through
 * cf_serialize_range) and then its partial bytes; for saving a loading key
 * (RDB, AOF, COPY).  Body length of the complete images: */
uint64_t cfr_loader_images_len(const cfr_loader *l);

#endif /* CF_REDIS_LOAD_H */
