"""Import and export one matrix: .npy, .npz, .csv/.tsv/.txt (F10).

Loading never unpickles (``allow_pickle`` is never on; object dtypes are refused from the header),
reads the .npy header and checks shape and dtype against ``max_cells`` before allocating anything,
and raises only :class:`MatrixFileError`, whose message starts with the file name. The result is a
2-D, C-contiguous float64 array of finite numbers; a 1-D array becomes a single row.

Positions are 0-based ``(row r, col c)`` as in NumPy; text files also give the 1-based line number
an editor shows. Text files (UTF-8): blank lines and lines starting with ``#`` are skipped; .tsv is
split on tabs, other text on ``;`` or ``,`` if the first non-blank line holds one (in that order),
else on runs of whitespace; if no field of that first line is a number it is a header and is
skipped; any other field that is not a number is refused, naming its line and column.
"""
from __future__ import annotations

import codecs
import io
import math
import os
import re
import stat
import struct
import zipfile
from typing import Any, BinaryIO, Callable

import numpy as np

from .atomic import atomic_write_bytes, file_name
from .errors import MatrixFileError
from .plural import count
from .session import MAX_ABS_VALUE
from .translatable import QT_TRANSLATE_NOOP, message_of

__all__ = ["load_matrix", "save_matrix", "MAX_MATRIX_FILE_BYTES", "MATRIX_LOAD_SUFFIXES",
           "MATRIX_SAVE_SUFFIXES"]

MAX_MATRIX_FILE_BYTES = 512 * 2 ** 20   # any matrix file above this is refused by its size
MATRIX_LOAD_SUFFIXES = (".npy", ".npz", ".csv", ".tsv", ".txt")
MATRIX_SAVE_SUFFIXES = (".npy", ".csv", ".tsv", ".txt")
_MAX_NPZ_MEMBERS = 4096
_MAX_NPZ_DIRECTORY_BYTES = 2 ** 20
_MAX_NPY_HEADER_BYTES = 10_000          # numpy's own default for untrusted headers
_CHUNK = 16 * 2 ** 20
_TEXT_SEPARATORS = {".csv": ",", ".tsv": "\t", ".txt": " "}


def _fail(where: str, message: str) -> MatrixFileError:
    return MatrixFileError(QT_TRANSLATE_NOOP("MatrixFile", "{where}: {message}").format(where=where,
                               message=message))


def _suffix(path: Any) -> str:
    return os.path.splitext(os.fsdecode(os.fspath(path)))[1].lower()


def _short(text: str, limit: int = 30) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _shape_text(shape: tuple[int, ...]) -> str:
    return "×".join(map(str, shape)) if shape else QT_TRANSLATE_NOOP("MatrixFile", "a single number")


# ----------------------------------------------------------------------------------------------
# .npy (also the members of an .npz)

def _check_dtype(dtype: np.dtype, where: str) -> None:
    if dtype.hasobject:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "holds Python objects, which could only be read "
                                                           "by unpickling; only plain numbers are loaded"))
    if dtype.fields is not None or dtype.subdtype is not None:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "holds structured records; a matrix holds plain "
                                                           "numbers"))
    kind = {"c": "complex numbers", "b": "booleans", "U": "text", "S": "bytes",
            "M": "dates", "m": "time spans", "V": "raw bytes"}.get(dtype.kind)
    if kind is not None or dtype.kind not in "iuf":
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "holds {value} ({dtype}); a matrix holds real "
                                                           "numbers").format(value=kind or dtype, dtype=dtype))


def _check_shape(shape: tuple[int, ...], where: str, max_cells: int) -> int:
    if len(shape) not in (1, 2):
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is {dims}-D ({shape}); a matrix must be 2-D "
                                                           "(or 1-D, read as one row)").format(dims=len(shape),
                               shape=_shape_text(shape)))
    cells = math.prod(shape)
    if cells == 0:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is empty ({shape})").format(shape=_shape_text(shape)))
    if cells > max_cells:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is {shape} = {cells} numbers; the most is "
                                                           "{max_cells}").format(shape=_shape_text(shape),
                               cells=cells, max_cells=max_cells))
    return cells


