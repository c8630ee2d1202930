"""④ Start-up to the first painted window, against an empty pyqtgraph window, in fresh processes.

Each run is ``python -c CODE``: the clock starts before the process is spawned and stops when the
child has grabbed (painted) its 1600×1000 window; the child reports its monotonic time stamps
(``time.perf_counter`` is CLOCK_MONOTONIC on Linux: one clock for parent and child), so the
interpreter's teardown is not counted. The app child does what ``explorer.app.main`` does before
the event loop — QApplication, style, ``MainWindow`` with the chapter's demo, show — with
``persist_layout=False, recovery=False`` so no user setting or recovery file is read or written.
Panels behind tabs are not built at start, and the Readout is built just after the first paint:
``complete`` also times the events after the first grab until every panel on screen is drawn, and
a second grab (the window as the user sees it a moment later).
Runs alternate app / empty and the medians are compared. Byte-code is cached (under the temp folder,
``PYTHONPYCACHEPREFIX``) as it is for an installed app; the warm-up run writes the cache.

``python -m benchmarks.startup --runs 5`` prints one BENCH_JSON line.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._util import ROOT, emit, median, offscreen_env

APP = """
import time; t_start = time.perf_counter()
from PySide6.QtWidgets import QApplication
from explorer.main_window import MainWindow
from explorer.style import apply_style
t_import = time.perf_counter()
app = QApplication([])
apply_style(app)
w = MainWindow(None, persist_layout=False, recovery=False)
w.resize(1600, 1000)
t_built = time.perf_counter()
w.show(); app.processEvents(); w.grab()
t_painted = time.perf_counter()
deadline = t_painted + 10
while w.waiting_panels() and time.perf_counter() < deadline:
    app.processEvents()
app.processEvents(); w.grab()
t_complete = time.perf_counter()
import json, os, sys
print(json.dumps(dict(start=t_start, imported=t_import, built=t_built, painted=t_painted, complete=t_complete)))
sys.stdout.flush(); os._exit(0)  # teardown is not start-up (and is not timed)
"""

EMPTY = """
import time; t_start = time.perf_counter()
import pyqtgraph as pg
from PySide6.QtWidgets import QApplication
t_import = time.perf_counter()
app = QApplication([])
w = pg.GraphicsLayoutWidget()
w.resize(1600, 1000)
t_built = time.perf_counter()
w.show(); app.processEvents(); w.grab()
t_painted = time.perf_counter()
import json, os, sys; print(json.dumps(dict(start=t_start, imported=t_import, built=t_built, painted=t_painted)))
sys.stdout.flush(); os._exit(0)  # teardown is not start-up (and is not timed)
"""


def one_run(code):
    env = offscreen_env()
    # Byte-code as an installed app has it: cached (the warm-up run writes it), but under the temp
    # folder rather than next to the sources, and even where PYTHONDONTWRITEBYTECODE is set.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "attention-explorer-bench" / "pycache")
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    stamps = json.loads(out.stdout.strip().splitlines()[-1])
    return {"total": stamps["painted"] - t0, "interpreter": stamps["start"] - t0,
            "imports": stamps["imported"] - stamps["start"], "build": stamps["built"] - stamps["imported"],
            "paint": stamps["painted"] - stamps["built"],
            "complete": stamps.get("complete", stamps["painted"]) - t0}


def measure(runs, warmup=1):
    kinds = {"app": APP, "empty": EMPTY}
    samples = {k: [] for k in kinds}
    for r in range(warmup + runs):
        order = list(kinds) if r % 2 == 0 else list(kinds)[::-1]
        for kind in order:
            result = one_run(kinds[kind])
            if r >= warmup:
                samples[kind].append(result)
    summary = {"runs": runs}
    for kind, rs in samples.items():
        summary[kind] = {key: median([r[key] for r in rs]) for key in rs[0]}
        summary[kind]["all_total"] = [round(r["total"], 3) for r in rs]
    return summary


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args(argv)
    emit(measure(a.runs))


if __name__ == "__main__":
    main()
