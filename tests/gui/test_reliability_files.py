"""Hostile session files through the window: File ▸ Open and Open Recent refuse each one with a warning
and leave the session exactly as it was — unsaved edits, undo history, title, file, heatmaps and the
autosaved recovery copy included.

About 300 files, generated from a seed: truncated, bit-flipped, bytes inserted and deleted, values
re-typed, deeply nested, in other encodings and with invalid UTF-8, huge (a sparse file over the size
cap and multi-megabyte ones under it), and things that are not files at all (a folder, a FIFO, a
dangling symlink, a missing path). ``tests/core/test_reliability_loader.py`` sends thousands more
straight to the loader. Nothing is timed: each File ▸ Open is bounded by counted work instead (the
file opened and read at most once, parsed at most once, no regular expression built from its text;
see ``tests/counted_work.py``); ``benchmarks/hostile_files.py`` measures the time.
"""
import json
import os
import random

import numpy as np
import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox

from explorer.core.errors import SessionError
from explorer.core.presets import demo_session, multi_head_session
from explorer.core.session import MAX_FILE_BYTES, load_session, session_to_json
from tests.counted_work import counting_session_work

SEED = 20240609
PER_KIND = 30
BASES = [session_to_json(demo_session()).encode("utf-8"), session_to_json(multi_head_session()).encode("utf-8")]


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, path + (i,))


def hostile_bytes(rng):
    """kind -> list of file contents, PER_KIND each (some may turn out valid and are dropped)."""
    out = {k: [] for k in ("truncated", "bit flips", "inserted", "deleted", "retyped", "nested", "encoding",
                           "invalid utf-8")}
    values = [None, True, False, 0, -1, 2 ** 70, 1.5, -0.0, 1e308, "", "x", "猫" * 200, [], {}, [[]], [1, "a"],
              {"Q": 1}, [[1.0, 2.0]], "attention-explorer-session", 3, 99, "NaN"]
    for _ in range(PER_KIND):
        base = rng.choice(BASES)
        out["truncated"].append(base[:rng.randrange(len(base))])
        flipped = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        out["bit flips"].append(bytes(flipped))
        i = rng.randrange(len(base))
        out["inserted"].append(base[:i] + rng.choice([b"[", b"}", b",", b'"', b"\\", b"NaN", b"1e999", b"\x00",
                                                       b"-Infinity", b"9" * 400, os.urandom(8)]) + base[i:])
        out["deleted"].append(base[:i] + base[i + rng.randint(1, 40):])
        doc = json.loads(base)
        path = rng.choice([p for p in _paths(doc) if p])
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = rng.choice(values)
        out["retyped"].append(json.dumps(doc, ensure_ascii=rng.random() < 0.5).encode())
        depth = rng.choice([100, 1_000, 10_000, 100_000])
        opener = rng.choice(["[", '{"a":'])
        out["nested"].append((opener * depth).encode() if rng.random() < 0.5 else
                             base.replace(b'"layout": null', b'"layout": ' + b"[" * depth + b"]" * depth))
        text = base.decode("utf-8")
        out["encoding"].append(text.encode(rng.choice(["utf-16", "utf-32", "gb18030", "big5", "shift_jis",
                                                       "cp1252", "latin-1"]), errors="replace"))
        j = rng.randrange(len(base))
        out["invalid utf-8"].append(base[:j] + rng.choice([b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe7\x8c",
                                                           b"\x80\x80"]) + base[j:])
    return out


@pytest.fixture
def dialogs(monkeypatch):
    class Dialogs:
        warnings, questions, files = [], [], []

    def warning(parent, title, text, *args, **kwargs):
        Dialogs.warnings.append((title, text))
        return QMessageBox.StandardButton.Ok

    def question(parent, title, text, *args, **kwargs):
        Dialogs.questions.append(title)
        return QMessageBox.StandardButton.Discard  # the open goes ahead; the file then turns out bad

    monkeypatch.setattr(QMessageBox, "warning", warning)
    monkeypatch.setattr(QMessageBox, "question", question)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(Dialogs.files.pop(0)), ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(Dialogs.files.pop(0)), ""))
    return Dialogs


def shown(window):
    return [window.panels[n].heatmap.image_array().copy() for n in ("scores", "weights", "output")]


