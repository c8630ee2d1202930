"""Guards the PySide6 pin: 6.12.0 on Python < 3.12 leaks a reference to None per signal delivered to
a Python slot, and the interpreter aborts ("none_dealloc") after enough slider drags.

Skipped on Python >= 3.12, where None is immortal and these counts cannot move (see tests/gui/refcounts.py).
"""
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QSlider

from tests.gui.refcounts import assert_none_and_true_kept, needs_mortal_none, refcounts

pytestmark = needs_mortal_none

N = 50_000


class Emitter(QObject):
    fired = Signal(int)


def test_50000_signals_to_a_python_slot_keep_none_alive(qapp):
    emitter = Emitter()
    seen = []
    emitter.fired.connect(lambda v: seen.append(v) and None)
    before = refcounts()
    for i in range(N):
        emitter.fired.emit(i)
    after = refcounts()
    assert len(seen) == N
    assert_none_and_true_kept(before, after)


def test_50000_slider_moves_keep_none_alive(qtbot):
    slider = QSlider()
    qtbot.addWidget(slider)
    slider.setRange(0, 1000)
    count = [0]

    def slot(value):
        count[0] += 1

    slider.valueChanged.connect(slot)
    before = refcounts()
    for i in range(N):
        slider.setValue(i % 1000 + (1 if i % 1000 == slider.value() else 0))
    after = refcounts()
    assert count[0] > N // 2
    assert_none_and_true_kept(before, after)
