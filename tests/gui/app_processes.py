"""The application run as a person runs it: each command in its own process, all started at once, each with a
home folder of its own (settings, recent files, recovery copies) and no display."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def env_for(home):
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["ATTENTION_EXPLORER_HOME"] = str(home)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONFAULTHANDLER", None)
    return env


def run_at_once(base, commands, timeout, prepare=None):
    """name -> (returncode, stdout, stderr, folder) for ``commands`` (name -> the arguments after the
    interpreter, "{dir}" standing for the run's own folder under ``base``). ``prepare(name, folder)`` may
    put files in place first. ``timeout`` only guards against a hang."""
    procs = {}
    for name, args in commands.items():
        folder = base / name
        (folder / "home").mkdir(parents=True)
        if prepare is not None:
            prepare(name, folder)
        argv = [sys.executable] + [a.replace("{dir}", str(folder)) for a in args]
        procs[name] = (subprocess.Popen(argv, cwd=str(folder), env=env_for(folder / "home"),
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True), folder)
    results = {}
    for name, (proc, folder) in procs.items():
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(f"{name} did not finish: {err}")
        results[name] = (proc.returncode, out, err, folder)
    return results


QUIT_DRIVER = textwrap.dedent('''
    """Open a session large enough that the panels named compute on their workers, edit, and quit while they run.
    argv[1]: JSON of docks (shown), floating, projected (X and W's, 2 heads; else Q, K, V), mark_a (keep the state
    as the A/B diff's A) and works (attribute paths from the window to each panel's Background)."""
    import json
    import os
    import sys
    from collections.abc import Mapping
    from functools import reduce

    import numpy as np
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    from explorer.core.session import Session, Settings
    from explorer.main_window import MainWindow

    asked = json.loads(sys.argv[1])
    app = QApplication(sys.argv[:1])
    QMessageBox.question = lambda *a, **k: QMessageBox.StandardButton.Discard
    rng = np.random.default_rng(0)
    L, D = 1500, 16
    if asked["projected"]:
        mats = {"X": rng.standard_normal((L, D)),
                **{n: rng.standard_normal((D, D)) / 4 for n in ("Wq", "Wk", "Wv", "Wo")}}
        mats.update(Q=mats["X"] @ mats["Wq"].T, K=mats["X"] @ mats["Wk"].T, V=mats["X"] @ mats["Wv"].T)
        settings = Settings(source="projected", heads=2)
    else:
        mats, settings = {n: rng.standard_normal((L, D)) for n in "QKV"}, Settings()
    session = Session(tokens=tuple(f"t{i}" for i in range(L)), matrices=mats, settings=settings, title="large")
    window = MainWindow(session, persist_layout=False, recovery=False)
    window.resize(1600, 1000)
    window.show()
    window.model.flush()
    for name in asked["docks"]:
        dock = window.docks[name]
        if asked["floating"]:  # each in a window of its own: all in view at once
            dock.setFloating(True)
        dock.show()
        dock.raise_()
    if asked["mark_a"]:
        window.model.comparison.mark()
    app.processEvents()


    def reach(path):
        return reduce(lambda at, part: at[part] if isinstance(at, Mapping) else getattr(at, part), path.split("."),
                      window)


    def edit_then_quit():
        window.model.set_param("temperature", 1.5)
        window.model.flush()
        app.processEvents()
        print("computing:", [reach(path).state for path in asked["works"]], flush=True)
        window.actions["quit"].trigger()


    QTimer.singleShot(300, edit_then_quit)
    QTimer.singleShot(60_000, lambda: os._exit(3))  # a hang is a failure, not a stuck test run
    sys.exit(app.exec())
''')


def quit_while_computing(base, docks, works, *, floating=False, projected=False, mark_a=False):
    """Run the window in its own process on 1500 tokens with ``docks`` shown (``floating``: each in a window of its
    own), ``mark_a``: the state kept as the A/B diff's A; edit, and quit while ``works`` (attribute paths from the
    window to Backgrounds, e.g. "panels.block.view.work") compute: it exits with 0, nothing raised."""
    driver = base / "quit_driver.py"
    driver.write_text(QUIT_DRIVER, "utf-8")
    asked = {"docks": list(docks), "floating": floating, "projected": projected, "mark_a": mark_a,
             "works": list(works)}
    (code, out, err, _), = run_at_once(base, {"quit": [str(driver), json.dumps(asked)]}, 120).values()
    assert code == 0, f"exit status {code} (3: the driver's hang guard; negative: a signal)\n{out[-1000:]}\n{err[-3000:]}"
    assert f"computing: {['computing'] * len(works)}" in out, out
    assert "Traceback" not in err and "Fatal Python error" not in err, err