def test_hundreds_of_hostile_files_through_file_open_change_nothing(qtbot, window, dialogs, ui, tmp_path, home):
    folder = tmp_path / "hostile"
    folder.mkdir()
    files = []
    for kind, contents in hostile_bytes(random.Random(SEED)).items():
        for n, data in enumerate(contents):
            path = folder / f"{kind.replace(' ', '-')}-{n}.json"
            path.write_bytes(data)
            try:
                load_session(path)
            except SessionError:
                files.append(path)
            else:
                path.unlink()  # a mutation that happens to be a valid session is not hostile
    big = folder / "over-the-cap.json"
    with open(big, "wb") as f:
        f.write(b"{")
        f.truncate(MAX_FILE_BYTES + 1)
    (folder / "huge-title.json").write_bytes(BASES[0].replace(b'"title": "', b'"title": "' + b"x" * 3_000_000))
    (folder / "huge-rows.json").write_bytes(BASES[0].replace(b'"Q": [', b'"Q": [' + b"[1.0, 2.0, 3.0],\n" * 60_000))
    (folder / "a-folder.json").mkdir()
    os.mkfifo(folder / "a-fifo.json")
    os.symlink(folder / "nowhere.json", folder / "dangling.json")
    files += [big, folder / "huge-title.json", folder / "huge-rows.json", folder / "a-folder.json",
              folder / "a-fifo.json", folder / "dangling.json", folder / "missing.json"]
    assert len(files) >= 200

    # a person's afternoon: a saved file, then unsaved edits that autosave protects
    dialogs.files.append(tmp_path / "lesson.json")
    window.actions["save_as"].trigger()
    m = window.model
    m.set_cell("Q", 1, 2, 1 / 3)
    m.rename_token(2, "red")
    m.set_param("temperature", 0.7)
    m.flush()
    window.recovery.autosave()
    recovery = window.recovery.path.read_bytes()
    before, heat = ui.snapshot(window), shown(window)

    for i, path in enumerate(files):
        dialogs.files.append(path)
        size = path.stat().st_size if path.is_file() else 0
        with counting_session_work() as work:
            window.actions["open"].trigger()
        work.assert_bounded(size)
        if size > MAX_FILE_BYTES:
            assert work.opened == 0, "a file over the cap was opened"
        assert len(dialogs.warnings) == i + 1, f"{path.name}: no warning"
        title, text = dialogs.warnings[-1]
        assert title == "Could not open the session"
        assert text.startswith(path.name), text[:200]
        assert text in window.statusBar().currentMessage()
    m.flush()
    assert len(dialogs.questions) == len(files)  # each time: "save the changes first?" — Discard
    ui.assert_same(ui.snapshot(window), before)
    for a, b in zip(shown(window), heat):
        np.testing.assert_array_equal(a, b)
    window.recovery.autosave()
    assert window.recovery.path.read_bytes() == recovery  # the recovery copy still holds the edits
    assert window.documents.recent_files() == [str((tmp_path / "lesson.json").resolve())]


def test_a_recent_file_damaged_since_is_refused_from_the_recent_menu(qtbot, window, dialogs, ui, tmp_path):
    rng = random.Random(SEED + 1)
    good = tmp_path / "recent.json"
    dialogs.files.append(good)
    window.actions["save_as"].trigger()
    window.model.set_cell("K", 0, 0, 9.5)
    window.model.flush()
    before, heat = ui.snapshot(window), shown(window)
    kinds = hostile_bytes(rng)
    damaged = [contents[0] for contents in kinds.values()] + [b"", b"\x00" * 100]
    refused = 0
    for data in damaged:
        good.write_bytes(data)
        try:
            load_session(good)
        except SessionError:
            pass
        else:
            continue
        window.recent_menu.aboutToShow.emit()  # File ▸ Open Recent, as the menu fills itself
        entries = [a for a in window.recent_menu.actions() if a.statusTip() == str(good.resolve())]
        assert len(entries) == 1
        entries[0].trigger()
        refused += 1
        assert len(dialogs.warnings) == refused
        assert dialogs.warnings[-1][0] == "Could not open the session"
    window.model.flush()
    assert refused >= 8
    ui.assert_same(ui.snapshot(window), before)
    for a, b in zip(shown(window), heat):
        np.testing.assert_array_equal(a, b)


# ----- matrix imports through File ▸ Import matrix ------------------------------------------------
def npy_claiming(shape, descr="<f8"):
    import io as _io
    buffer = _io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False, "shape": shape})
    return buffer.getvalue() + b"\0" * 64