def _read_exactly(fp: BinaryIO, out: np.ndarray) -> int:
    """Fill ``out``'s bytes from ``fp`` in chunks; returns how many bytes arrived."""
    view = memoryview(out.view(np.uint8))
    got = 0
    while got < len(view):
        chunk = fp.read(min(_CHUNK, len(view) - got))
        if not chunk:
            break
        view[got:got + len(chunk)] = chunk
        got += len(chunk)
    return got


def _read_npy(fp: BinaryIO, where: str, max_cells: int,
              remaining: Callable[[], int] | None) -> np.ndarray:
    """Parse an .npy stream: signature, header (checked), then exactly the data it announces.

    ``remaining()`` (when given) says how many bytes follow the header, so that a file whose
    header claims more data than it holds is refused before anything is allocated.
    """
    magic = fp.read(8)
    if len(magic) < 8 or magic[:6] != b"\x93NUMPY":
        if magic[:1] == b"\x80":
            raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is a Python pickle, not a NumPy .npy file; "
                                                               "pickles are never loaded"))
        if magic[:2] == b"PK":
            raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is a zip archive, not an .npy file (an .npz "
                                                               "renamed?)"))
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is not a NumPy .npy file (it does not start with "
                                                           "the .npy signature)"))
    version = (magic[6], magic[7])
    try:
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(
                fp, max_header_size=_MAX_NPY_HEADER_BYTES)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(
                fp, max_header_size=_MAX_NPY_HEADER_BYTES)
        else:
            raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "uses .npy format version "
                                                               "{major}.{minor}; versions 1.0 and 2.0 "
                                                               "are read").format(major=version[0],
                                   minor=version[1]))
    except MatrixFileError:
        raise
    except Exception as e:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "has a damaged .npy header ({detail})").format(
                               detail=str(e)[:200])) from None
    shape = tuple(int(n) for n in shape)
    _check_dtype(dtype, where)
    cells = _check_shape(shape, where, max_cells)
    need = cells * dtype.itemsize
    what = QT_TRANSLATE_NOOP("MatrixFile", "its header announces {shape} {dtype} ({need} bytes)").format(
        shape=_shape_text(shape), dtype=dtype, need=need)
    if remaining is not None:
        try:
            left = remaining()
        except Exception:
            left = None
        if left is not None and left < need:
            raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is truncated: {what} but only {left} bytes "
                                                               "follow").format(what=what, left=max(left, 0)))
    flat = np.empty(cells, dtype=dtype)
    got = _read_exactly(fp, flat)
    if got < need:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is truncated: {what} but only {got} bytes follow").format(
                               what=what, got=got))
    if fortran:
        return flat.reshape(shape[::-1]).T
    return flat.reshape(shape)


# ----------------------------------------------------------------------------------------------
# .npz

def _zip_directory_size(f: BinaryIO, size: int, where: str) -> tuple[int, int]:
    """(members, central directory bytes) from the end record, read before zipfile parses it."""
    tail_len = min(size, 22 + 65535 + 20)
    f.seek(size - tail_len)
    tail = f.read(tail_len)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is not a valid .npz file (no zip directory found)"))
    _, _, _, _, members, directory, offset, _ = struct.unpack("<4s4H2LH", tail[at:at + 22])
    if members == 0xFFFF or directory == 0xFFFFFFFF or offset == 0xFFFFFFFF:
        locator = tail[at - 20:at] if at >= 20 else b""
        if len(locator) != 20 or locator[:4] != b"PK\x06\x07":
            raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is not a valid .npz file (damaged zip64 "
                                                               "directory)"))
        record_at = struct.unpack("<4sLQL", locator)[2]
        if not 0 <= record_at <= size - 56:
            raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is not a valid .npz file (damaged zip64 "
                                                               "directory)"))
        f.seek(record_at)
        record = f.read(56)
        if len(record) != 56 or record[:4] != b"PK\x06\x06":
            raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is not a valid .npz file (damaged zip64 "
                                                               "directory)"))
        members, directory = struct.unpack("<4sQ2H2L4Q", record)[7:9]
    if directory > size:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is not a valid .npz file (damaged zip directory)"))
    f.seek(0)
    return members, directory


