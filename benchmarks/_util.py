"""Shared by the benchmark scripts: offscreen Qt, the window under test, timing, memory, the child protocol.

Every measurement runs in a child process (``python -m benchmarks.<part> ...``) so one part's memory,
Qt state and caches never leak into another; a child prints one ``BENCH_JSON {...}`` line that
``benchmarks.run`` collects.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARK = "BENCH_JSON "
FRAME_MS = 1000.0 / 60.0  # one frame of a 60 Hz display
SCREEN_ENV = "BENCH_SCREEN"  # set in a child: it runs on this X display (real screen mode), not offscreen
# The real screen is wide enough for three 1600×1000 windows side by side (app, pyqtgraph, matplotlib):
# with no window manager, overlapping windows would hide each other's pixels.
SCREEN_SIZE = (3 * 1620 + 40, 1080)


def xvfb_available() -> bool:
    return shutil.which("Xvfb") is not None


def _stop(proc) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def session_bus():
    """A desktop's D-Bus session bus for the children, as a person's desktop has one: without it, Qt on X11
    asks libdbus for one and libdbus forks the whole process to try ``dbus-launch --autolaunch`` (~60 ms of
    every start-up here, for any Qt window, and every page the app writes afterwards copied once). A bus
    already set (the benchmark run from a desktop) is kept; without ``dbus-daemon`` nothing changes."""
    if os.environ.get("DBUS_SESSION_BUS_ADDRESS") or shutil.which("dbus-daemon") is None:
        yield
        return
    proc = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    address = proc.stdout.readline().strip()
    if not address:
        _stop(proc)
        yield
        return
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = address  # (the children's environments are copies of this one)
    try:
        yield
    finally:
        os.environ.pop("DBUS_SESSION_BUS_ADDRESS", None)
        _stop(proc)


@contextlib.contextmanager
def xvfb(size=SCREEN_SIZE):
    """A private Xvfb server for the real-screen mode, with a session bus (``session_bus``); yields its
    display name (":N")."""
    if not xvfb_available():
        raise RuntimeError("the real-screen mode needs Xvfb (apt-get install xvfb), or use --offscreen")
    read_end, write_end = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-screen", "0", f"{size[0]}x{size[1]}x24", "-nolisten", "tcp",
         "-noreset"], pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_end)
    try:
        with os.fdopen(read_end) as f:  # Xvfb writes the display number once it accepts clients
            number = f.readline().strip()
        if not number:
            raise RuntimeError("Xvfb did not start")
        with session_bus():
            yield ":" + number
    finally:
        _stop(proc)


def on_screen() -> bool:
    """Inside a child: does it paint to a real X server (pixels read back from the screen)?"""
    return bool(os.environ.get(SCREEN_ENV))


def offscreen_env(extra: dict | None = None, display: str | None = None) -> dict:
    """The environment of a benchmark child: offscreen Qt (or ``display``, an X server), a private
    config/data home (never the user's)."""
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    env.pop(SCREEN_ENV, None)
    if display:
        env.update(QT_QPA_PLATFORM="xcb", DISPLAY=display, **{SCREEN_ENV: "1"})
    home = Path(tempfile.gettempdir()) / "attention-explorer-bench"
    for key, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        env[key] = str(home / sub)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.update(extra or {})
    return env


def ensure_offscreen() -> None:
    """Inside a child: make sure Qt has no display (a directly run script too), unless the child was
    started in the real-screen mode."""
    if not on_screen():
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


def run_child(module: str, args: list[str], *, timeout: float = 600, env: dict | None = None,
              display: str | None = None) -> dict:
    """Run ``python -m benchmarks.<module> args`` offscreen (or on the X server ``display``) and return
    its BENCH_JSON answer."""
    cmd = [sys.executable, "-m", f"benchmarks.{module}", *map(str, args)]
    proc = subprocess.run(cmd, cwd=ROOT, env=offscreen_env(env, display), capture_output=True, text=True,
                          timeout=timeout)
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


def screen_pixels(app, widget, rect):
    """The pixels the X server shows over ``rect`` (x, y, w, h in ``widget``'s coordinates): a read-back
    from the screen (``QScreen.grabWindow``), which returns only after the server has drawn every request
    sent before it. Offscreen, where there is no screen, ``widget.grab()`` (which repaints it) instead."""
    x, y, w, h = rect
    if on_screen():
        return widget.screen().grabWindow(widget.winId(), x, y, w, h)
    from PySide6.QtCore import QRect

    return widget.grab(QRect(x, y, w, h))


def place_on_screen(widget, slot: int) -> None:
    """Real-screen mode: put a 1600×1000 window in its own column of the wide screen (never overlapping)."""
    widget.move(slot * 1620, 0)


def run_standalone_on_screen(main, argv=None) -> None:
    """``python -m benchmarks.<part> --screen``: start a private Xvfb and run the part on it in a child."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--screen" not in argv or on_screen():
        main([a for a in argv if a != "--screen"])
        return
    module = sys.modules[main.__module__].__spec__.name
    with xvfb() as display:
        env = offscreen_env(None, display)
        cmd = [sys.executable, "-m", module, *[a for a in argv if a != "--screen"]]
        raise SystemExit(subprocess.run(cmd, cwd=ROOT, env=env).returncode)
