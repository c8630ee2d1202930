"""Where the time of one edit goes: the app's edit → pixels path taken apart (for docs/performance.md).

    .venv/bin/python -m benchmarks.profile_edit --L 512
    .venv/bin/python -m benchmarks.profile_edit --L 4096 --edits 1 --memory

Prints, for the default window with d = 64 and 8 heads:

1. a breakdown per edit (median of ``--edits``): the pipeline (``run_pipeline``), each panel's
   ``render`` (whether or not its dock is behind another's tab), the Qt event processing and the
   paint (``window.grab()``), measured by wrapping those functions in this process only;
2. cProfile's top functions by own time and by cumulative time, as a share of the profiled edits
   (a second round of edits: cProfile slows pure-Python code down more than NumPy or Qt calls);
3. with ``--memory``: tracemalloc's peak during one edit and the biggest allocation sites left
   alive after it (NumPy reports its buffers to tracemalloc).

With ``--screen`` the edit runs on a private Xvfb and ends with the pixels over the weights heatmap
read back from the X server (what a person sees) instead of ``window.grab()`` (which repaints the
whole window), and a census lists which widgets received paint events per edit.

The app is not changed: the wrappers are set on the live objects of this process.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import time

from benchmarks._util import (build_window, on_screen, place_on_screen, qapp, run_standalone_on_screen,
                              screen_pixels, settle, vm_status)
from benchmarks.edit_pixels import heatmap_rects


def instrument(window):
    """Wrap the pipeline and every panel's render; returns the dict their times go to."""
    import explorer.model.coordinator as am

    times: dict[str, list[float]] = {}

    def timed(name, fn):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                times.setdefault(name, []).append(time.perf_counter() - t0)
        return wrapper

    am.recompute = timed("pipeline (whole recompute)", am.recompute)
    am.apply_edit = timed("pipeline (edit in place)", am.apply_edit)
    for name, panel in window.panels.items():
        shown = not panel.visibleRegion().isEmpty()
        panel.render = timed(f"render {name}{'' if shown else ' (tab behind)'}", panel.render)
    return times


def one_edit(app, window, table, row, col):
    model = window.model
    value = float(model.matrix("Q")[row, col]) + 0.5
    marks = [time.perf_counter()]
    table.setData(table.index(row, col), repr(value))
    marks.append(time.perf_counter())
    model.flush()
    marks.append(time.perf_counter())
    app.processEvents()
    marks.append(time.perf_counter())
    if on_screen():
        screen_pixels(app, window, heatmap_rects(window)["weights"])
    else:
        window.grab()
    marks.append(time.perf_counter())
    return {"setData (undo push, table refresh)": marks[1] - marks[0],
            "flush (recompute + changed → renders)": marks[2] - marks[1],
            "processEvents (paints on screen)" if on_screen() else "processEvents": marks[3] - marks[2],
            "read back from the screen" if on_screen() else "grab (paint)": marks[4] - marks[3],
            "total": marks[4] - marks[0]}


