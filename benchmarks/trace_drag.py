"""Where the last event of a drag goes: ``benchmarks.drag`` with a timestamp at every step of the chain.

Not part of the run. ``python -m benchmarks.trace_drag --screen [--slider temperature] [--L 1024]`` drags
once (as ``benchmarks.drag``) and prints, in ms from the last event, on which thread each step came:
the events, the per-turn recompute and the request handed to the worker, each job's start, its shown
head ready, the checks that stopped it and its end, the GUI thread receiving the shown head, the
Scores and Weights renders and paints, the worker told the head was drawn (``seen``), and the
benchmark reading the pixels back. The steps are recorded by wrapping those functions, nothing else.
"""
from __future__ import annotations

import argparse
import sys
import threading
import time

from benchmarks import drag
from benchmarks._util import run_standalone_on_screen

EVENTS = []  # (time, thread, step, generation)


def record(step, generation=None):
    EVENTS.append((time.perf_counter(), threading.current_thread().name[:10], step, generation))


def _wrap(owner, name, before, after=None, result=False):
    real = getattr(owner, name)

    def wrapped(*args, **kwargs):
        before(*args)
        out = real(*args, **kwargs)
        if after is not None:
            after(*args)
        if result and out:
            record("stop seen", args[0].generation)
        return out

    setattr(owner, name, wrapped)


def instrument():
    import pyqtgraph as pg

    from explorer.model import coordinator as c, worker as w
    from explorer.panels import heatmap_panel

    _wrap(c.Coordinator, "schedule", lambda *a: record("event"))
    _wrap(c.Coordinator, "recompute", lambda *a: record("per-turn recompute"))
    _wrap(c.Coordinator, "_on_shown", lambda self, g, p: record("GUI: shown head in", g),
          lambda self, g, p: record("GUI: shown head drawn", g))
    _wrap(w.RecomputeWorker, "seen", lambda self, g: record("GUI: seen", g))
    _wrap(w.Run, "show", lambda self, p: record("shown head ready", self.generation),
          lambda self, p: record("show: wait over", self.generation))
    _wrap(w.Run, "__call__", lambda self: None, result=True)
    real_submit = w.RecomputeWorker.submit

    def submit(self, generation, job):
        record("submit", generation)

        def timed(run):
            record("job start", generation)
            try:
                return job(run)
            finally:
                record("job end", generation)

        return real_submit(self, generation, timed)

    w.RecomputeWorker.submit = submit

    def panel(view):
        parent = view.parent()
        return type(parent).__name__ if parent is not None else "?"

    _wrap(heatmap_panel.HeatmapPanel, "render", lambda self, f: record(f"render {type(self).__name__}"),
          lambda self, f: record(f"render end {type(self).__name__}"))
    _wrap(pg.GraphicsView, "paintEvent", lambda self, e: record(f"paint {panel(self)}"),
          lambda self, e: record(f"paint end {panel(self)}"))
    _wrap(drag, "screen_pixels", lambda *a: record("pixels read: start"), lambda *a: record("pixels read: end"))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--L", type=int, default=1024)
    p.add_argument("--slider", choices=("cell", "temperature"), default="temperature")
    p.add_argument("--before-ms", type=float, default=30.0, help="print from this long before the last event")
    p.add_argument("--all-panels", action="store_true", help="every panel's renders and paints, not only ① and ②'s")
    a = p.parse_args(argv)
    instrument()
    res = drag.measure(a.L, 64, 8, 240, 120.0, a.slider, 0)
    last = [t for t, _, step, _ in EVENTS if step == "event"][-1]
    print(f"last event → on screen: {res['latency_from_due_ms']:.1f} ms from when it was due, "
          f"{res['latency_from_delivery_ms']:.1f} ms from its delivery")
    for t, thread, step, generation in EVENTS:
        ms = 1000 * (t - last)
        shown_panel = (a.all_panels or not step.startswith(("render", "paint"))
                       or "Scores" in step or "Weights" in step)
        if -a.before_ms <= ms <= 400 and shown_panel:
            print(f"{ms:8.2f} ms  {thread:10s} {step} {'' if generation is None else generation}")
    sys.stdout.flush()


if __name__ == "__main__":
    run_standalone_on_screen(main)
