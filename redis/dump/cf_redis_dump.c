/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_redis_dump.c -- writing and validating a dump stream's header (layout
 * in cf_redis_dump.h).  A header is checked before any of its sizes is
 * trusted: nothing is allocated from a length that has not passed here.
 */
#include "cf_redis_dump.h"

#include <string.h>

static const uint8_t cfr_magic[8] = {'C', 'F', 'R', 'D', 'U', 'M', 'P', 0};

static void put_le(uint8_t *p, uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* FNV-1a: the header is small and each sub-filter has its own XXH3
 * checksum; this only catches a damaged header before we trust its sizes. */
static uint64_t fnv1a64(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

size_t cfr_dump_header_len(uint32_t nsubs) {
    return CFR_DUMP_FIXED + (size_t)CFR_DUMP_PER_SUB * nsubs + 8;
}

void cfr_dump_header_write(uint8_t *h, cfr_dump_fields *d, const uint64_t *lens,
                           const uint64_t *flags) {
    size_t hl = cfr_dump_header_len(d->nsubs);
    memset(h, 0, hl);
    memcpy(h, cfr_magic, 8);
    put_le(h + 8, d->version, 2);
    put_le(h + 12, d->nsubs, 4);
    put_le(h + 16, d->expansion, 4);
    put_le(h + 20, d->flags, 4);
    put_le(h + 24, d->capacity, 8);
    put_le(h + 32, d->deleted, 8);
    d->body_len = 0;
    for (uint32_t i = 0; i < d->nsubs; i++) {
        put_le(h + CFR_DUMP_FIXED + CFR_DUMP_PER_SUB * i, lens[i], 8);
        put_le(h + CFR_DUMP_FIXED + CFR_DUMP_PER_SUB * i + 8, flags[i], 8);
        d->body_len += lens[i];
    }
    put_le(h + 40, d->body_len, 8);
    put_le(h + hl - 8, fnv1a64(h, hl - 8), 8);
}

uint64_t cfr_dump_sub_len(const uint8_t *h, uint32_t i) {
    return get_le(h + CFR_DUMP_FIXED + CFR_DUMP_PER_SUB * i, 8);
}

uint64_t cfr_dump_sub_flags(const uint8_t *h, uint32_t i) {
    return get_le(h + CFR_DUMP_FIXED + CFR_DUMP_PER_SUB * i + 8, 8);
}

bool cfr_dump_header_read(const uint8_t *h, size_t len, uint64_t max_tables, cfr_dump_fields *d) {
    memset(d, 0, sizeof *d);
    if (len < cfr_dump_header_len(1) || memcmp(h, cfr_magic, 8) != 0) return false;
    uint64_t version = get_le(h + 8, 2);
    if ((version != 1 && version != CFR_DUMP_VERSION) || get_le(h + 10, 2) != 0) return false;
    uint64_t n = get_le(h + 12, 4);
    if (n < 1 || n > (version == 1 ? CFR_MAX_FILTERS_LIMIT : 1) ||
        len != cfr_dump_header_len((uint32_t)n))
        return false;
    if (get_le(h + len - 8, 8) != fnv1a64(h, len - 8)) return false;
    uint64_t e = get_le(h + 16, 4), fl = get_le(h + 20, 4);
    if (e > CFR_MAX_EXPANSION || (e & (e - 1)) != 0 || (fl & ~(uint64_t)CFR_CHAIN_EXHAUSTED) != 0)
        return false;
    uint64_t overhead = version == 1 ? CFR_IMAGE_OVERHEAD_V1 : CFR_IMAGE_OVERHEAD_V2;
    uint64_t sum = 0, max_body = max_tables;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t sl = cfr_dump_sub_len(h, i);
        max_body += overhead;
        /* A sub-filter is at least the library's 64-byte header and 8-byte
         * trailer; each length is bounded before the sum can overflow. */
        uint64_t allowed = version == 1 ? CFR_SUB_FULL : 0;
        if (sl < 72 || sl > max_tables + overhead || (cfr_dump_sub_flags(h, i) & ~allowed) != 0)
            return false;
        sum += sl;
        if (sum > max_body) return false;
    }
    if (sum != get_le(h + 40, 8)) return false;
    d->nsubs = (uint32_t)n;
    d->expansion = (uint32_t)e;
    d->flags = (uint32_t)fl;
    d->capacity = get_le(h + 24, 8);
    d->deleted = get_le(h + 32, 8);
    d->body_len = sum;
    d->version = (uint16_t)version;
    return true;
}
