/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * deprecated.c -- the names 1.0.0 replaced, kept for one major version:
 * each calls its replacement (include/cuckoofilter.h, "Deprecated names";
 * CHANGELOG.md lists them).
 */
#include "cuckoofilter.h"

cf_status cf_lock_file(const char *path, int timeout_ms, const cf_allocator *a,
                       cf_file_lock **out) {
    return cf_file_lock_acquire(path, timeout_ms, a, out);
}

void cf_unlock_file(cf_file_lock *lock) {
    cf_file_lock_release(lock);
}

cf_status cf_bloom_add(cf_bloom *b, const void *key, size_t len) {
    return cf_bloom_insert(b, key, len);
}

cf_status cf_bloom_add_hash(cf_bloom *b, uint64_t h) {
    return cf_bloom_insert_hash(b, h);
}
