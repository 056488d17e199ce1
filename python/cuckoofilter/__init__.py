# SPDX-License-Identifier: Apache-2.0 OR MIT
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
also a ValueError), ReadOnlyError (a write to a mapped filter) and
LockedError (another writer held a file's lock; also a TimeoutError).
Functions: locked (load, change and save a file under the lock every writer
takes), key_bytes (the bytes a key is hashed as), theoretical_fpp,
default_max_load, bloom_optimal_k.
One filter spread over a Redis Cluster (the library's Redis module on each
node): cuckoofilter.redis.ShardedFilter (docs/REDIS.md, "Sharded filters").
"""

import contextlib as _contextlib
import os as _os
import typing as _typing
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
    FileLock as _FileLock,
    FilterFullError,
    FormatError,
    LockedError,
    ReadOnlyError,
    Stats,
    bloom_optimal_k,
    default_max_load,
    key_bytes,
    library_version,
    theoretical_fpp,
)

__version__ = library_version  # built from the same sources

Key = Union[bytes, bytearray, memoryview, str, int]



@_contextlib.contextmanager
def locked(path: Union[str, bytes, "_os.PathLike[str]", "_os.PathLike[bytes]"], *,
           timeout: "_typing.Optional[float]" = None,
           create: "_typing.Optional[_typing.Dict[str, _typing.Any]]" = None,
           key: "_typing.Any" = None) -> "_typing.Iterator[CuckooFilter[_typing.Any]]":
    """Load the filter file at path under its lock, yield it, and save it back.

        with cuckoofilter.locked("users.cf") as f:
            f.add("alice")

    The lock is the one the cuckoo command (add, delete, create, build, ...)
    and C programs (cf_file_lock_acquire) take, so any number of them and of
    Python processes can change one file at once and none loses another's
    changes; plain load()/save() loops do lose them (the last save wins).

    The file is saved when the block ends normally, atomically and only if
    the lock is still the file's (LockedError if someone removed the lock
    file meanwhile); nothing is written when the block raises.  timeout:
    seconds to wait for the lock (None: as long as it takes, as the cuckoo
    command does by default; 0: try once), then LockedError.  create:
    CuckooFilter keyword arguments for a file that does not exist yet
    (without it, FileNotFoundError).  key: the key= function.  The filter
    is closed when the block ends.
    """
    lock = _FileLock(path, timeout)
    try:
        target = lock.path
        if _os.path.exists(target):
            f = CuckooFilter.load(target, key=key)
        elif create is not None:
            f = CuckooFilter(**create, key=key)
        else:
            raise FileNotFoundError(2, "No such file or directory (give create= to make it)",
                                    _os.fsdecode(path))
        with f:
            yield f
            lock.save(f)
    finally:
        lock.release()


__all__ = [
    "locked",
    "LockedError",
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
    "key_bytes",
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