def _read_npz(f: BinaryIO, size: int, where: str, max_cells: int,
              member: str | None) -> np.ndarray:
    try:
        return _read_npz_archive(f, size, where, max_cells, member)
    except (MatrixFileError, MemoryError):
        raise
    except Exception as e:  # BadZipFile, zlib.error, EOFError, unsupported compression, ...
        detail = str(e)[:200] or type(e).__name__
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is a damaged or unsupported .npz file ({detail})").format(
                               detail=detail)) from None


def _read_npz_archive(f: BinaryIO, size: int, where: str, max_cells: int,
                      member: str | None) -> np.ndarray:
    members, directory = _zip_directory_size(f, size, where)
    if members > _MAX_NPZ_MEMBERS or directory > _MAX_NPZ_DIRECTORY_BYTES:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is an archive of {members} members; the most "
                                                           "read is {_max_npz_members}").format(members=members,
                               _max_npz_members=_MAX_NPZ_MEMBERS))
    with zipfile.ZipFile(f) as archive:
        arrays = {info.filename[:-4]: info for info in archive.infolist()
                  if info.filename.endswith(".npy") and not info.is_dir()}
        listing = ", ".join(list(arrays)[:20]) + (", …" if len(arrays) > 20 else "")
        if member is not None:
            key = member[:-4] if member.endswith(".npy") else member
            if key not in arrays:
                held = (QT_TRANSLATE_NOOP("MatrixFile", "it holds {listing}").format(listing=listing) if arrays
                        else QT_TRANSLATE_NOOP("MatrixFile", "it holds no arrays"))
                raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "has no array named {member} ({held})").format(
                                       member=_short(member), held=held))
        elif not arrays:
            raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "holds no arrays"))
        elif len(arrays) > 1:
            raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "holds {arrays} arrays ({listing}); choose "
                                                               "one with member=").format(arrays=len(arrays),
                                   listing=listing))
        else:
            key = next(iter(arrays))
        info = arrays[key]
        place = f"{where}[{key}]"
        if info.flag_bits & 0x1:
            raise _fail(place, QT_TRANSLATE_NOOP("MatrixFile", "is encrypted"))
        with archive.open(info) as fp:
            def remaining() -> int:
                return info.file_size - fp.tell()
            return _read_npy(fp, place, max_cells, remaining)


# ----------------------------------------------------------------------------------------------
# Text: .csv, .tsv, .txt

def _is_number(field: str) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


def _choose_separator(line: str, suffix: str) -> str | None:
    if suffix == ".tsv":
        return "\t"
    for sep in (";", ","):
        if sep in line:
            return sep
    return None           # runs of whitespace (spaces and tabs)


def _count_fields(line: str, sep: str | None) -> int:
    """How many fields ``line`` splits into, without building the list."""
    if sep is not None:
        return line.count(sep) + 1
    return re.subn(r"\s+", " ", line)[1] + 1


