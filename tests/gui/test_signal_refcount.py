"""Guards the PySide6 pin: 6.12.0 on Python < 3.12 leaks a reference to None per signal delivered to
a Python slot, and the interpreter aborts ("none_dealloc") after enough slider drags."""
import gc
import sys

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QSlider

N = 50_000


class Emitter(QObject):
    fired = Signal(int)


def _refcounts():
    gc.collect()
    return sys.getrefcount(None), sys.getrefcount(True)


def test_50000_signals_to_a_python_slot_keep_none_alive(qapp):
    emitter = Emitter()
    seen = []
    emitter.fired.connect(lambda v: seen.append(v) and None)
    none_before, true_before = _refcounts()
    for i in range(N):
        emitter.fired.emit(i)
    none_after, true_after = _refcounts()
    assert len(seen) == N
    assert none_after >= none_before - 100, f"None lost {none_before - none_after} references"
    assert true_after >= true_before - 100, f"True lost {true_before - true_after} references"


def test_50000_slider_moves_keep_none_alive(qtbot):
    slider = QSlider()
    qtbot.addWidget(slider)
    slider.setRange(0, 1000)
    count = [0]

    def slot(value):
        count[0] += 1

    slider.valueChanged.connect(slot)
    none_before, _ = _refcounts()
    for i in range(N):
        slider.setValue(i % 1000 + (1 if i % 1000 == slider.value() else 0))
    none_after, _ = _refcounts()
    assert count[0] > N // 2
    assert none_after >= none_before - 100, f"None lost {none_before - none_after} references"
