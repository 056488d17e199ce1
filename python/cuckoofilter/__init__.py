"""Cuckoo filters for Python, over the C library libcuckoofilter.

A cuckoo filter answers "have I seen this key?" like a set that forgets the
keys: "maybe" (with a small, chosen false-positive probability) or "certainly
not" (never wrong).  Unlike a Bloom filter it can also remove keys.

    >>> import cuckoofilter as cf
    >>> f = cf.CuckooFilter(capacity=1_000_000, fpp=0.001)
    >>> f.add("alice")
    >>> "alice" in f, "mallory" in f
    (True, False)
    >>> f.update(range(1000)); len(f)
    1001
    >>> f.remove("alice")
    >>> g = cf.CuckooFilter.from_bytes(bytes(f)); g == f
    True

Keys are bytes, bytearray, memoryview, str (hashed as UTF-8) or int (hashed
as 8 bytes, little-endian two's complement, for -2**63 <= key < 2**64).  The
hash is the C library's, so files written here, by C programs or by the
`cuckoo` command line tool answer the same everywhere.

Classes: CuckooFilter, BloomFilter, and their statistics Stats, BloomStats;
Key, the type of a key (for annotations).
Exceptions: Error, and its subclasses FilterFullError (the filter is full;
nothing changed), FormatError (bytes or a file that are not a valid filter;
also a ValueError) and ReadOnlyError (a write to a mapped filter).
Functions: theoretical_fpp, default_max_load, bloom_optimal_k.
One filter spread over a Redis Cluster (the library's Redis module on each
node): cuckoofilter.redis.ShardedFilter (docs/REDIS.md, "Sharded filters").
"""

from typing import Union


def _wrong_interpreter() -> str:
    """What to say when the extension does not load: most often it was built
    for another interpreter (PYTHONPATH=build/python with another python3)."""
    import glob
    import os
    import sys

    built = [os.path.basename(p) for p in glob.glob(os.path.join(__path__[0], "_cuckoofilter*"))]
    return (f"cuckoofilter's extension here ({', '.join(built) or 'none'}) does not load in "
            f"{sys.executable} {sys.version.split()[0]}: build it for this interpreter (pip "
            f"install ./python, or CMake with -DPython3_EXECUTABLE={sys.executable})")


try:
    from . import _cuckoofilter  # noqa: F401
except ImportError as _e:
    raise ImportError(_wrong_interpreter()) from _e

from ._cuckoofilter import (
    MAX_BUCKET_SIZE,
    MAX_FINGERPRINT_BITS,
    MAX_KICKS_LIMIT,
    CONCURRENT,
    GROW,
    GROWTH_CHAIN,
    GROWTH_INPLACE,
    GROWTH_LIMIT_BYTES,
    GROWTH_LIMIT_FPP,
    GROWTH_LIMIT_SIZE,
    GROWTH_LIMIT_TABLES,
    GROWTH_OPEN,
    SEMI_SORT,
    BloomFilter,
    BloomStats,
    CuckooFilter,
    Error,
    FilterFullError,
    FormatError,
    ReadOnlyError,
    Stats,
    bloom_optimal_k,
    default_max_load,
    library_version,
    theoretical_fpp,
)

__version__ = library_version  # built from the same sources

Key = Union[bytes, bytearray, memoryview, str, int]

__all__ = [
    "CuckooFilter",
    "BloomFilter",
    "Key",
    "Stats",
    "BloomStats",
    "Error",
    "FilterFullError",
    "FormatError",
    "ReadOnlyError",
    "theoretical_fpp",
    "default_max_load",
    "bloom_optimal_k",
    "library_version",
    "SEMI_SORT",
    "GROW",
    "GROWTH_CHAIN",
    "GROWTH_INPLACE",
    "GROWTH_OPEN",
    "GROWTH_LIMIT_BYTES",
    "GROWTH_LIMIT_TABLES",
    "GROWTH_LIMIT_FPP",
    "GROWTH_LIMIT_SIZE",
    "CONCURRENT",
    "MAX_FINGERPRINT_BITS",
    "MAX_BUCKET_SIZE",
    "MAX_KICKS_LIMIT",
]