def _read_text(data: bytes, where: str, max_cells: int,
               suffix: str) -> tuple[np.ndarray, list[int]]:
    """Rows of numbers from UTF-8 text; returns the matrix and each row's 1-based line number."""
    offset = 0
    if data.startswith(codecs.BOM_UTF8):
        offset = 3
    elif data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is UTF-16 text; save it as UTF-8 (or plain ASCII)"))
    if b"\n" not in data and b"\r" in data:
        data = data.replace(b"\r", b"\n")          # old Mac line ends
    rows: list[np.ndarray] = []
    row_lines: list[int] = []
    sep: str | None = None
    first_content = True        # the first non-blank, non-comment line: may be a header
    width = first_line = cells = 0
    stream = io.BytesIO(data)
    stream.seek(offset)
    for lineno, raw in enumerate(stream, 1):
        try:
            line = raw.decode("utf-8").strip()
        except UnicodeDecodeError as e:
            raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "line {lineno} is not UTF-8 text (byte "
                                                               "0x{raw} at offset {offset} cannot be "
                                                               "decoded)").format(lineno=lineno,
                                   raw=format(raw[e.start], "02x"), offset=offset + e.start)) from None
        offset += len(raw)
        if not line or line.startswith("#"):
            continue
        if first_content:
            sep = _choose_separator(line, suffix)
        if len(line) // 2 + 1 > max_cells:       # only a long line can hold too many fields
            n = _count_fields(line, sep)
            if n > max_cells:
                raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "line {lineno} has {n}; the most is "
                                                                   "{max_cells}").format(lineno=lineno,
                                       n=count(n, 'value'), n_n=n, max_cells=max_cells))
        fields = line.split(sep)
        header_possible, first_content = first_content, False
        try:
            row = np.fromiter(map(float, fields), dtype=np.float64, count=len(fields))
        except ValueError:
            bad = [j for j, field in enumerate(fields) if not _is_number(field)]
            if header_possible and len(bad) == len(fields):
                continue                         # a header: no field is a number; skip it
            j = bad[0]
            text = fields[j].strip()
            what = (QT_TRANSLATE_NOOP("MatrixFile", "is empty") if not text
                    else QT_TRANSLATE_NOOP("MatrixFile", "is {text}, not a number").format(text=_short(text)))
            raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "line {lineno} (row {rows}, col {j}) {what}").format(
                                   lineno=lineno, rows=len(rows), j=j, what=what)) from None
        if not rows:
            width, first_line = len(fields), lineno
        elif len(fields) != width:
            raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "line {lineno} (row {rows}) has {fields} but "
                                                               "line {first_line} (row 0) has {width}").format(
                                   lineno=lineno, rows=len(rows), fields=count(len(fields), 'value'), n_fields=len(fields),
                                   first_line=first_line, width=width))
        cells += width
        if cells > max_cells:
            raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "holds more than {max_cells} numbers").format(
                                   max_cells=max_cells))
        rows.append(row)
        row_lines.append(lineno)
    if not rows:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "holds no numbers"))
    return np.vstack(rows), row_lines


# ----------------------------------------------------------------------------------------------
# Public API

def _finish(array: np.ndarray, where: str, max_abs: float | None,
            row_lines: list[int] | None = None) -> np.ndarray:
    """2-D, C-contiguous float64, every value finite (and within ±max_abs)."""
    if array.ndim == 1:
        array = array.reshape(1, -1)
    with np.errstate(over="ignore", invalid="ignore"):
        result = np.ascontiguousarray(array, dtype=np.float64)
        if max_abs is None:
            bad = ~np.isfinite(result)
        else:
            bad = ~(np.abs(result) <= max_abs)
    if bad.any():
        r, c = (int(i) for i in np.unravel_index(int(np.argmax(bad)), bad.shape))
        value = float(result[r, c])
        place = f"(row {r}, col {c})"
        if row_lines is not None:
            place = f"line {row_lines[r]} {place}"
        if math.isfinite(value):
            raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "the value at {place} is {value}; values must "
                                                               "lie within ±{max_abs}").format(place=place,
                                   value=repr(value), max_abs=format(max_abs, ".15g")))
        original = array[r, c]
        if np.isfinite(original):
            raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "the value at {place} is too large for a "
                                                               "64-bit float").format(place=place))
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "the value at {place} is {value}; values must be "
                                                           "finite").format(place=place, value=repr(value)))
    if result is array and not result.flags.writeable:
        result = result.copy()
    return result


