"""One .safetensors file: its header checked by hand, its tensors read memory-mapped as float32.

The header is validated here before anything else touches the file (a hostile header could claim
2^63 bytes), so every refusal is a CheckpointError naming the file and the tensor, raised without
allocating what the header claims. Tensors are then memory-mapped from the header's offsets: F32 as
stored (nothing is read until used, nothing copied), F16 and BF16 (which NumPy lacks: its uint16 bits)
widened to float32. The ``safetensors`` package's NumPy API is not used to read: it copies every tensor
(measured: a 256 MiB tensor added 512 MiB of RSS, the mapped pages and the copy).
"""
from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explorer.core.errors import CheckpointError

MAX_HEADER_BYTES = 100 * 2 ** 20   # the safetensors package's own limit
ITEM_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U64": 8,
              "U32": 4, "U16": 2, "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}
FLOAT_DTYPES = ("F32", "F16", "BF16")   # what the forward pass reads
STORED = {"F32": "<f4", "F16": "<f2", "BF16": "<u2"}   # how their bytes are mapped (safetensors is little-endian)


@dataclass(frozen=True)
class TensorInfo:
    """Where one tensor lies in its file: dtype, shape and the byte range inside the data buffer."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    begin: int
    end: int

    @property
    def count(self) -> int:
        return math.prod(self.shape)


def _fail(path: Path, text: str) -> CheckpointError:
    return CheckpointError(f"{path.name}: {text}")


def _entry(path: Path, name: str, entry: object) -> TensorInfo:
    """One header entry checked: a known dtype, a shape of non-negative ints, offsets that fit it."""
    where = f"tensor {name!r}"
    if not isinstance(entry, dict):
        raise _fail(path, f"{where}: its header entry is not an object")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if dtype not in ITEM_BYTES:
        raise _fail(path, f"{where} has unknown dtype {str(dtype)[:40]!r}")
    if not isinstance(shape, list) or not all(type(n) is int and n >= 0 for n in shape):
        raise _fail(path, f"{where} has a bad shape {str(shape)[:80]} (a list of non-negative integers is needed)")
    if (not isinstance(offsets, list) or len(offsets) != 2 or not all(type(n) is int and n >= 0 for n in offsets)
            or offsets[0] > offsets[1]):
        raise _fail(path, f"{where} has bad data_offsets {str(offsets)[:80]} (two integers begin <= end are needed)")
    info = TensorInfo(name, dtype, tuple(shape), offsets[0], offsets[1])
    if info.end - info.begin != info.count * ITEM_BYTES[dtype]:
        raise _fail(path, f"{where}: data_offsets {offsets} span {info.end - info.begin} bytes, but {dtype} × "
                          f"shape {list(shape)} needs {info.count * ITEM_BYTES[dtype]}")
    return info


def read_header(path: str | Path) -> tuple[dict[str, TensorInfo], int]:
    """The tensors of a safetensors file and where its data starts, or CheckpointError.

    Checks: the 8-byte length fits the file and 100 MiB; the header is a JSON object; each entry's dtype,
    shape and offsets agree; offsets stay inside the file and neither overlap nor leave gaps."""
    path = Path(path)
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            head = f.read(8)
            if len(head) < 8:
                raise _fail(path, f"truncated: {size} bytes, too short for the 8-byte header length")
            (length,) = struct.unpack("<Q", head)
            if length > MAX_HEADER_BYTES or length > size - 8:
                raise _fail(path, f"the header claims {length} bytes but the file has {size - 8} after the "
                                  f"length (truncated or not a safetensors file; headers are at most "
                                  f"{MAX_HEADER_BYTES} bytes)")
            raw = f.read(length)
    except OSError as exc:
        raise _fail(path, f"cannot be read ({exc.strerror or exc})") from None
    try:
        header = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:   # UnicodeDecodeError is a ValueError
        raise _fail(path, f"the header is not JSON ({str(exc)[:120]})") from None
    if not isinstance(header, dict):
        raise _fail(path, "the header is not a JSON object")
    header.pop("__metadata__", None)
    tensors = {name: _entry(path, name, entry) for name, entry in header.items()}
    data_start = 8 + length
    _check_layout(path, tensors, size - data_start)
    return tensors, data_start


def _check_layout(path: Path, tensors: dict[str, TensorInfo], buffer: int) -> None:
    """Offsets inside the data buffer, no two tensors sharing a byte, and no byte left unclaimed."""
    placed = sorted(tensors.values(), key=lambda t: (t.begin, t.end))
    at, previous = 0, None
    for info in placed:
        if info.end > buffer:
            raise _fail(path, f"tensor {info.name!r} lies at bytes {info.begin}..{info.end} of the data, outside "
                              f"the file (its data has {buffer} bytes: truncated?)")
        if info.begin < at:
            raise _fail(path, f"tensors {previous!r} and {info.name!r} overlap (bytes {info.begin}..{at})")
        if info.begin > at:
            raise _fail(path, f"bytes {at}..{info.begin} of the data belong to no tensor (before {info.name!r})")
        at, previous = max(at, info.end), info.name
    if at != buffer:
        raise _fail(path, f"the data has {buffer} bytes but its tensors end at byte {at} (truncated or padded)")


def _identity(path: Path):
    """What tells a file apart from its rewrite: device, inode, size, modification time (None if gone)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


class SafetensorsFile:
    """A checked safetensors file; ``tensor(name)`` reads one tensor as float32, nothing else."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._identity = _identity(self.path)
        self.tensors, self.data_start = read_header(self.path)

    def check_unchanged(self) -> None:
        """CheckpointError if the file was replaced or rewritten since it was opened: its tensors are
        memory-mapped, and a file cut shorter under a mapping ends the process (SIGBUS) on the next read."""
        if _identity(self.path) != self._identity:
            raise _fail(self.path, "changed on disk since the model was opened; open the model again")

    def info(self, name: str) -> TensorInfo:
        return self.tensors[name]

    def tensor(self, name: str) -> np.ndarray:
        """The tensor as a float32 array (F32 as stored, F16 and BF16 widened exactly)."""
        info = self.tensors[name]
        if info.dtype not in FLOAT_DTYPES:
            raise _fail(self.path, f"tensor {name!r} is {info.dtype}; weights must be one of "
                                   f"{', '.join(FLOAT_DTYPES)}")
        if info.count == 0:
            return np.zeros(info.shape, np.float32)
        stored = np.asarray(np.memmap(self.path, dtype=STORED[info.dtype], mode="r",
                                      offset=self.data_start + info.begin, shape=(info.count,))).reshape(info.shape)
        if info.dtype == "F32":
            return stored   # the file's own pages: read when used, never copied
        if info.dtype == "F16":
            return stored.astype(np.float32)
        return (stored.astype(np.uint32) << 16).view(np.float32)   # bfloat16: the top half of a float32
