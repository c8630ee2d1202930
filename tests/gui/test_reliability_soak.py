"""A long session through the real widgets: 10,000 seeded random operations on the main window.

Typed cells, cell-slider drags, the temperature slider, undo and redo, heads and the shown head, the
source (direct/projected) and positions, scale modes, the causal mask, tokens and dimensions added and
removed, renames, pastes, shuffles, randomize and reset, and now and then File ▸ Save As / Open / New —
most through the widgets' own entry points (``table.setData``, ``QSlider.setValue`` between
``setSliderDown(True/False)`` as a drag does, key presses on combo boxes, ``QAbstractButton.click``,
``QAction.trigger``), a fraction through real mouse and keyboard events (scrubbing a cell, typing into
the cell editor, Ctrl+Z / Ctrl+Shift+Z, clicking a heatmap row).

Checked: no exception (in the test or in any Qt slot), no Qt warning, memory (RSS) growth at most 5 %
after a warm-up, and at the end every panel and control shows exactly what the core computes for the
final state; undoing the whole history gives back the session last opened, redoing it gives the final
state again, and saving and the autosaved recovery copy hold that state too.

Budget: the model is flushed (recomputed, every panel re-rendered: ~20 ms on the reference 2-core
machine) every FLUSH_EVERY operations and whenever an operation needs the widgets up to date; the
window is painted (events processed, deferred deletes run, as the event loop would) every PAINT_EVERY
operations and before every mouse or keyboard event. About 20 s in all on the reference machine.
"""
import ctypes
import gc
import time
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from explorer.core.pipeline import run_pipeline
from explorer.core.session import load_session, save_session
from tests.gui.same_numbers import assert_same_numbers

SEED = 20240608
N_OPS = 10_000
WARM_UP = 2_500
FLUSH_EVERY = 10
PAINT_EVERY = 200
MAX_TOKENS, MAX_WIDTH = 8, 6
RSS_GROWTH = 0.05          # of the RSS after the warm-up (the bound) …
RSS_GROWTH_KIB = 10 * 1024  # … and never more than 10 MiB, so a big process (the full suite) is no excuse


def _malloc_trim():
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc: RSS is read as it is
        return None


MALLOC_TRIM = _malloc_trim()


def rss_kib():
    """Resident memory after a full collection, with freed heap handed back (glibc) so it is not counted."""
    gc.collect()
    if MALLOC_TRIM is not None:
        MALLOC_TRIM(0)
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


def state(model):
    mats = model._state.matrices
    return model.tokens, model.settings, {n: mats[n].copy() for n in sorted(mats)}


def assert_same_state(a, b, what, selection=True):
    assert a[0] == b[0], f"{what}: tokens"
    if selection:
        assert a[1] == b[1], f"{what}: settings"
    else:  # the selected row and head are not part of the undo history
        unselected = {"selected_row": 0, "selected_head": 0}
        assert replace(a[1], **unselected) == replace(b[1], **unselected), f"{what}: settings"
    assert a[2].keys() == b[2].keys(), f"{what}: matrices"
    for name in a[2]:
        np.testing.assert_array_equal(a[2][name], b[2][name], err_msg=f"{what}: {name}")