def load_matrix(path, *, max_cells: int = 2 ** 24, member: str | None = None,
                max_abs: float | None = MAX_ABS_VALUE,
                max_bytes: int = MAX_MATRIX_FILE_BYTES) -> np.ndarray:
    """Read a 2-D float64 matrix from .npy, .npz (one array, or ``member=``), .csv, .tsv or .txt.

    Refuses (MatrixFileError, message starting with the file name): files over ``max_bytes``,
    more than ``max_cells`` numbers (checked from the header, before allocating), pickles and
    object/structured/complex/text/bool dtypes, arrays not 1-D or 2-D, and values that are not
    finite or (unless ``max_abs`` is None) beyond ±``max_abs``.
    """
    where = file_name(path)
    try:
        suffix = _suffix(path)
        file_path = os.fspath(path)
    except Exception as e:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is not a usable file path ({why})").format(
                               why=message_of(e))) from None
    if suffix not in MATRIX_LOAD_SUFFIXES:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is not a matrix file this app reads (use "
                                                           "{matrix_load_suffixes})").format(
                               matrix_load_suffixes=', '.join(MATRIX_LOAD_SUFFIXES)))
    if member is not None and suffix != ".npz":
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "member= only applies to .npz files"))
    try:
        info = os.stat(file_path)
    except FileNotFoundError:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "no such file")) from None
    except (OSError, ValueError) as e:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "cannot be opened ({value})").format(
                               value=getattr(e, 'strerror', None) or e)) from None
    if stat.S_ISDIR(info.st_mode):
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is a folder, not a matrix file"))
    if not stat.S_ISREG(info.st_mode):
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is not a regular file"))
    if info.st_size > max_bytes:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is {st_size} MiB; matrix files are limited "
                                                           "to {max_bytes} MiB").format(
                               st_size=format(info.st_size / 2 ** 20, ".1f"), max_bytes=format(max_bytes / 2 ** 20, ".0f")))
    row_lines = None
    try:
        with open(file_path, "rb") as f:
            if suffix == ".npy":
                array = _read_npy(f, where, max_cells, lambda: info.st_size - f.tell())
            elif suffix == ".npz":
                array = _read_npz(f, info.st_size, where, max_cells, member)
            else:
                data = f.read(max_bytes + 1)
                if len(data) > max_bytes:
                    raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is larger than {max_bytes} MiB").format(
                                           max_bytes=format(max_bytes / 2 ** 20, ".0f")))
                array, row_lines = _read_text(data, where, max_cells, suffix)
                del data
        return _finish(array, where if member is None else f"{where}[{member}]", max_abs,
                       row_lines)
    except MatrixFileError:
        raise
    except OSError as e:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "cannot be read ({reason})").format(
                               reason=e.strerror or e)) from None
    except MemoryError:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is too large to load (out of memory)")) from None
    except RecursionError:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "could not be read (nested too deeply)")) from None
    except Exception as e:  # zlib.error, BadZipFile, NotImplementedError (compression), ...
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "could not be read ({kind}: {detail})").format(
                               kind=type(e).__name__, detail=str(e)[:200])) from None


def save_matrix(array: Any, path) -> None:
    """Write a 2-D (or 1-D: one row) finite real matrix as .npy or text, atomically.

    .npy is float64 via ``np.save(allow_pickle=False)``; .csv/.tsv/.txt hold one row per line,
    separated by comma/tab/space, each float written with ``repr`` so it reads back exactly.
    """
    where = file_name(path)
    try:
        suffix = _suffix(path)
    except Exception as e:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "is not a usable file path ({why})").format(
                               why=message_of(e))) from None
    if suffix not in MATRIX_SAVE_SUFFIXES:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "cannot be written: use {matrix_save_suffixes}").format(
                               matrix_save_suffixes=', '.join(MATRIX_SAVE_SUFFIXES)))
    try:
        values = np.asarray(array)
    except Exception as e:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "cannot be written: not an array of numbers "
                                                           "({why})").format(why=message_of(e))) from None
    if values.dtype.kind not in "iuf":
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "cannot be written: the matrix holds {dtype}, not "
                                                           "real numbers").format(dtype=values.dtype))
    if values.ndim not in (1, 2) or values.size == 0:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "cannot be written: the matrix is {shape}; it "
                                                           "must be 2-D (or 1-D) and not empty").format(
                               shape=_shape_text(values.shape)))
    try:
        values = _finish(values, where, None)
    except MatrixFileError as e:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "cannot be written: {why}").format(
            why=e.args[0].arguments["message"])) from None
    if suffix == ".npy":
        buffer = io.BytesIO()
        np.save(buffer, values, allow_pickle=False)
        data = buffer.getvalue()
    else:
        sep = _TEXT_SEPARATORS[suffix]
        data = "".join(sep.join(map(float.__repr__, row)) + "\n"
                       for row in values.tolist()).encode("ascii")
    try:
        atomic_write_bytes(path, data)
    except OSError as e:
        raise _fail(where, QT_TRANSLATE_NOOP("MatrixFile", "could not be saved ({reason})").format(
                               reason=e.strerror or e)) from e
