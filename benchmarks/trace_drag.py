"""Trace where the last event of a temperature drag goes (run with PYTHONPATH=/tmp/tracemod from a worktree)."""
import sys, threading, time, json
from benchmarks import drag
from benchmarks._util import run_standalone_on_screen, emit

EV = []
def rec(what, gen=None):
    EV.append((time.perf_counter(), threading.current_thread().name[:10], what, gen))

def patch():
    from explorer.model import coordinator as C, worker as W
    from explorer.panels import heatmap_panel as HP
    orig_schedule = C.Coordinator.schedule
    def schedule(self, flags):
        rec("event"); return orig_schedule(self, flags)
    C.Coordinator.schedule = schedule
    orig_rc = C.Coordinator.recompute
    def recompute(self, *a, **k):
        rec("timer.recompute"); return orig_rc(self, *a, **k)
    C.Coordinator.recompute = recompute
    orig_submit = W.RecomputeWorker.submit
    def submit(self, generation, job):
        rec("submit", generation)
        def wrapped(run):
            rec("job start", generation)
            try:
                return job(run)
            finally:
                rec("job end", generation)
        return orig_submit(self, generation, wrapped)
    W.RecomputeWorker.submit = submit
    orig_show = W.Run.show
    def show(self, partial):
        rec("partial ready", self.generation); orig_show(self, partial); rec("show wait over", self.generation)
    W.Run.show = show
    orig_call = W.Run.__call__
    def call(self):
        r = orig_call(self)
        if r: rec("stop seen", self.generation)
        return r
    W.Run.__call__ = call
    orig_on_shown = C.Coordinator._on_shown
    def on_shown(self, generation, partial):
        rec("gui on_shown", generation); orig_on_shown(self, generation, partial); rec("gui on_shown end", generation)
    C.Coordinator._on_shown = on_shown
    orig_render = HP.HeatmapPanel.render
    def render(self, flags):
        rec(f"render {type(self).__name__}"); orig_render(self, flags); rec(f"render end {type(self).__name__}")
    HP.HeatmapPanel.render = render
    orig_pix = drag.screen_pixels
    def screen_pixels(*a, **k):
        rec("grab start"); r = orig_pix(*a, **k); rec("grab end"); return r
    drag.screen_pixels = screen_pixels
    import pyqtgraph as pg
    orig_paint = pg.GraphicsView.paintEvent
    def paintEvent(self, ev):
        name = type(self.parent()).__name__ if self.parent() is not None else "?"
        rec(f"paint {type(self).__name__}<{name}"); r = orig_paint(self, ev); rec(f"paint end {name}"); return r
    pg.GraphicsView.paintEvent = paintEvent
    orig_seen = W.RecomputeWorker.seen
    def seen(self, generation):
        rec("gui seen", generation); return orig_seen(self, generation)
    W.RecomputeWorker.seen = seen

def main(argv):
    import argparse
    p = argparse.ArgumentParser(); p.add_argument("--L", type=int, default=1024); p.add_argument("--slider", default="temperature")
    a = p.parse_args(argv)
    patch()
    res = drag.measure(a.L, 64, 8, 240, 120.0, a.slider, 0)
    events = [e for e in EV if e[2] == "event"]
    t_last = events[-1][0]
    print(f"latency_from_due {res['latency_from_due_ms']:.1f} ms from_delivery {res['latency_from_delivery_ms']:.1f}", file=sys.stderr)
    start = t_last - 0.05
    for t, th, what, gen in EV:
        if t < start or t - t_last > 0.4:
            continue
        if what.startswith("render") and not ("Weights" in what or "Scores" in what):
            continue
        if what.startswith("paint") and t > t_last + 0.1:
            continue
        print(f"{1000*(t-t_last):8.2f} ms  {th:10s} {what} {gen if gen is not None else ''}", file=sys.stderr)

if __name__ == "__main__":
    run_standalone_on_screen(main)
