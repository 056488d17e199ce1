// SPDX-License-Identifier: Apache-2.0 OR MIT
/**
 * cuckoofilter: the C library libcuckoofilter compiled to WebAssembly, for
 * Node (18 or later) and browsers, as an ES module.
 *
 * A cuckoo filter answers "have I seen this key?" with no false negatives
 * and a chosen false-positive probability (FPP), like a Bloom filter, and
 * also deletes keys.  Filters read and write the C library's file format:
 * a file written by the `cuckoo` command or any other binding opens with
 * `fromBytes`, and `toBytes` writes files they open.
 */

/** A key: a string (hashed as its UTF-8 bytes) or bytes. */
export type Key = string | Uint8Array;

/** Options shared by both ways of sizing a filter. */
interface CommonOptions {
    /** Slots per bucket: 1, 2, 4 or 8 (default 4). */
    bucketSize?: number;
    /** Eviction budget per insert: buckets searched for a free slot, 1..65535 (default 500). */
    maxKicks?: number;
    /** Hash seed, 0..2^64-1 (default 0).  Stored in the bytes. */
    seed?: number | bigint;
    /**
     * Semi-sorted buckets: one bit less per item at the same FPP (bucket
     * size 4 and 5..16-bit fingerprints only).
     */
    semiSort?: boolean;
    /**
     * Items that expire: each key is forgotten this many seconds after it
     * was added (rounded up to whole seconds; then `capacity` is the keys
     * added in one such window, and the filter never fills however long it
     * is fed).  Adding a key it holds refreshes it (one copy, a window from
     * now).  The clock counts seconds since 1970, as the `cuckoo` command's
     * expiring files do.  Not with semiSort.
     */
    expire?: number;
    /**
     * An expiring filter's clock: seconds since 1970, read once at each
     * call (tests, simulations).  A time before the filter's clock throws
     * CF_E_INVAL.  Default: the wall clock (Date.now() / 1000, floored),
     * held at the filter's time if the system's clock steps back.
     */
    now?: () => number;
}

/** Sized from what you know: how many keys, and the FPP wanted when full. */
export interface CapacityOptions extends CommonOptions {
    /** Keys the filter must hold, 1 or more. */
    capacity: number;
    /** False-positive probability wanted at full load, in (0, 1) (default 0.001). */
    fpp?: number;
    /** Fingerprint width in bits, 1..32, instead of deriving it from fpp. */
    fingerprintBits?: number;
    /** Load the sizing plans for, in (0, 1] (default: the library's for the bucket size, 0.95 for 4). */
    maxLoad?: number;
}

/** An exact shape, as in experiments: exactly this many buckets of this width. */
export interface ExactOptions extends CommonOptions {
    /** Number of buckets, any count from 1 (not only powers of two). */
    buckets: number;
    /** Fingerprint width in bits, 1..32. */
    fingerprintBits: number;
}

export type CreateOptions = CapacityOptions | ExactOptions;

/** A filter's parameters and statistics (the library's cf_stats). */
export interface Stats {
    /** Fingerprints stored (size). */
    items: number;
    buckets: number;
    /** buckets * bucketSize. */
    slots: number;
    bucketSize: number;
    fingerprintBits: number;
    /** Bits stored per slot: fingerprintBits, or one less when semi-sorted. */
    bitsPerSlot: number;
    maxKicks: number;
    seed: bigint;
    semiSort: boolean;
    /** items / slots. */
    loadFactor: number;
    /** Table bits per item stored (0 when empty). */
    bitsPerItem: number;
    /** The FPP at the present load. */
    expectedFpp: number;
    /** The FPP once every slot is filled. */
    fppBound: number;
    /** Bytes of the bucket table. */
    tableBytes: number;
    /** Bytes the filter allocated in the module's memory. */
    memoryBytes: number;
    /** Fingerprints moved by inserts since creation. */
    totalKicks: number;
    /** Inserts refused as full. */
    failedInserts: number;
    /** The file format version toBytes writes. */
    formatVersion: number;
    /** 1 (filters grown by other bindings: their tables). */
    tables: number;
    /** expire: seconds an item lives (0: forever). */
    expireAfter: number;
    /** Seconds of one stamp: an item is gone at most a window and this after it was added. */
    expireSpan: number;
    /** Bits of the stamp beside each fingerprint (0 when items never expire). */
    stampBits: number;
    /** Stamps in a window. */
    stamps: number;
    /** The filter's clock, seconds since 1970 (0 when items never expire). */
    clock: number;
}