class Soak:
    """One seeded run of random operations on ``window``; each operation is a method."""

    def __init__(self, window, qtbot, ui, rng, folder):
        self.w, self.qtbot, self.ui, self.rng, self.folder = window, qtbot, ui, rng, folder
        self.m = window.model
        self.editor, self.controls = window.panels["editor"], window.panels["controls"]
        self.counts, self.saved = {}, []
        self.origin = state(self.m)  # what undoing everything must give back (the last opened session)
        self.ops = [  # (weight, operation)
            (26, self.type_cell), (12, self.cell_slider), (9, self.temperature), (14, self.undo_redo),
            (3, self.heads), (3, self.shown_head), (2, self.source), (1, self.positions),
            (2, self.scale), (3, self.causal), (2, self.query_row), (3, self.tokens), (3, self.dims),
            (2, self.rename), (2, self.paste), (1, self.shuffle), (1, self.randomize_or_reset),
            (0.4, self.files), (1, self.scrub_with_the_mouse), (0.4, self.type_with_the_keyboard),
            (0.4, self.keyboard_undo), (0.4, self.click_a_heatmap_row), (1, self.raise_a_tab),
        ]
        weights = np.array([w for w, _ in self.ops], dtype=float)
        self.p = weights / weights.sum()

    def step(self):
        op = self.ops[self.rng.choice(len(self.ops), p=self.p)][1]
        self.counts[op.__name__] = self.counts.get(op.__name__, 0) + 1
        op()

    # ----- helpers -------------------------------------------------------------------------------
    def settle(self):
        """What a person's next look at the window sees: recomputed, rendered, laid out and painted."""
        self.m.flush()
        QApplication.processEvents()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # the event loop would

    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def cell(self):
        name = self.pick(self.m.editable())
        if name not in self.editor.tables:  # the projected page is built by the next render
            self.m.flush()
        rows, cols = self.m.matrix(name).shape
        return name, int(self.rng.integers(rows)), int(self.rng.integers(cols))

    def number_text(self):
        r = self.rng.random()
        if r < 0.04:
            return self.pick(["1e6", "-1e6", "999999.5", "-0.000001", "0", "-0"])
        if r < 0.07:  # refused: must change nothing
            return self.pick(["abc", "nan", "inf", "1e400", "", "1,2,3", "1e7"])
        if r < 0.09:  # other ways of writing a number: full-width digits, the Unicode minus, a decimal comma
            return self.pick(["２．５", "−1.5", "1,5", " 3 ", "+4", ".5"])
        return f"{self.rng.normal(0, 2):.{int(self.rng.integers(0, 5))}f}"

    def key_on(self, combo):
        QTest.keyClick(combo, self.pick([Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_End, Qt.Key.Key_Home]))

    # ----- operations ----------------------------------------------------------------------------
    def type_cell(self):
        name, r, c = self.cell()
        table = self.editor.tables[name]
        table.setData(table.index(r, c), self.number_text())  # refused text is fine: it changes nothing

    def cell_slider(self):
        name, r, c = self.cell()
        view = self.editor.views[name]
        view.setCurrentIndex(view.model().index(r, c))
        slider = self.editor.cell_slider.slider
        if not slider.isEnabled():
            return
        slider.setSliderDown(True)  # sliderPressed: one drag, one undo step
        for _ in range(int(self.rng.integers(1, 6))):
            slider.setValue(int(self.rng.integers(slider.minimum(), slider.maximum() + 1)))
        slider.setSliderDown(False)

    def temperature(self):
        t = self.controls.temperature
        if self.rng.random() < 0.3:
            t.read_out.setValue(float(self.pick([0.05, 20.0, 1.0, 0.5, 3.0])))  # typed into the read-out
            return
        t.slider.setSliderDown(True)
        for _ in range(int(self.rng.integers(1, 5))):
            t.slider.setValue(int(self.rng.integers(0, t.slider.maximum() + 1)))
        t.slider.setSliderDown(False)

    def undo_redo(self):
        for _ in range(int(self.rng.integers(1, 4))):
            self.w.actions["undo" if self.rng.random() < 0.6 else "redo"].trigger()

    def heads(self):
        self.m.flush()  # the choices offered follow the widths
        self.key_on(self.controls.heads)

    def shown_head(self):
        self.m.flush()
        self.key_on(self.controls.head)

    def source(self):
        self.key_on(self.controls.source)
        self.m.flush()

    def positions(self):
        self.key_on(self.controls.positions)

    def scale(self):
        if self.rng.random() < 0.5:
            self.key_on(self.controls.scale_mode)
        else:
            self.controls.scale_value.setValue(float(self.pick([0.0001, 0.01, 0.5, 2.0, 1000.0])))

    def causal(self):
        self.controls.causal.click()

    def query_row(self):
        self.m.flush()
        self.key_on(self.controls.row)

    def tokens(self):
        n = len(self.m.tokens)
        add = n < 2 or (n < MAX_TOKENS and self.rng.random() < 0.5)
        self.editor.actions["add_token" if add else "remove_token"].trigger()

    def dims(self):
        group = self.pick(["qk", "v"] + (["x"] if self.m.projected else []))
        width = {"qk": self.m.widths()[0], "v": self.m.widths()[1]}.get(group) or self.m.matrix("X").shape[1]
        add = width < 2 or (width < MAX_WIDTH and self.rng.random() < 0.5)
        self.editor.actions[f"{'add' if add else 'remove'}_dim_{group}"].trigger()

    def rename(self):
        i = int(self.rng.integers(len(self.m.tokens)))
        self.editor.rename_token(i, self.pick(["猫", "追", "红色", "激光点", "dog", f"t{i}x", " x ", "",
                                               "a" * 101]))

    def paste(self):
        name, r, c = self.cell()
        view = self.editor.views[name]
        view.setCurrentIndex(view.model().index(r, c))  # what clicking the cell before Ctrl+V does
        rows, cols = int(self.rng.integers(1, 3)), int(self.rng.integers(1, 3))
        QGuiApplication.clipboard().setText(
            "\n".join("\t".join(self.number_text() for _ in range(cols)) for _ in range(rows)))
        self.w.actions["paste"].trigger()

    def shuffle(self):
        self.w.actions["shuffle"].trigger()

    def randomize_or_reset(self):
        if self.rng.random() < 0.7:
            self.editor.seed.setValue(int(self.rng.integers(0, 1000)))
            self.editor.actions["randomize"].trigger()
        else:
            self.editor.actions["reset"].trigger()

    def files(self):
        """File ▸ Save As, Open (a file saved earlier) or New; an unsaved session is discarded."""
        r = self.rng.random()
        if r < 0.4 or not self.saved:
            path = self.folder / f"soak-{len(self.saved)}.json"
            FILES.append(path)
            self.w.actions["save_as"].trigger()
            assert path.exists() and self.m.undo_stack.isClean()
            self.saved.append(path)
        else:
            if r < 0.75:
                FILES.append(self.pick(self.saved))
                self.w.actions["open"].trigger()
            else:
                self.w.actions["new"].trigger()
            self.m.flush()
            assert self.m.undo_stack.count() == 0
            self.origin = state(self.m)

    def scrub_with_the_mouse(self):
        self.settle()
        name, r, c = self.cell()
        view = self.editor.views[name]
        if not view.isVisible():
            return
        view.scrollTo(view.model().index(r, c))
        start = self.ui.cell_pos(view, r, c)
        if not view.viewport().rect().contains(start):
            return
        self.qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
        for dx in np.cumsum(self.rng.integers(-15, 16, size=int(self.rng.integers(2, 6)))):
            self.qtbot.mouseMove(view.viewport(), start + QPoint(int(dx), 0))
        self.qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=start)

    def type_with_the_keyboard(self):
        self.settle()
        name, r, c = self.cell()
        view = self.editor.views[name]
        if not view.isVisible():
            return
        view.scrollTo(view.model().index(r, c))
        self.ui.type_into(self.qtbot, view, r, c, f"{self.rng.normal():.3f}")

    def keyboard_undo(self):
        self.settle()
        view = self.editor.views[self.pick(self.m.editable())]
        if view.isVisible():
            mods = Qt.KeyboardModifier.ControlModifier
            if self.rng.random() < 0.4:
                mods |= Qt.KeyboardModifier.ShiftModifier  # redo
            self.qtbot.keyClick(view, Qt.Key.Key_Z, mods)

    def click_a_heatmap_row(self):
        self.settle()
        heatmap = self.w.panels[self.pick(["scores", "weights", "output"])].heatmap
        rows, cols = heatmap.image_array().shape
        pos = heatmap.cell_center(int(self.rng.integers(rows)), int(self.rng.integers(cols))).toPoint()
        if heatmap.viewport().rect().contains(pos):
            self.qtbot.mouseClick(heatmap.viewport(), Qt.MouseButton.LeftButton, pos=pos)

    def raise_a_tab(self):
        self.w.docks[self.pick(["controls", "lesson", "sqrt_d", "readout", "lines", "heads", "split_merge",
                                "positions"])].raise_()