def paint_census(app, window, table, edits, rows=None):
    """Which widgets receive a paint event during ``edits`` edits: {description: paints per edit}."""
    from PySide6.QtCore import QEvent, QObject

    counts: dict[str, int] = {}
    panels = {id(panel): name for name, panel in window.panels.items()}

    def describe(widget):
        w = widget
        while w is not None and id(w) not in panels:
            w = w.parentWidget()
        where = panels.get(id(w), "window") if w is not None else "window"
        return f"{where}: {type(widget).__name__} {widget.objectName() or ''}".rstrip()

    class Census(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint:
                key = describe(obj)
                counts[key] = counts.get(key, 0) + 1
            return False

    census = Census()
    app.installEventFilter(census)
    for r in range(edits):
        row = (r + 3) % window.model.matrix("Q").shape[0] if rows is None else rows(r + 3)
        one_edit(app, window, table, row, r % 8)
    app.removeEventFilter(census)
    return {k: v / edits for k, v in sorted(counts.items(), key=lambda kv: -kv[1])}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--L", type=int, default=512)
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--edits", type=int, default=5)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--memory", action="store_true", help="tracemalloc peak and allocation sites of one edit")
    p.add_argument("--screen", action="store_true", help="on a private Xvfb, pixels read back from the screen")
    p.add_argument("--row", type=int, default=None,
                   help="edit this query row every time (0: the row the Readout shows) instead of rotating rows")
    a = p.parse_args(argv)
    rows = (lambda r: r % a.L) if a.row is None else (lambda r: a.row)

    app = qapp()
    window = build_window(a.L, a.d, a.heads)
    place_on_screen(window, 0)
    window.show()
    settle(app)
    window.grab()
    table = window.panels["editor"].tables["Q"]
    one_edit(app, window, table, 0, 0)  # warm-up
    times = instrument(window)
    phases: dict[str, list[float]] = {}
    for r in range(a.edits):  # the breakdown, without the profiler's overhead
        for key, t in one_edit(app, window, table, rows(r + 1), (r + 1) % (a.d // a.heads)).items():
            phases.setdefault(key, []).append(t)
    profiler = cProfile.Profile()
    for r in range(a.edits):  # then the same edits again under cProfile
        profiler.enable()
        one_edit(app, window, table, rows(r + 2), (r + 1) % (a.d // a.heads))
        profiler.disable()
    total = statistics.median(phases["total"])
    print(f"# edit → pixels at L = {a.L}, d = {a.d}, {a.heads} heads: median {1000 * total:.1f} ms over {a.edits} edits")
    print("\n## phases (median ms, share of the total)")
    for key, ts in phases.items():
        if key != "total":
            m = statistics.median(ts)
            print(f"  {key:45s} {1000 * m:9.1f}  {100 * m / total:5.1f} %")
    print("\n## inside the recompute (median ms per edit, share of the total)")
    for key, ts in sorted(times.items(), key=lambda kv: -statistics.median(kv[1])):
        m = statistics.median(ts)
        print(f"  {key:45s} {1000 * m:9.1f}  {100 * m / total:5.1f} %")

    print("\n## paint events per edit (widget: count)")
    for key, n in paint_census(app, window, table, a.edits, rows).items():
        print(f"  {n:5.1f}  {key}")

    stream = io.StringIO()
    stats = pstats.Stats(profiler, stream=stream)
    profiled = sum(v[2] for v in stats.stats.values())  # own times add up to the profiled wall time
    for order in ("tottime", "cumulative"):
        print(f"\n## cProfile, top {a.top} by {order} ({a.edits} edits; share of the profiled time)")
        rows = sorted(stats.stats.items(), key=lambda kv: -(kv[1][2] if order == "tottime" else kv[1][3]))
        for (file, line, fn), (cc, nc, tt, ct, _) in rows[:a.top]:
            where = file.split("site-packages/")[-1].split("/work/main/")[-1]
            t = tt if order == "tottime" else ct
            print(f"  {100 * t / profiled:5.1f} %  {1000 * t / a.edits:8.1f} ms/edit  {nc:>7} calls  {where}:{line} {fn}")

    if a.memory:
        import tracemalloc

        tracemalloc.start(5)
        before = tracemalloc.take_snapshot()
        rss0, hwm0 = vm_status("VmRSS"), vm_status("VmHWM")
        one_edit(app, window, table, 2, 0)
        current, peak = tracemalloc.get_traced_memory()
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        print(f"\n## memory of one edit: tracemalloc peak {peak / 2 ** 20:.0f} MiB above the start "
              f"(still held after: {current / 2 ** 20:.0f} MiB); RSS {rss0 / 2 ** 30:.2f} → "
              f"{vm_status('VmRSS') / 2 ** 30:.2f} GiB, VmHWM {hwm0 / 2 ** 30:.2f} → {vm_status('VmHWM') / 2 ** 30:.2f} GiB")
        print("   biggest blocks allocated during the edit and still alive (new results, copies):")
        for stat in after.compare_to(before, "traceback")[:8]:
            if stat.size_diff < 2 ** 20:
                break
            frames = [f for f in stat.traceback if "/explorer/" in f.filename or "pyqtgraph" in f.filename]
            f = (frames or list(stat.traceback))[-1]
            where = f.filename.split("site-packages/")[-1].split("/work/main/")[-1]
            print(f"   {stat.size_diff / 2 ** 20:8.0f} MiB  {where}:{f.lineno}")
        model = window.model
        r = model.results.heads
        held = {"results.scores": r.scores.nbytes, "results.weights": r.weights.nbytes}
        from explorer.widgets.heatmap import Heatmap

        for name, panel in window.panels.items():  # every heatmap, shown or behind a tab
            hms = panel.findChildren(Heatmap)
            behind = "" if not panel.visibleRegion().isEmpty() else " (tab behind)"
            values = sum(hm._values.nbytes for hm in hms)
            display = sum(hm._display.nbytes for hm in hms if hm._display is not hm._values)
            qimages = sum(hm.image_item.qimage.sizeInBytes() for hm in hms
                          if getattr(hm.image_item, "qimage", None) is not None)
            if values:
                held[f"{name}{behind}: {len(hms)} heatmap(s), float64 value copies"] = values
            if display:
                held[f"{name}{behind}: display copies (non-finite clipped)"] = display
            if qimages:
                held[f"{name}{behind}: ImageItem QImages (ARGB)"] = qimages
        print("   large arrays the window holds after the edit:")
        for key, n in held.items():
            print(f"   {n / 2 ** 20:8.0f} MiB  {key}")


if __name__ == "__main__":
    run_standalone_on_screen(main)