/** Where a key lives: its fingerprint and its two candidate buckets. */
export interface Location {
    /** The fingerprint stored for the key, 1..2^fingerprintBits - 1. */
    fingerprint: number;
    bucket1: number;
    /** The partner bucket (equal to bucket1 when the table maps it to itself). */
    bucket2: number;
}

/** A slot of the table. */
export interface Slot {
    bucket: number;
    slot: number;
}

/**
 * One fingerprint written by an insert: moved from `from` to `to` (an
 * eviction), or stored for the new key (`from` null, always the last).
 */
export interface Move {
    from: Slot | null;
    to: Slot;
    fingerprint: number;
}

/**
 * The error every failed call throws.  code is the library's status name:
 * "CF_E_FULL" (nothing was changed), "CF_E_PARAM" (a refused
 * configuration: the message names the option, its value, why, and what
 * would work), "CF_E_CORRUPT", "CF_E_CHECKSUM", "CF_E_TRUNCATED",
 * "CF_E_MAGIC", "CF_E_VERSION", "CF_E_TOO_LARGE" (bytes that are not a
 * filter this library wrote), "CF_E_NOMEM" (the module's memory is full).
 */
export class CuckooFilterError extends Error {
    readonly code: string;
    /** The library's status number (negative). */
    readonly status: number;
    /** addMany only: how many keys went in before the one refused. */
    added?: number;
}

/**
 * Loads the WebAssembly module; create() and fromBytes() call it.  Call it
 * yourself to load from elsewhere: source is the module's bytes, a compiled
 * WebAssembly.Module, or its URL (default: cuckoofilter.wasm beside
 * index.js).  The first call decides; later calls return the same promise.
 */
export function init(
    source?: BufferSource | WebAssembly.Module | URL | string,
): Promise<{ libraryVersion: string }>;

export class CuckooFilter {
    private constructor();

    /**
     * A new empty filter, sized from a capacity and an FPP, or of an exact
     * shape.  A configuration the library refuses throws CF_E_PARAM with the
     * library's explanation; a wrong type or an unknown option, TypeError; a
     * count that is not a whole number, RangeError.
     */
    static create(options: CreateOptions): Promise<CuckooFilter>;

    /**
     * A filter from the library's file format (a file of `cuckoo build`,
     * the bytes of toBytes, of Python's to_bytes, ...).  Bytes that are not
     * a valid filter throw a CuckooFilterError saying what is wrong, never
     * anything worse.  An expiring filter keeps its clock; options.now is
     * its clock from then on (as create's).
     */
    static fromBytes(bytes: Uint8Array | ArrayBuffer, options?: { now?: () => number }): Promise<CuckooFilter>;

    /**
     * Adds one copy of key (a filter whose items expire refreshes a key it
     * holds instead).  Throws CF_E_FULL when there is no room (the
     * filter is then exactly as before: no key is ever lost).
     */
    add(key: Key): void;
    /** True if key may be in the filter; false if it certainly is not. */
    has(key: Key): boolean;
    /**
     * Removes one copy of key: true if one was found.  Delete only keys you
     * added: a key never added may collide with one that was and remove it.
     */
    delete(key: Key): boolean;
    /** An upper bound on the copies of key stored (fingerprint collisions add). */
    count(key: Key): number;
    /** Fingerprints stored. */
    readonly size: number;

    /**
     * Adds every key, in order, in one call into the library; returns how
     * many (keys.length).  When the filter fills up it throws CF_E_FULL with
     * `added`: the keys before that index went in, that one and the later
     * ones did not.
     */
    addMany(keys: Iterable<Key>): number;
    /** has() for every key, in one call into the library. */
    hasMany(keys: Iterable<Key>): boolean[];

    /** Removes every key; keeps the shape. */
    clear(): void;

    /** The filter in the library's file format (docs/FORMAT.md). */
    toBytes(): Uint8Array;
    stats(): Stats;

    /** Where key goes: its fingerprint and its two buckets. */
    locate(key: Key): Location;
    /** The fingerprints in a bucket's slots, 0 for a free slot. */
    readBucket(bucket: number): number[];
    /** Every slot, bucket after bucket (slots entries). */
    readTable(): Uint32Array;
    /**
     * add(), reporting each fingerprint it wrote: the moves of the eviction
     * path from its free end back to the key's bucket, then the key's own
     * fingerprint.  The table is the one add() would make.
     */
    addTraced(key: Key): Move[];

    /**
     * Frees the filter's memory in the module now; later calls throw an
     * Error with code "ERR_DISPOSED".  Filters never disposed are freed when
     * garbage-collected (a FinalizationRegistry), at an unknown time.
     */
    dispose(): void;
    [Symbol.dispose](): void;
    readonly disposed: boolean;
}

export default CuckooFilter;
