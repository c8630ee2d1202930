"""② Drag without backlog: slider events at a steady rate into the live window; does the screen keep up?

The window (L = 1024, 8 heads by default) is shown offscreen. A precise QTimer stands in for the
mouse: event k (k = 0 … N−1) is due at t0 + k / rate. Each tick delivers every event that is due
and not yet delivered (as a queue of mouse moves would, none skipped) by moving the QSlider inside
the cell slider (or the temperature slider) with the slider held down, exactly as a drag does:
``QSlider.setValue`` → ``LabelledSlider.valueChanged`` → ``model.set_cell`` / ``set_param``.

Measured: the plain NumPy stages of ``edit_pixels.reference_stages`` for this window's Q, K, V (every
head's scores, softmax and output: what a whole recompute must do at the least, the floor of the
temperature slider); the results announced while dragging (``model.changed``: every panel;
``model.shown_ready``: the shown head's ① and ② first, issue 18) against the events and the frames
(16.7 ms) the drag lasted; how often the weights heatmap drew a new value during the drag, and its
longest wait between two; and when the last event's value is on screen: once the weights panel has
drawn results of the last value, the pixels over the weights heatmap (read back from the X server
with ``--screen``; offscreen, ``window.grab()``, which repaints the whole window), checked against
those results, counted from the moment the last event was due and from when it was delivered (the first
event that carried the last value: the temperature slider snaps to two significant digits, so the last
few positions of a drag may repeat it); then
the same for every panel (the output heatmap's pixels, once ``changed`` brings the whole results).
"Drag duration" is the first time in 16.7-ms frames; the frames actually painted are counted as the
paint events of the weights heatmap's viewport during the drag.

``python -m benchmarks.drag --L 1024 --slider cell`` prints one BENCH_JSON line.
"""
from __future__ import annotations

import argparse

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks._util import (FRAME_MS, build_window, emit, median, now, place_on_screen, qapp,
                              run_standalone_on_screen, screen_pixels, settle)
from benchmarks.edit_pixels import heatmap_rects
from benchmarks.edit_pixels import reference_stages


class PaintCounter:
    """Counts the paint events a widget receives (an event filter)."""

    def __init__(self, widget):
        from PySide6.QtCore import QEvent, QObject

        paint = QEvent.Type.Paint

        class Filter(QObject):
            count = 0

            def eventFilter(self, obj, event):
                if event.type() == paint:
                    Filter.count += 1
                return False

        self.filter = Filter()
        self.widget = widget
        widget.installEventFilter(self.filter)

    @property
    def count(self):
        return self.filter.count


def measure(length, dim, heads, events, rate, slider_name, seed, timeout_s=180.0, repeats=1):
    """The drag's figures (see the module's docstring); with ``repeats`` > 1 the same window is dragged
    that many times, back and forth, and each figure is the median (``*_each`` lists every drag's
    latencies: where the last event lands in the worker's cycle moves them from drag to drag)."""
    app = qapp()
    window = build_window(length, dim, heads, seed)
    place_on_screen(window, 0)
    window.show()
    settle(app)
    window.grab()
    model = window.model
    q, k, v = (np.array(model.matrix(n)) for n in "QKV")
    floor = []
    with threadpool_limits(limits=1, user_api="blas"):  # one core, as the app's own BLAS calls
        for _ in range(5):
            t = now()
            reference_stages(q, k, v, heads)
            floor.append(now() - t)
    drags = []
    for r in range(repeats):
        drags.append(drag_once(app, window, events, rate, slider_name, -1 if r % 2 else 1, timeout_s))
        settle(app)
    out = {key: (drags[-1][key] if isinstance(drags[0][key], bool) or not isinstance(drags[0][key], (int, float))
                 else median([d[key] for d in drags])) for key in drags[0]}
    if repeats > 1:
        for key in ("latency_from_due_ms", "latency_from_delivery_ms", "all_latency_from_due_ms"):
            out[key.replace("_ms", "_each_ms")] = [round(d[key], 1) for d in drags]
        out["consistent"] = all(d["consistent"] for d in drags)
    return {"L": length, "d": dim, "heads": heads, "slider": slider_name, "events": events, "rate": rate,
            "repeats": repeats, "reference_stages_ms": 1000 * median(floor), **out}


