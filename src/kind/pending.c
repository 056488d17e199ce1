/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * pending.c -- the ledger of deletes a grown filter owes (design:
 * pending.h): a sorted array of (hash, count), inside the structure while
 * small, then allocated, doubling, and freed when it empties.
 */
#include <string.h>

#include "kind/pending.h"

size_t cf__pending_lower(const cf__pending *p, uint64_t key) {
    size_t lo = 0, hi = p->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->e[mid].h < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void cf__pending_see(cf__pending *p, uint64_t key) {
    uint64_t bit = key >> 52;
    p->seen[bit / 64] |= (uint64_t)1 << (bit % 64);
}

void cf__pending_reseen(cf__pending *p) {
    memset(p->seen, 0, sizeof p->seen);
    for (size_t i = 0; i < p->count; i++) cf__pending_see(p, p->e[i].h);
}

uint64_t cf__pending_owed(const cf__pending *p, uint64_t key) {
    if (!cf__pending_may_owe(p, key)) return 0;
    size_t i = cf__pending_lower(p, key);
    return i < p->count && p->e[i].h == key ? p->e[i].n : 0;
}

/* Room for one more entry: the structure's own entries first, then an
 * array that doubles. */
static cf_status cf__pending_reserve(cf__pending *p, const cf_allocator *a) {
    if (p->count < p->cap) return CF_OK;
    if (p->cap == 0) {
        p->e = p->small;
        p->cap = CF__PENDING_SMALL;
        return CF_OK;
    }
    CF__RETURN_IF(p->cap > SIZE_MAX / 2 / sizeof(cf__pending_entry), CF_E_NOMEM);
    size_t cap = p->cap * 2;
    cf__pending_entry *e;
    if (p->e == p->small) {
        e = cf__alloc(a, cap * sizeof *e);
        if (e != NULL) memcpy(e, p->small, p->count * sizeof *e);
    } else {
        e = cf__realloc(a, p->e, p->cap * sizeof *e, cap * sizeof *e);
    }
    CF__RETURN_IF(e == NULL, CF_E_NOMEM);
    p->e = e;
    p->cap = cap;
    return CF_OK;
}

cf_status cf__pending_add(cf__pending *p, const cf_allocator *a, uint64_t key) {
    size_t i = cf__pending_lower(p, key);
    if (i < p->count && p->e[i].h == key) {
        p->e[i].n++;
    } else {
        CF__FORWARD_IF_ERROR(cf__pending_reserve(p, a));
        memmove(p->e + i + 1, p->e + i, (p->count - i) * sizeof *p->e);
        p->e[i] = (cf__pending_entry){key, 1};
        p->count++;
        cf__pending_see(p, key);
    }
    p->total++;
    return CF_OK;
}

void cf__pending_clear(cf__pending *p, const cf_allocator *a) {
    if (p->e != NULL && p->e != p->small) cf__free(a, p->e);
    p->e = NULL;
    p->count = p->cap = 0;
    p->total = 0;
    memset(p->seen, 0, sizeof p->seen);
}

void cf__pending_settle(cf__pending *p, const cf_allocator *a, size_t i, uint64_t by) {
    p->e[i].n -= by;
    p->total -= by;
    if (p->e[i].n != 0) return;
    memmove(p->e + i, p->e + i + 1, (p->count - i - 1) * sizeof *p->e);
    if (--p->count == 0) cf__pending_clear(p, a);
}

bool cf__pending_take(cf__pending *p, const cf_allocator *a, uint64_t key) {
    if (!cf__pending_may_owe(p, key)) return false;
    size_t i = cf__pending_lower(p, key);
    if (i == p->count || p->e[i].h != key) return false;
    cf__pending_settle(p, a, i, 1);
    return true;
}

cf__pending_entry *cf__pending_room(cf__pending *p, const cf_allocator *a, uint64_t count) {
    if (count <= CF__PENDING_SMALL) {
        p->e = p->small;
        p->cap = CF__PENDING_SMALL;
    } else {
        if (count > SIZE_MAX / sizeof *p->e) return NULL;
        p->e = cf__alloc(a, (size_t)count * sizeof *p->e);
        p->cap = p->e != NULL ? (size_t)count : 0;
    }
    return p->e;
}

void cf__pending_filled(cf__pending *p, size_t count) {
    p->count = count;
    p->total = 0;
    for (size_t i = 0; i < count; i++) p->total += p->e[i].n;
    cf__pending_reseen(p);
}

cf_status cf__pending_union(const cf__pending *dst, const cf__pending *src, const cf_allocator *a,
                            cf__pending *out) {
    out->e = NULL;
    out->count = out->cap = 0;
    out->total = 0;
    memset(out->seen, 0, sizeof out->seen);
    size_t most = dst->count + src->count;
    if (most == 0) return CF_OK;
    if (most <= CF__PENDING_SMALL) {
        out->e = out->small;
        out->cap = CF__PENDING_SMALL;
    } else {
        out->e = cf__alloc(a, most * sizeof *out->e);
        CF__RETURN_IF(out->e == NULL, CF_E_NOMEM);
        out->cap = most;
    }
    size_t i = 0, j = 0;
    while (i < dst->count || j < src->count) {
        cf__pending_entry next;
        if (j == src->count || (i < dst->count && dst->e[i].h < src->e[j].h))
            next = dst->e[i++];
        else if (i == dst->count || src->e[j].h < dst->e[i].h)
            next = src->e[j++];
        else {
            next = (cf__pending_entry){dst->e[i].h, dst->e[i].n + src->e[j].n};
            i++;
            j++;
        }
        out->e[out->count++] = next;
        out->total += next.n;
    }
    cf__pending_reseen(out);
    return CF_OK;
}

void cf__pending_replace(cf__pending *dst, const cf_allocator *a, cf__pending *with) {
    cf__pending_clear(dst, a);
    *dst = *with;                                    /* its summary too */
    if (with->e == with->small) dst->e = dst->small; /* the copy's own entries */
    with->e = NULL;
    with->count = with->cap = 0;
}