FILES = []  # the paths the patched file dialogs answer with, in order


@pytest.fixture
def scripted_dialogs(monkeypatch):
    """Unsaved changes: discard. File dialogs: the next path in FILES."""
    FILES.clear()
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(FILES.pop(0)), ""))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(FILES.pop(0)), ""))


def assert_screen_is_the_core(window):
    """Every heatmap, table and control shows exactly what the core computes for the model's state."""
    m = window.model
    m.flush()
    for panel in window.panels.values():
        panel.refresh()
    want = run_pipeline(m._state.matrices, m.settings)
    got, h = m.results, m.settings.selected_head
    for stage in ("scores", "weights", "head_outputs", "output"):
        assert_same_numbers(getattr(got.heads, stage), getattr(want.heads, stage), err_msg=stage)
    assert_same_numbers(window.panels["scores"].heatmap.image_array(), want.heads.scores[h])
    assert_same_numbers(window.panels["weights"].heatmap.image_array(), want.heads.weights[h])
    assert_same_numbers(window.panels["output"].heatmap.image_array(), want.heads.output)
    for name in ("scores", "weights", "output"):
        ticks = window.panels[name].heatmap.ticks("left")
        assert ticks and all(text == m.tokens[i] for i, text in ticks), (name, ticks)
    for name in m.editable():
        table = window.panels["editor"].tables[name]
        shown = np.array([[table.value(r, c) for c in range(table.columnCount())] for r in range(table.rowCount())])
        np.testing.assert_array_equal(shown, m.matrix(name), err_msg=f"table {name}")
    controls, s = window.panels["controls"], m.settings
    assert controls.temperature.value() == s.temperature
    assert controls.causal.isChecked() == s.causal
    assert controls.heads.currentData() == s.heads and controls.head.currentIndex() == s.selected_head
    assert controls.source.currentData() == s.source and controls.positions.currentData() == s.positions
    assert controls.scale_mode.currentData() == s.scale_mode
    assert controls.row.currentIndex() == s.selected_row