def drag_once(app, window, events, rate, slider_name, direction, timeout_s):
    """One drag of ``events`` slider steps in ``direction`` (+1 or −1 where the slider has room)."""
    from PySide6.QtCore import QEventLoop, Qt, QTimer

    read = heatmap_rects(window)["weights"]
    paints = PaintCounter(window.panels["weights"].heatmap.viewport())
    model = window.model
    editor, controls = window.panels["editor"], window.panels["controls"]
    if slider_name == "cell":
        editor.views["Q"].setCurrentIndex(editor.tables["Q"].index(0, 0))  # Q[t0, d0]: head 1, the shown head
        settle(app)
        slider = editor.cell_slider
        if not slider.isEnabled():
            raise RuntimeError("selecting Q[t0, d0] did not enable the cell slider")
    else:
        slider = controls.temperature
    qs = slider.slider
    start = qs.value()
    if not 0 <= start + direction * events <= qs.maximum():
        direction = -direction
    positions = [start + direction * (k + 1) for k in range(events)]
    final_value = slider.value_at(positions[-1])
    # A snapping slider (the temperature: two significant digits) gives neighbouring positions one value, so
    # the last events of a drag may repeat it: the last value is counted from the event that first carried it.
    last = events - 1
    while last > 0 and slider.value_at(positions[last - 1]) == final_value:
        last -= 1

    st = {"delivered": 0, "t0": None, "t_delivered": [None] * events, "recomputes": 0, "firsts": 0,
          "t_screen": None, "t_all": None, "consistent": None, "ticks": [], "draws": []}
    loop = QEventLoop()
    weights = window.panels["weights"]
    read_all = heatmap_rects(window)["output"]

    def describes_last(result):
        """Whether ``result`` holds the last event's value."""
        if result is None:
            return False
        return (float(result.q_in[0, 0]) if slider_name == "cell" else float(result.temperature)) == final_value

    def shown_value():
        return float(model.matrix("Q")[0, 0]) if slider_name == "cell" else float(model.settings.temperature)

    def first_on_screen():
        app.processEvents()  # any paint still pending: "on screen" means painted and read back
        screen_pixels(app, window, read)
        st["t_screen"] = now()
        head = model.settings.selected_head
        drawn = weights.drawn_from
        st["consistent"] = bool(shown_value() == final_value and describes_last(drawn) and np.allclose(
            window.panels["scores"].heatmap.image_array(), drawn.heads.scores[head]))
        if st["t_all"] is not None:
            loop.quit()

    def all_on_screen():
        app.processEvents()
        screen_pixels(app, window, read_all)
        st["t_all"] = now()
        if st["t_screen"] is not None:
            loop.quit()

    def after_last():
        return st["delivered"] > last and now() >= st["t_delivered"][last]

    def on_weights_drawn():
        if st["t0"] is not None and st["t_screen"] is None:
            st["draws"].append(now())
            if after_last() and describes_last(weights.drawn_from):
                st["draws"].pop()
                QTimer.singleShot(0, first_on_screen)

    def on_first(flags):
        if st["t0"] is not None and st["t_screen"] is None:
            st["firsts"] += 1

    def on_changed(flags):
        if st["t0"] is None:
            return
        st["recomputes"] += 1
        if after_last() and st["t_all"] is None and model.up_to_date and describes_last(model.results):
            QTimer.singleShot(0, all_on_screen)

    weights.rendered.connect(on_weights_drawn)
    model.shown_ready.connect(on_first)
    model.changed.connect(on_changed)

    def tick():
        t = now()
        st["ticks"].append(t)
        due = min(events, int((t - st["t0"]) * rate) + 1)
        for k in range(st["delivered"], due):
            qs.setValue(positions[k])
            st["t_delivered"][k] = now()
        st["delivered"] = due
        if due == events:
            timer.stop()
            qs.setSliderDown(False)  # release: sliderReleased ends the gesture

    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(max(1, int(1000 / rate)))
    timer.timeout.connect(tick)
    QTimer.singleShot(int(timeout_s * 1000), loop.quit)

    def begin():
        qs.setSliderDown(True)  # press: sliderPressed starts one undo gesture
        st["paints0"] = paints.count
        st["t0"] = now()
        tick()
        timer.start()

    QTimer.singleShot(50, begin)
    loop.exec()
    model.changed.disconnect(on_changed)
    model.shown_ready.disconnect(on_first)
    weights.rendered.disconnect(on_weights_drawn)
    window.panels["weights"].heatmap.viewport().removeEventFilter(paints.filter)
    if st["t_screen"] is None or st["t_all"] is None:
        raise RuntimeError(f"the last value was not on screen within {timeout_s} s")

    t0 = st["t0"]
    last_due = t0 + last / rate  # the event that first carried the last value
    final_delivered = st["t_delivered"][last]
    last_delivered = st["t_delivered"][-1]
    total = st["t_screen"] - t0
    gaps = np.diff(st["ticks"]) * 1000 if len(st["ticks"]) > 1 else np.zeros(1)
    lag = [1000 * (d - (t0 + k / rate)) for k, d in enumerate(st["t_delivered"])]
    during = [t for t in st["draws"] if t <= last_delivered]  # new values drawn while the pointer moved
    waits = np.diff([t0, *during, last_delivered]) * 1000
    return {
        "recomputes": st["recomputes"],
        "drag_frames": total * 1000 / FRAME_MS,
        "drag_s": total,
        "latency_from_due_ms": 1000 * (st["t_screen"] - last_due),
        "latency_from_delivery_ms": 1000 * (st["t_screen"] - final_delivered),
        "last_value_from_event": last + 1,  # of ``events``: the last value came with this event
        "latency_frames": 1000 * (st["t_screen"] - last_due) / FRAME_MS,
        "max_delivery_lag_ms": max(lag),
        "longest_tick_gap_ms": float(gaps.max()),
        "updates_per_s": st["recomputes"] / total,
        "shown_head_first": st["firsts"],
        "weights_drawn_during_drag": len(during),
        "weights_drawn_per_s": len(during) / (last_delivered - t0),
        "longest_wait_for_a_new_value_ms": float(waits.max()),
        "all_latency_from_due_ms": 1000 * (st["t_all"] - last_due),
        "all_latency_frames": 1000 * (st["t_all"] - last_due) / FRAME_MS,
        "weights_paints": paints.count - st["paints0"],
        "undo_steps": model.undo_stack.count(),
        "consistent": st["consistent"],
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--L", type=int, default=1024)
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--events", type=int, default=240)
    p.add_argument("--rate", type=float, default=120.0, help="events per second")
    p.add_argument("--slider", choices=("cell", "temperature"), default="cell")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeats", type=int, default=1, help="drags of the same window (medians; the latencies of each)")
    p.add_argument("--screen", action="store_true", help="run on a private Xvfb, pixels read back from the screen")
    a = p.parse_args(argv)
    emit(measure(a.L, a.d, a.heads, a.events, a.rate, a.slider, a.seed, repeats=a.repeats))


if __name__ == "__main__":
    run_standalone_on_screen(main)
