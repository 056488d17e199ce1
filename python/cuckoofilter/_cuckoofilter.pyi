"""Type stubs for the cuckoofilter extension (see help(cuckoofilter))."""

from array import array
from collections.abc import Iterable
from os import PathLike
from typing import Any, NamedTuple, SupportsIndex

from typing_extensions import Self, TypeAlias

Key: TypeAlias = bytes | bytearray | memoryview | str | int
HashBuffer: TypeAlias = bytes | bytearray | memoryview | array[int]
StrPath: TypeAlias = str | bytes | PathLike[str] | PathLike[bytes]

library_version: str
SEMI_SORT: int
GROW: int
CONCURRENT: int
MAX_FINGERPRINT_BITS: int
MAX_BUCKET_SIZE: int
MAX_KICKS_LIMIT: int

class Error(Exception):
    status: int
    status_name: str

class FilterFullError(Error):
    inserted: int

class FormatError(Error, ValueError): ...
class ReadOnlyError(Error): ...

class Stats(NamedTuple):
    items: int
    num_buckets: int
    slots: int
    bucket_size: int
    fingerprint_bits: int
    max_kicks: int
    flags: int
    seed: int
    load_factor: float
    bits_per_item: float
    bits_per_slot: int
    expected_fpp: float
    table_bytes: int
    memory_bytes: int
    total_kicks: int
    failed_inserts: int
    read_only: bool

class BloomStats(NamedTuple):
    num_bits: int
    num_hashes: int
    items: int
    bits_per_item: float
    expected_fpp: float
    memory_bytes: int

class CuckooFilter:
    def __new__(
        cls,
        capacity: int = ...,
        fpp: float = ...,
        *,
        fingerprint_bits: int = ...,
        bucket_size: int = ...,
        num_buckets: int = ...,
        max_kicks: int = ...,
        max_load: float = ...,
        seed: int = ...,
        semi_sort: bool = ...,
        grow: bool = ...,
        concurrent: bool = ...,
    ) -> Self: ...
    def add(self, key: Key, /) -> None: ...
    def add_unique(self, key: Key, /) -> bool: ...
    def __contains__(self, key: object, /) -> bool: ...
    def count(self, key: Key, /) -> int: ...
    def remove(self, key: Key, /) -> None: ...
    def discard(self, key: Key, /) -> bool: ...
    def hash(self, key: Key, /) -> int: ...
    def clear(self) -> None: ...
    def __len__(self) -> int: ...
    def update(self, keys: Iterable[Key] | HashBuffer, /, *, hashes: bool = ...) -> None: ...
    def contains_many(
        self, keys: Iterable[Key] | HashBuffer, /, *, hashes: bool = ...
    ) -> list[bool]: ...
    @property
    def stats(self) -> Stats: ...
    @property
    def read_only(self) -> bool: ...
    def save(self, path: StrPath) -> None: ...
    @classmethod
    def load(cls, path: StrPath, *, concurrent: bool = ...) -> Self: ...
    @classmethod
    def map(cls, path: StrPath, verify: bool = ...) -> Self: ...
    def to_bytes(self) -> bytes: ...
    def __bytes__(self) -> bytes: ...
    @classmethod
    def from_bytes(cls, data: bytes | bytearray | memoryview, /) -> Self: ...
    def __copy__(self) -> Self: ...
    def __deepcopy__(self, memo: Any, /) -> Self: ...
    def __reduce__(self) -> tuple[Any, ...]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: None  # type: ignore[assignment]

class BloomFilter:
    def __new__(
        cls,
        capacity: int = ...,
        fpp: float = ...,
        *,
        num_bits: int = ...,
        num_hashes: int = ...,
        seed: int = ...,
    ) -> Self: ...
    def add(self, key: Key, /) -> None: ...
    def __contains__(self, key: object, /) -> bool: ...
    def __len__(self) -> int: ...
    @property
    def stats(self) -> BloomStats: ...

def theoretical_fpp(fingerprint_bits: int, bucket_size: int, load: float) -> float: ...
def default_max_load(bucket_size: int, /) -> float: ...
def bloom_optimal_k(num_bits: SupportsIndex, items: SupportsIndex, /) -> int: ...
