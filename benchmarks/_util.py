"""Shared by the benchmark scripts: offscreen Qt, the window under test, timing, memory, the child protocol.

Every measurement runs in a child process (``python -m benchmarks.<part> ...``) so one part's memory,
Qt state and caches never leak into another; a child prints one ``BENCH_JSON {...}`` line that
``benchmarks.run`` collects.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARK = "BENCH_JSON "
FRAME_MS = 1000.0 / 60.0  # one frame of a 60 Hz display


def offscreen_env(extra: dict | None = None) -> dict:
    """The environment of a benchmark child: offscreen Qt, a private config/data home (never the user's)."""
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    home = Path(tempfile.gettempdir()) / "attention-explorer-bench"
    for key, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        env[key] = str(home / sub)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.update(extra or {})
    return env


def ensure_offscreen() -> None:
    """Inside a child: make sure Qt has no display (a directly run script too)."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def qapp():
    """The QApplication, styled as ``explorer.app.main`` styles it."""
    ensure_offscreen()
    from PySide6.QtWidgets import QApplication

    from explorer.style import apply_style

    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("Attention Explorer Bench")
    app.setOrganizationName("AttentionExplorerBench")
    apply_style(app)
    return app


def settle(app, rounds: int = 3) -> None:
    for _ in range(rounds):
        app.processEvents()


def build_window(length: int, dim: int = 64, heads: int = 8, seed: int = 0):
    """The explorer as a person opens it: the default layout, ``random_session(L, d)``, ``heads`` heads."""
    from explorer.core.presets import random_session
    from explorer.main_window import MainWindow

    window = MainWindow(random_session(length, dim, seed), persist_layout=False, recovery=False)
    window.resize(1600, 1000)
    if heads != 1:
        if not window.model.set_param("heads", heads):
            raise SystemExit(f"{heads} heads do not divide d = {dim}")
    window.model.flush()
    return window


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def vm_status(key: str) -> int:
    """A /proc/self/status figure (VmRSS, VmHWM) in bytes, 0 where there is no /proc."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    if key == "VmHWM":
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return 0


def reset_peak_rss() -> bool:
    """Start VmHWM again from the current RSS (Linux: write 5 to /proc/self/clear_refs); False if refused."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def emit(result: dict) -> None:
    """A child's answer: one line the parent parses."""
    sys.stdout.write(MARK + json.dumps(result) + "\n")
    sys.stdout.flush()


def run_child(module: str, args: list[str], *, timeout: float = 600, env: dict | None = None) -> dict:
    """Run ``python -m benchmarks.<module> args`` offscreen and return its BENCH_JSON answer."""
    cmd = [sys.executable, "-m", f"benchmarks.{module}", *map(str, args)]
    proc = subprocess.run(cmd, cwd=ROOT, env=offscreen_env(env), capture_output=True, text=True, timeout=timeout)
    for line in proc.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
    raise RuntimeError(f"{' '.join(cmd[2:])} exited with {proc.returncode} and no result:\n{tail}")


def machine() -> dict:
    """What the figures were measured on."""
    info = {"cpus": os.cpu_count(), "python": sys.version.split()[0]}
    try:
        with open("/proc/cpuinfo") as f:
            info["cpu"] = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "?")
        with open("/proc/meminfo") as f:
            info["ram_gib"] = round(int(f.readline().split()[1]) / 2 ** 20, 1)
        info["load"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    try:
        import numpy
        import pyqtgraph
        import PySide6

        info.update(numpy=numpy.__version__, pyside6=PySide6.__version__, pyqtgraph=pyqtgraph.__version__)
    except ImportError:
        pass
    try:
        import matplotlib

        info["matplotlib"] = matplotlib.__version__
    except ImportError:
        info["matplotlib"] = None
    info["blas_threads"] = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    return info


def now() -> float:
    return time.perf_counter()