def test_ten_thousand_random_operations_through_the_widgets(qtbot, window, ui, home, qtlog, scripted_dialogs,
                                                            request):
    rng = np.random.default_rng(SEED)
    soak = Soak(window, qtbot, ui, rng, home)
    m = window.model
    rss, started = {}, time.perf_counter()
    gc.freeze()  # what earlier tests left is not the soak's business (and makes every collection slow)
    request.addfinalizer(gc.unfreeze)
    with qtbot.capture_exceptions() as raised:  # exceptions in Qt slots, checked below
        for i in range(N_OPS):
            try:
                soak.step()
                if i % FLUSH_EVERY == 0:
                    m.flush()
                if i % PAINT_EVERY == 0:
                    soak.settle()
            except Exception as exc:
                raise AssertionError(f"operation {i} (seed {SEED}) raised {type(exc).__name__}: {exc}; "
                                     f"operations so far {soak.counts}") from exc
            if i == WARM_UP:
                soak.settle()
                rss["warm"] = rss_kib()
        soak.settle()
        rss["end"] = rss_kib()
        elapsed = time.perf_counter() - started
        print(f"\nsoak: {N_OPS} operations in {elapsed:.1f} s; RSS {rss['warm']} → {rss['end']} KiB; "
              f"undo steps {m.undo_stack.count()}; Qt-slot exceptions {len(raised)}; operations {soak.counts}")

        # nothing went wrong on the way
        assert all(soak.counts.get(op.__name__, 0) > 0 for _, op in soak.ops), soak.counts
        assert [f"{e[0].__name__}: {e[1]}" for e in raised] == []
        warnings = [r.message for r in qtlog.records
                    if r.type_name in ("QtWarningMsg", "QtCriticalMsg", "QtFatalMsg")
                    and not r.ignored]  # qt_log_ignore in pyproject.toml: the offscreen plugin's two notes
        assert warnings == [], warnings
        growth = rss["end"] - rss["warm"]
        assert growth <= min(RSS_GROWTH * rss["warm"], RSS_GROWTH_KIB), \
            f"RSS grew {growth} KiB ({growth / rss['warm']:.1%}) after the warm-up ({rss})"

        # the end state, on screen, is the core's computation of it
        assert_screen_is_the_core(window)
        final = state(m)

        # the history undoes to the session last opened and redoes to the end state
        stack = m.undo_stack
        steps = stack.index()
        window.recovery.autosave()
        recovered = None if stack.isClean() else load_session(window.recovery.path)
        stack.setIndex(0)
        m.flush()
        assert_same_state(state(m), soak.origin, "after undoing everything", selection=False)
        stack.setIndex(steps)
        m.flush()
        assert_same_state(state(m), final, "after redoing everything", selection=False)
        assert_screen_is_the_core(window)
        final = state(m)

        # saving writes that state, and the autosaved recovery copy held it too
        path = home / "soak-final.json"
        save_session(m.to_session(), path)
        again = load_session(path)
        assert_same_state((again.tokens, again.settings, dict(again.matrices)), final, "saved and loaded")
        if recovered is not None:
            assert_same_state((recovered.tokens, recovered.settings, dict(recovered.matrices)), final,
                              "the recovery copy", selection=False)
