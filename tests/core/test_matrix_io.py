"""Matrix import/export: round trips, refusal of pickles and hostile headers, clear positions."""
from __future__ import annotations

import io
import os
import pickle
import tempfile
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from explorer.core import matrix_io
from explorer.core.errors import MatrixFileError
from explorer.core.matrix_io import load_matrix, save_matrix

A = np.array([[0.5, 1.5, 0.0], [2.0, -0.0, 1e-300], [1.0, 5e-324, 0.8], [0.3, 1 / 3, 2.0]])


def refused(path, *expected: str, **kwargs) -> str:
    with pytest.raises(MatrixFileError) as info:
        load_matrix(path, **kwargs)
    message = str(info.value)
    assert message.startswith(os.path.basename(str(path))), message
    for part in expected:
        assert part in message, message
    return message


def bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a, dtype=np.float64).tobytes()


def npy_bytes(header: dict, body: bytes = b"", version=(1, 0)) -> bytes:
    """An .npy file written by hand: any header, any body."""
    buffer = io.BytesIO()
    if version == (1, 0):
        np.lib.format.write_array_header_1_0(buffer, header)
    else:
        np.lib.format.write_array_header_2_0(buffer, header)
    return buffer.getvalue() + body


def write_zip(path, members: dict[str, bytes], compression=zipfile.ZIP_STORED) -> None:
    with zipfile.ZipFile(path, "w", compression=compression) as z:
        for name, data in members.items():
            z.writestr(name, data)


# ----------------------------------------------------------------------------------------------
# Round trips

@pytest.mark.parametrize("suffix", [".npy", ".csv", ".tsv", ".txt"])
def test_save_then_load_is_exact(tmp_path, suffix):
    path = tmp_path / f"m{suffix}"
    save_matrix(A, path)
    b = load_matrix(path)
    assert b.dtype == np.float64 and b.flags.c_contiguous and b.flags.writeable
    assert bits(b) == bits(A)


@settings(max_examples=100, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=6),
                  elements=st.floats(-1e6, 1e6, allow_subnormal=True)),
       st.sampled_from([".npy", ".csv", ".tsv", ".txt"]))
def test_round_trip_property(array, suffix):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "m" + suffix)
        save_matrix(array, path)
        assert bits(load_matrix(path)) == bits(array)
        assert os.listdir(folder) == ["m" + suffix]


def test_csv_text_is_one_row_per_line(tmp_path):
    save_matrix([[1, 2.5], [0.1, -3]], tmp_path / "m.csv")
    assert (tmp_path / "m.csv").read_text() == "1.0,2.5\n0.1,-3.0\n"
    save_matrix([[1, 2.5]], tmp_path / "m.tsv")
    assert (tmp_path / "m.tsv").read_text() == "1.0\t2.5\n"


@pytest.mark.parametrize("dtype", ["<f8", ">f8", "<f4", ">i4", "<u2", "i1", "<f2"])
@pytest.mark.parametrize("fortran", [False, True])
def test_npy_dtypes_and_orders_become_float64_c(tmp_path, dtype, fortran):
    source = (np.arange(12).reshape(3, 4) - 5).astype(np.float64)
    if dtype.lstrip("<>").startswith("u"):
        source = np.abs(source)
    array = source.astype(dtype)
    if fortran:
        array = np.asfortranarray(array)
    np.save(tmp_path / "m.npy", array)
    b = load_matrix(tmp_path / "m.npy")
    assert b.dtype == np.float64 and b.flags.c_contiguous
    np.testing.assert_array_equal(b, source)


def test_npy_version_2_header(tmp_path):
    header = np.lib.format.header_data_from_array_1_0(A)
    (tmp_path / "m.npy").write_bytes(npy_bytes(header, A.tobytes(), version=(2, 0)))
    assert bits(load_matrix(tmp_path / "m.npy")) == bits(A)


def test_one_d_becomes_a_single_row(tmp_path):
    np.save(tmp_path / "v.npy", np.array([1.0, 2.0, 3.0]))
    assert load_matrix(tmp_path / "v.npy").shape == (1, 3)
    (tmp_path / "v.csv").write_text("1,2,3\n")
    assert load_matrix(tmp_path / "v.csv").shape == (1, 3)