def test_hostile_and_mismatched_matrix_imports_are_explained_and_change_nothing(qtbot, window, dialogs, ui,
                                                                                 tmp_path, monkeypatch):
    import pickle
    import zipfile

    import explorer.core.matrix_io as matrix_io

    real_empty = np.empty

    def guarded_empty(shape, *args, **kwargs):  # a header's claim must never be allocated
        assert np.prod(shape) < 10 ** 8, f"allocated {shape}"
        return real_empty(shape, *args, **kwargs)

    monkeypatch.setattr(matrix_io.np, "empty", guarded_empty)
    f = tmp_path
    np.save(f / "rows.npy", np.ones((5, 3)))
    np.save(f / "width.npy", np.ones((4, 2)))
    np.save(f / "nan.npy", np.array([[1.0, np.nan, 0.0]] * 4))
    np.save(f / "object.npy", np.array([[{"a": 1}, 2, 3]] * 4, dtype=object), allow_pickle=True)
    (f / "pickle.npy").write_bytes(pickle.dumps([[1.0, 2.0, 3.0]] * 4))
    (f / "claims.npy").write_bytes(npy_claiming((10 ** 6, 10 ** 6)))
    (f / "text.csv").write_text("1,2,3\n4,5,x\n7,8,9\n1,1,1\n", "utf-8")
    np.savez(f / "widths.npz", Q=np.ones((4, 3)), K=np.ones((4, 2)), V=np.ones((4, 3)))
    np.savez(f / "lengths.npz", Q=np.ones((4, 3)), K=np.ones((5, 3)), V=np.ones((5, 3)))
    np.savez(f / "missing.npz", Q=np.ones((4, 3)), V=np.ones((4, 3)))
    with zipfile.ZipFile(f / "bomb.npz", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("Q.npy", npy_claiming((10 ** 6, 10 ** 6)))
        z.writestr("K.npy", npy_claiming((10 ** 6, 10 ** 6)))
        z.writestr("V.npy", npy_claiming((10 ** 6, 10 ** 6)))
    window.model.set_cell("V", 0, 0, 2.0)
    window.model.flush()
    before, heat = ui.snapshot(window), shown(window)
    cases = [  # (how, file, words the warning must hold)
        ("V", "rows.npy", ["5 rows", "4 tokens", "Q, K and V from one .npz"]),
        ("K", "width.npy", ["2 columns", "3 columns", "d_k"]),
        ("Q", "nan.npy", ["nan", "row 0, col 1", "finite"]),
        ("K", "object.npy", ["Python objects", "unpickling"]),
        ("V", "pickle.npy", ["pickle"]),
        ("Q", "claims.npy", ["1000000×1000000", "the most is"]),
        ("V", "text.csv", ["line 2", "'x'"]),
        ("QKV", "widths.npz", ["2 columns", "3 columns"]),
        ("QKV", "lengths.npz", ["5 rows", "4 tokens"]),
        ("QKV", "missing.npz", ["no array named 'K'"]),
        ("QKV", "bomb.npz", ["1000000×1000000 = 1000000000000 numbers"]),
    ]
    for i, (how, name, words) in enumerate(cases):
        ok = (window.documents.import_qkv(f / name) if how == "QKV"
              else window.documents.import_matrix(how, f / name))
        assert ok is False, name
        assert len(dialogs.warnings) == i + 1, name
        title, text = dialogs.warnings[-1]
        assert title.startswith("Could not import"), title
        for word in words:
            assert word in text, (name, word, text)
    window.model.flush()
    ui.assert_same(ui.snapshot(window), before)
    for a, b in zip(shown(window), heat):
        np.testing.assert_array_equal(a, b)


# ----- a recovery file that cannot be read -----------------------------------------------------
# regression (was a bug): answering Yes to a recovery file that could not be loaded (e.g. written by a newer
# version of the app, then an older one was started) deleted it — the only copy of the unsaved work
def test_an_unreadable_recovery_file_is_kept_aside_not_deleted(qtbot, window, dialogs, ui, home, monkeypatch):
    folder = home / "recovery"
    newer = json.loads(session_to_json(demo_session()))
    newer["version"] = 99
    orphan = folder / "session-1-1.json"
    orphan.write_text(json.dumps(newer), "utf-8")
    before = ui.snapshot(window)
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda parent, title, *a, **k: asked.append(title) or
                        QMessageBox.StandardButton.Yes)
    assert window.recovery.offer() is False
    kept = folder / "unreadable-session-1-1.json"
    assert not orphan.exists() and kept.read_text("utf-8") == json.dumps(newer)
    title, text = dialogs.warnings[-1]
    assert title == "Could not restore" and "newer version" in text and str(kept) in text
    ui.assert_same(ui.snapshot(window), before)
    assert asked == ["Restore unsaved work?"]
    assert window.recovery.offer() is False  # not offered again at every start
    assert asked == ["Restore unsaved work?"] and len(dialogs.warnings) == 1