def test_npz_single_member_and_member_argument(tmp_path):
    np.savez(tmp_path / "one.npz", A)
    assert bits(load_matrix(tmp_path / "one.npz")) == bits(A)
    np.savez_compressed(tmp_path / "qkv.npz", Q=A, K=A * 2, V=np.asfortranarray(A[:, :2]))
    assert bits(load_matrix(tmp_path / "qkv.npz", member="K")) == bits(A * 2)
    assert bits(load_matrix(tmp_path / "qkv.npz", member="V.npy")) == bits(A[:, :2])
    refused(tmp_path / "qkv.npz", "holds 3 arrays (Q, K, V); choose one with member=")
    refused(tmp_path / "qkv.npz", "has no array named 'X' (it holds Q, K, V)", member="X")


def test_csv_variants(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("# exported\nd0, d1, d2\n\n 1.5, 2 ,3e0\r\n4,5,6\n\n")
    np.testing.assert_array_equal(load_matrix(path), [[1.5, 2, 3], [4, 5, 6]])
    path.write_bytes(b"\xef\xbb\xbf1;2\n3;4\n")               # BOM, semicolons
    np.testing.assert_array_equal(load_matrix(path), [[1, 2], [3, 4]])
    (tmp_path / "m.txt").write_text("1  2\t 3\n4 5 6")       # runs of whitespace
    np.testing.assert_array_equal(load_matrix(tmp_path / "m.txt"), [[1, 2, 3], [4, 5, 6]])
    (tmp_path / "m.tsv").write_bytes(b"a b\tc\r1\t2\r3\t 4\r")   # old Mac line ends too
    np.testing.assert_array_equal(load_matrix(tmp_path / "m.tsv"), [[1, 2], [3, 4]])
    (tmp_path / "gap.tsv").write_bytes(b"1\t\t2\n")                  # .tsv: tabs, strictly
    refused(tmp_path / "gap.tsv", "line 1 (row 0, col 1) is empty")


# ----------------------------------------------------------------------------------------------
# Pickles and other dtypes are refused

def test_object_npy_is_refused_without_unpickling(tmp_path, monkeypatch):
    np.save(tmp_path / "obj.npy", np.array([[1, None]], dtype=object), allow_pickle=True)

    def no_unpickling(*args, **kwargs):
        raise AssertionError("unpickled")

    monkeypatch.setattr(pickle, "load", no_unpickling)
    monkeypatch.setattr(pickle, "loads", no_unpickling)
    refused(tmp_path / "obj.npy", "holds Python objects", "only plain numbers are loaded")


def test_pickle_with_npy_extension_is_refused(tmp_path):
    (tmp_path / "evil.npy").write_bytes(pickle.dumps({"a": np.ones(3)}))
    refused(tmp_path / "evil.npy", "is a Python pickle, not a NumPy .npy file; pickles are "
                                   "never loaded")


def test_object_member_in_npz_is_refused(tmp_path):
    buffer = io.BytesIO()
    np.save(buffer, np.array([1, "x"], dtype=object), allow_pickle=True)
    write_zip(tmp_path / "obj.npz", {"a.npy": buffer.getvalue()})
    refused(tmp_path / "obj.npz", "obj.npz[a]: holds Python objects")


@pytest.mark.parametrize("array, expected", [
    (np.ones((2, 2), complex), "holds complex numbers"),
    (np.ones((2, 2), bool), "holds booleans"),
    (np.array([["a", "b"]]), "holds text"),
    (np.array([[b"a"]]), "holds bytes"),
    (np.zeros((2,), dtype=[("x", "<f8"), ("y", "<i4")]), "holds structured records"),
    (np.array(["2020-01-01"], dtype="datetime64[D]"), "holds dates"),
    (np.ones((2, 2, 2)), "is 3-D (2×2×2); a matrix must be 2-D"),
    (np.float64(3.0), "is 0-D"),
    (np.ones((0, 3)), "is empty (0×3)"),
])
def test_unsupported_arrays_are_refused(tmp_path, array, expected):
    np.save(tmp_path / "m.npy", array)
    refused(tmp_path / "m.npy", expected)


# ----------------------------------------------------------------------------------------------
# Sizes are checked from the header, before allocating

def test_npz_member_claiming_1e12_floats_is_refused_before_allocating(tmp_path, monkeypatch):
    header = {"descr": "<f8", "fortran_order": False, "shape": (10 ** 6, 10 ** 6)}
    write_zip(tmp_path / "bomb.npz", {"big.npy": npy_bytes(header, b"\0" * 16)},
              zipfile.ZIP_DEFLATED)
    real_empty = np.empty

    def guarded_empty(shape, *args, **kwargs):
        assert np.prod(shape) < 10 ** 9, "allocated what the header claimed"
        return real_empty(shape, *args, **kwargs)

    monkeypatch.setattr(matrix_io.np, "empty", guarded_empty)
    refused(tmp_path / "bomb.npz", "bomb.npz[big]: is 1000000×1000000 = 1000000000000 numbers; "
                                   "the most is 16777216")


def test_npy_claiming_too_much_is_refused(tmp_path):
    header = {"descr": "<f8", "fortran_order": False, "shape": (10 ** 6, 10 ** 6)}
    (tmp_path / "big.npy").write_bytes(npy_bytes(header, b"\0" * 16))
    refused(tmp_path / "big.npy", "is 1000000×1000000 = 1000000000000 numbers")
    refused(tmp_path / "big.npy", "the most is 100", max_cells=100)


def test_truncated_npy_is_refused_before_allocating(tmp_path, monkeypatch):
    header = {"descr": "<f8", "fortran_order": False, "shape": (4000, 4000)}
    (tmp_path / "cut.npy").write_bytes(npy_bytes(header, b"\0" * 16))
    monkeypatch.setattr(matrix_io.np, "empty", lambda *a, **k: pytest.fail("allocated"))
    refused(tmp_path / "cut.npy", "is truncated: its header announces 4000×4000 float64 "
                                  "(128000000 bytes) but only 16 bytes follow")


def test_truncated_npz_member_is_refused(tmp_path):
    header = {"descr": "<f8", "fortran_order": False, "shape": (3, 3)}
    write_zip(tmp_path / "cut.npz", {"a.npy": npy_bytes(header, b"\0" * 16)})
    refused(tmp_path / "cut.npz", "is truncated", "only 16 bytes follow")


def test_zip_bomb_member_reads_only_what_the_header_announces(tmp_path):
    """A tiny array followed by 200 MB of compressed zeros: only 72 bytes are decompressed."""
    header = np.lib.format.header_data_from_array_1_0(np.ones((3, 3)))
    body = np.ones((3, 3)).tobytes()
    with zipfile.ZipFile(tmp_path / "bomb.npz", "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("a.npy", "w", force_zip64=True) as member:
            member.write(npy_bytes(header, body))
            chunk = b"\0" * 2 ** 20
            for _ in range(200):
                member.write(chunk)
    np.testing.assert_array_equal(load_matrix(tmp_path / "bomb.npz"), np.ones((3, 3)))


def test_archive_with_too_many_members_is_refused(tmp_path, monkeypatch):
    np.savez(tmp_path / "many.npz", a=A, b=A, c=A)
    monkeypatch.setattr(matrix_io, "_MAX_NPZ_MEMBERS", 2)
    refused(tmp_path / "many.npz", "is an archive of 3 members; the most read is 2")


def test_file_over_the_byte_cap_is_refused_by_size(tmp_path, monkeypatch):
    path = tmp_path / "big.csv"
    with open(path, "wb") as f:
        f.truncate(matrix_io.MAX_MATRIX_FILE_BYTES + 1)
    monkeypatch.setattr(matrix_io, "open", lambda *a, **k: pytest.fail("opened"), raising=False)
    refused(path, "is 512.0 MiB; matrix files are limited to 512 MiB")


def test_too_many_cells_in_text(tmp_path):
    (tmp_path / "m.csv").write_text("1,2,3\n4,5,6\n7,8,9\n")
    refused(tmp_path / "m.csv", "holds more than 8 numbers", max_cells=8)
    (tmp_path / "w.csv").write_text("1," * 20 + "1\n")
    refused(tmp_path / "w.csv", "line 1 has 21 values; the most is 8", max_cells=8)


# ----------------------------------------------------------------------------------------------
# Values and text: the first bad place is named

def test_non_finite_npy_names_the_position(tmp_path):
    a = A.copy()
    a[2, 1] = np.nan
    a[3, 0] = np.inf
    np.save(tmp_path / "nan.npy", a)
    refused(tmp_path / "nan.npy", "the value at (row 2, col 1) is nan; values must be finite")


def test_values_beyond_the_editor_cap(tmp_path):
    a = A.copy()
    a[1, 2] = -2e6
    np.save(tmp_path / "m.npy", a)
    refused(tmp_path / "m.npy", "the value at (row 1, col 2) is -2000000.0; values must lie "
                                "within ±1000000")
    assert load_matrix(tmp_path / "m.npy", max_abs=None)[1, 2] == -2e6


@pytest.mark.skipif(np.finfo(np.longdouble).max <= np.finfo(np.float64).max,
                    reason="longdouble is double here")
def test_longdouble_overflow_is_named(tmp_path):
    a = np.ones((2, 2), dtype=np.longdouble)
    a[1, 1] = np.longdouble(10) ** 400
    np.save(tmp_path / "m.npy", a)
    refused(tmp_path / "m.npy", "the value at (row 1, col 1) is too large for a 64-bit float",
            max_abs=None)


@pytest.mark.parametrize("text, expected", [
    ("1,2,3\n4,5\n", "line 2 (row 1) has 2 values but line 1 (row 0) has 3"),
    ("a,b,c\n1,2,3\n4,5\n", "line 3 (row 1) has 2 values but line 2 (row 0) has 3"),
    ("1,2,3\n4,abc,6\n", "line 2 (row 1, col 1) is 'abc', not a number"),
    ("1,2,3\n4,,6\n", "line 2 (row 1, col 1) is empty"),
    ("1,2,3,\n", "line 1 (row 0, col 3) is empty"),
    ("x,1,2\n", "line 1 (row 0, col 0) is 'x', not a number"),
    ("h1,h2\nh3,h4\n", "line 2 (row 0, col 0) is 'h3', not a number"),
    ("# only a comment\n\n", "holds no numbers"),
    ("", "holds no numbers"),
    ("1,2\n3,nan\n", "the value at line 2 (row 1, col 1) is nan; values must be finite"),
    ("# c\n\n1,2\n-inf,3\n", "the value at line 4 (row 1, col 0) is -inf"),
    ("1,2\n3,1e400\n", "the value at line 2 (row 1, col 1) is inf"),
])
def test_bad_csv_names_the_line(tmp_path, text, expected):
    (tmp_path / "bad.csv").write_text(text)
    refused(tmp_path / "bad.csv", expected)


def test_non_utf8_text_names_the_line_and_offset(tmp_path):
    (tmp_path / "bad.csv").write_bytes(b"1,2\n3,\xff\n")
    refused(tmp_path / "bad.csv", "line 2 is not UTF-8 text (byte 0xff at offset 6")
    (tmp_path / "u16.csv").write_bytes("1,2\n".encode("utf-16"))
    refused(tmp_path / "u16.csv", "is UTF-16 text")


# ----------------------------------------------------------------------------------------------
# Paths and files

def test_paths_and_kinds(tmp_path):
    refused(tmp_path / "m.xlsx", "is not a matrix file this app reads")
    refused(tmp_path / "none.npy", "no such file")
    (tmp_path / "dir.npy").mkdir()
    refused(tmp_path / "dir.npy", "is a folder")
    (tmp_path / "m.csv").write_text("1\n")
    refused(tmp_path / "m.csv", "member= only applies to .npz files", member="a")
    (tmp_path / "text.npy").write_text("1,2,3\n")
    refused(tmp_path / "text.npy", "is not a NumPy .npy file")
    with open(tmp_path / "renamed.npy", "wb") as f:
        np.savez(f, A)
    refused(tmp_path / "renamed.npy", "is a zip archive, not an .npy file")
    (tmp_path / "junk.npz").write_bytes(b"PK\x03\x04 not really a zip")
    refused(tmp_path / "junk.npz", "is not a valid .npz file")
    write_zip(tmp_path / "empty.npz", {"readme.txt": b"hi"})
    refused(tmp_path / "empty.npz", "holds no arrays")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.csv")
        refused(tmp_path / "pipe.csv", "is not a regular file")


def test_damaged_npy_header(tmp_path):
    data = npy_bytes({"descr": "<f8", "fortran_order": False, "shape": (2, 2)}, b"\0" * 32)
    (tmp_path / "m.npy").write_bytes(data.replace(b"'shape'", b"'shapX'"))
    refused(tmp_path / "m.npy", "has a damaged .npy header")
    (tmp_path / "v.npy").write_bytes(b"\x93NUMPY\x09\x00" + data[8:])
    refused(tmp_path / "v.npy", "uses .npy format version 9.0")


# ----------------------------------------------------------------------------------------------
# Hostile bytes: only MatrixFileError escapes

def _valid_files() -> dict[str, bytes]:
    buffer = io.BytesIO()
    np.save(buffer, A)
    npy = buffer.getvalue()
    buffer = io.BytesIO()
    np.savez_compressed(buffer, Q=A, K=A[:2])
    npz = buffer.getvalue()
    return {".npy": npy, ".npz": npz, ".csv": b"d0,d1\n1.5,2\n3,4e-3\n"}


VALID = _valid_files()
FUZZ = settings(max_examples=200, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(st.sampled_from(sorted(VALID)), st.data())
def test_fuzz_mutated_matrix_files(suffix, data):
    mutated = bytearray(VALID[suffix])
    action = data.draw(st.sampled_from(["truncate", "flip", "insert"]))
    i = data.draw(st.integers(0, len(mutated) - 1))
    if action == "truncate":
        del mutated[i:]
    elif action == "flip":
        for _ in range(data.draw(st.integers(1, 4))):
            j = data.draw(st.integers(0, len(mutated) - 1))
            mutated[j] ^= 1 << data.draw(st.integers(0, 7))
    else:
        mutated[i:i] = data.draw(st.binary(min_size=1, max_size=16))
    member = "Q" if suffix == ".npz" else None
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "f" + suffix)
        with open(path, "wb") as f:
            f.write(bytes(mutated))
        try:
            result = load_matrix(path, member=member)
        except MatrixFileError as e:
            assert str(e).startswith("f" + suffix)
            assert "could not be read (" not in str(e), "an unforeseen error hit the safety net"
        else:
            assert result.ndim == 2 and result.dtype == np.float64
            assert np.isfinite(result).all()


# ----------------------------------------------------------------------------------------------
# Saving

def test_save_refuses_what_load_would_refuse(tmp_path):
    with pytest.raises(MatrixFileError, match=r"^m\.npy: cannot be written: the value at "
                                              r"\(row 0, col 1\) is nan"):
        save_matrix([[1.0, np.nan]], tmp_path / "m.npy")
    with pytest.raises(MatrixFileError, match=r"^m\.csv: cannot be written: the matrix holds "
                                              r"complex128"):
        save_matrix(np.ones((2, 2), complex), tmp_path / "m.csv")
    with pytest.raises(MatrixFileError, match=r"^m\.csv: cannot be written: the matrix is 2×2×2"):
        save_matrix(np.ones((2, 2, 2)), tmp_path / "m.csv")
    with pytest.raises(MatrixFileError, match=r"^m\.xlsx: cannot be written: use \.npy"):
        save_matrix(A, tmp_path / "m.xlsx")
    with pytest.raises(MatrixFileError, match=r"^m\.npy: could not be saved"):
        save_matrix(A, tmp_path / "missing" / "m.npy")
    assert os.listdir(tmp_path) == []


def test_failed_save_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "m.npy"
    save_matrix(A, path)
    before = path.read_bytes()

    def boom(*args):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(MatrixFileError, match=r"^m\.npy: could not be saved \(Input/output "
                                              r"error\)"):
        save_matrix(A * 2, path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["m.npy"]
