"""The application as a process under faults: kill -9 and recovery, two instances at once, every way out.

Every run is a real ``explorer.app.main()`` in a subprocess (offscreen, its own
ATTENTION_EXPLORER_HOME) started by a small driver script. The driver only replaces the modal dialogs
(``QMessageBox.question``/``warning``, ``QFileDialog``) by scripted answers that it prints, and makes
its edits through the window's widgets on a QTimer; nothing in the application knows it is tested.

Edits follow ``edit_plan(k)``; the test replays the same plan on a bare ``AttentionModel`` to know
the exact state after any number of edits, so a recovered session can be checked number for number.
"""
import json
import os
import queue
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import asdict
from pathlib import Path

import pytest

from explorer.core.presets import demo_session
from explorer.core.session import load_session

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
TIMEOUT = 60          # seconds to wait for any one line or exit: a guard against hangs only
EDIT_MS = 100         # the driver edits every 100 ms
PROMISE_S = 2.0       # the issue: every edit older than this is in the recovery file after a crash

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


# ----- the edits: applied through widgets in the app, replayed on a model in the test ---------------
def edit_plan(k, instance=0):
    """The k-th edit of a run (a tuple); ``instance`` makes two runs' numbers differ."""
    kind = k % 6
    if k % 17 == 16:
        return ("undo",)
    if kind < 3:
        return ("cell", "QKV"[kind], k % 4, (k // 4) % 3, f"{k + 0.25 + 1000 * instance}")
    if kind == 3:
        return ("temperature", round(0.5 + (k % 10) / 10 + instance / 100, 2))
    if kind == 4:
        return ("rename", k % 4, f"w{instance}.{k}")
    return ("causal", k % 12 == 5) if k % 24 != 23 else ("add_token",)


def apply_in_window(window, edit):
    """How a person makes the edit: the editor's table, the controls, the toolbar, Edit ▸ Undo."""
    editor, controls = window.panels["editor"], window.panels["controls"]
    kind = edit[0]
    if kind == "cell":
        _, name, r, c, text = edit
        table = editor.tables[name]
        assert table.setData(table.index(r, c), text)
    elif kind == "temperature":
        controls.temperature.setValue(edit[1])
    elif kind == "rename":
        assert editor.rename_token(edit[1], edit[2])
    elif kind == "causal":
        controls.causal.setChecked(edit[1])
    elif kind == "add_token":
        editor.actions["add_token"].trigger()
    elif kind == "undo":
        window.actions["undo"].trigger()


def apply_to_model(model, edit):
    """The same edit as plain model calls (what each widget above ends up calling)."""
    kind = edit[0]
    if kind == "cell":
        _, name, r, c, text = edit
        model.set_cell(name, r, c, float(text))
    elif kind == "temperature":
        model.set_param("temperature", edit[1])
    elif kind == "rename":
        model.rename_token(edit[1], edit[2])
    elif kind == "causal":
        model.set_param("causal", edit[1])
    elif kind == "add_token":
        model.add_token(at=model.settings.selected_row + 1)
    elif kind == "undo":
        model.undo_stack.undo()


def state_of(tokens, matrices, settings):
    """What must survive, as plain JSON values (floats keep every bit through JSON)."""
    return {"tokens": list(tokens), "settings": asdict(settings),
            "matrices": {n: matrices[n].tolist() for n in "QKV"}}


def model_state(model):
    return state_of(model.tokens, {n: model.matrix(n) for n in "QKV"}, model.settings)


def session_state(session):
    return state_of(session.tokens, session.matrices, session.settings)


DRIVER = textwrap.dedent(r'''
    """Start explorer.app.main() as a person would; scripted answers for the dialogs; edits by timer."""
    import argparse, json, os, sys, time
    from pathlib import Path

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

    p = argparse.ArgumentParser()
    p.add_argument("mode")
    p.add_argument("--answers", default="")          # restore offers: yes,no,…
    p.add_argument("--instance", type=int, default=0)
    p.add_argument("--session")                      # a SESSION argument for main()
    p.add_argument("--open")                         # a file File ▸ Open will be given
    p.add_argument("--tests", required=True)
    args = p.parse_args()
    sys.path.insert(0, args.tests)
    app = QApplication(sys.argv[:1])
    import explorer.app
    import test_reliability_process as plan

    answers = [a for a in args.answers.split(",") if a]


    def out(**kw):
        print(json.dumps(kw), flush=True)


    def question(parent, title, text, *a, **k):
        out(asked=title, text=text)
        if title == "Restore unsaved work?":
            yes = answers.pop(0) == "yes" if answers else False
            return QMessageBox.StandardButton.Yes if yes else QMessageBox.StandardButton.No
        return QMessageBox.StandardButton.Discard  # "Unsaved changes": leave without saving


    def warning(parent, title, text, *a, **k):
        out(warned=title, text=text)
        return QMessageBox.StandardButton.Ok


    QMessageBox.question = question
    QMessageBox.warning = warning
    QFileDialog.getOpenFileName = lambda *a, **k: (args.open or "", "")


    def window():
        found = [w for w in QApplication.topLevelWidgets() if w.objectName() == "mainWindow"]
        assert len(found) == 1, found
        return found[0]


    def recovery_files():
        folder = Path(os.environ["ATTENTION_EXPLORER_HOME"]) / "recovery"
        return sorted(p.name for p in folder.glob("*")) if folder.exists() else []


    def report(event):
        w = window()
        out(event=event, state=plan.model_state(w.model), modified=w.isWindowModified(),
            path=None if w.documents.path is None else str(w.documents.path),
            own_recovery=str(w.recovery.path), own_recovery_exists=w.recovery.path.exists(),
            recovery_files=recovery_files(), status=w.statusBar().currentMessage())


    k = 0


    def edit():
        global k
        w = window()
        plan.apply_in_window(w, plan.edit_plan(k, args.instance))
        out(edit=k, t=time.monotonic(), saved=w.recovery.path.exists())
        k += 1


    def start():
        w = window()
        out(event="started", pid=os.getpid(), recovery=str(w.recovery.path), recovery_files=recovery_files())
        if args.mode == "edit":  # edit until killed
            for autosave in w.recovery.findChildren(QTimer):  # report its ticks (after each autosave)
                autosave.timeout.connect(lambda: out(tick=time.monotonic()))
            timer = QTimer(w)
            timer.timeout.connect(edit)
            timer.start(%(EDIT_MS)d)
        elif args.mode == "report-quit":
            report("report")
            w.actions["quit"].trigger()
        elif args.mode in ("close", "edit-close"):
            if args.mode == "edit-close":
                plan.apply_in_window(w, plan.edit_plan(0))
                w.model.flush()
            report("report")
            w.close()  # the window's close button
        elif args.mode == "open-quit":
            before = plan.model_state(w.model)
            plan.apply_in_window(w, plan.edit_plan(1))
            edited = plan.model_state(w.model)
            w.actions["open"].trigger()
            w.model.flush()
            report("after-open")
            out(unchanged=plan.model_state(w.model) == edited, edited=edited != before)
            w.actions["quit"].trigger()


    QTimer.singleShot(300, start)
    QTimer.singleShot(50_000, lambda: os._exit(3))  # a hang is a failure, not a stuck test run
    status = explorer.app.main([args.session] if args.session else [])
    out(event="exit", status=status, recovery_files=recovery_files())
    sys.exit(status)
''') % {"EDIT_MS": EDIT_MS}


class App:
    """One driver process; its JSON lines arrive in a queue, read by a thread."""

    def __init__(self, base, home, mode, *extra):
        self.home = Path(home)
        self.home.mkdir(parents=True, exist_ok=True)
        driver = Path(base) / "driver.py"
        if not driver.exists():
            driver.write_text(DRIVER, "utf-8")
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ATTENTION_EXPLORER_HOME=str(self.home),
                   PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        env.pop("PYTHONFAULTHANDLER", None)
        self.proc = subprocess.Popen([sys.executable, str(driver), mode, "--tests", str(HERE), *extra],
                                     cwd=str(base), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.lines, self.seen, self.err = queue.Queue(), [], []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.err.extend(self.proc.stderr), daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            if line.startswith("{"):
                self.lines.put((time.monotonic(), json.loads(line)))
        self.lines.put((time.monotonic(), None))

    def next(self, predicate, timeout=TIMEOUT):
        """The first new message for which ``predicate`` holds (earlier ones are kept in ``seen``)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                at, msg = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.kill()
                pytest.fail(f"no expected line within {timeout} s; stderr: {''.join(self.err)[-2000:]}")
            if msg is None:
                pytest.fail(f"the process ended early ({self.proc.wait()}); stderr: {''.join(self.err)[-2000:]}")
            self.seen.append((at, msg))
            if predicate(msg):
                return msg

    def kill(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(TIMEOUT)

    def finish(self):
        """Wait for a normal exit; every remaining message, the status and stderr."""
        try:
            status = self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"the process did not exit; stderr: {''.join(self.err)[-2000:]}")
        time.sleep(0.05)
        while True:
            try:
                at, msg = self.lines.get(timeout=5)
            except queue.Empty:
                break
            if msg is None:
                break
            self.seen.append((at, msg))
        return status

    def messages(self, key):
        return [m for _, m in self.seen if key in m]

    def stderr(self):
        return "".join(self.err)


def assert_healthy(app):
    err = app.stderr()
    assert "Traceback" not in err and "Fatal Python error" not in err, err[-3000:]
    assert "Error" not in err.replace("propagateSizeHints", ""), err[-3000:]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return tmp_path_factory.mktemp("process")


def replayed(edits, instance=0):
    """The state after each prefix of the plan: states[j] = after edits 0..j-1 (states[0] = the demo)."""
    from explorer.model import AttentionModel

    model = AttentionModel(demo_session())
    states = [model_state(model)]
    for k in range(edits):
        apply_to_model(model, edit_plan(k, instance))
        states.append(model_state(model))
    model.deleteLater()
    return states


def kill_soon(app, rng):
    """SIGKILL somewhere between two edits; (kill time, {edit: time} of every edit made)."""
    time.sleep(rng.uniform(0, EDIT_MS / 1000))
    killed_at = time.monotonic()
    app.kill()
    assert app.proc.returncode == -signal.SIGKILL
    app.finish()  # drain: every edit the process reported before it died
    return killed_at, {m["edit"]: m["t"] for m in app.messages("edit")}


def kill_at_the_worst_moment(app):
    """SIGKILL just before an autosave is due, when the recovery file is as old as it ever gets."""
    started = app.next(lambda m: m.get("event") == "started")
    app.next(lambda m: m.get("edit") == 15)
    t1 = app.next(lambda m: "tick" in m)["tick"]
    t2 = app.next(lambda m: "tick" in m)["tick"]
    period = t2 - t1
    assert period <= PROMISE_S, f"the autosave runs every {period:.2f} s"
    app.next(lambda m: m.get("edit", -1) >= 0 and m["t"] > t2)  # an edit after the last autosave
    time.sleep(max(0.0, t2 + period - 0.06 - time.monotonic()))
    killed_at = time.monotonic()
    app.kill()
    app.finish()
    assert killed_at - t2 > period - 0.1
    return killed_at, {m["edit"]: m["t"] for m in app.messages("edit")}, Path(started["recovery"])


def edit_then_kill(app, kill_after, rng):
    """Let a fresh app edit; kill it with SIGKILL right after edit ``kill_after``."""
    started = app.next(lambda m: m.get("event") == "started")
    app.next(lambda m: m.get("edit") == kill_after)
    killed_at, times = kill_soon(app, rng)
    return killed_at, times, Path(started["recovery"])


def check_recovered(path, killed_at, times, instance=0):
    """The orphan holds a prefix of the edits that includes every edit older than PROMISE_S; its length."""
    assert path.exists(), "no recovery file after the crash"
    last = max(times)
    states = replayed(last + 2, instance)
    recovered = session_state(load_session(path))
    matches = [j for j, s in enumerate(states) if s == recovered]
    assert matches, "the recovery file is not the state after any number of the edits"
    must = sum(1 for t in times.values() if t < killed_at - PROMISE_S)  # edits 0..must-1 are old enough
    assert max(matches) >= must, (f"the recovery file holds {max(matches)} edits; the {must} edits older than "
                                  f"{PROMISE_S} s must all be there")
    return recovered, max(matches), must


# ----- kill -9, then the next start offers the edits ---------------------------------------------
@pytest.fixture(scope="module")
def crashed(base, qapp):
    """Two homes, each: an app that edits and is killed by SIGKILL (one just before an autosave was due,
    one at a random moment); then a start in each home answering the recovery offer Yes / No."""
    from explorer.recovery import AUTOSAVE_MS

    assert AUTOSAVE_MS <= PROMISE_S * 1000
    rng = random.Random(8)
    runs = {}
    apps = {answer: App(base, base / f"crash-{answer}", "edit") for answer in ("yes", "no")}
    for answer, app in apps.items():
        if answer == "yes":
            killed_at, times, path = kill_at_the_worst_moment(app)
        else:
            killed_at, times, path = edit_then_kill(app, rng.randint(34, 44), rng)
        recovered, held, must = check_recovered(path, killed_at, times)
        assert_healthy(app)
        runs[answer] = {"orphan": path, "recovered": recovered, "held": held, "must": must}
    second = {answer: App(base, base / f"crash-{answer}", "report-quit", "--answers", answer) for answer in apps}
    for answer, app in second.items():
        runs[answer]["report"] = app.next(lambda m: m.get("event") == "report")
        runs[answer]["status"] = app.finish()
        runs[answer]["app"] = app
    return runs


def test_after_kill_9_every_edit_older_than_the_autosave_interval_is_in_the_recovery_file(crashed):
    for run in crashed.values():
        assert run["held"] >= run["must"] >= 10  # well into the edits: cells, renames, temperature, mask, undo


def test_the_next_start_offers_the_recovery_and_yes_restores_every_edit(crashed):
    run = crashed["yes"]
    app = run["app"]
    asked = app.messages("asked")
    assert [m["asked"] for m in asked][0] == "Restore unsaved work?"
    assert len([m for m in asked if m["asked"] == "Restore unsaved work?"]) == 1
    report = run["report"]
    assert report["state"] == run["recovered"]            # number for number, every token and setting
    assert report["modified"] is True                     # restored edits are unsaved work
    assert report["own_recovery_exists"] is True          # and protected again at once
    assert run["orphan"].name not in report["recovery_files"]
    assert "Restored" in report["status"]
    assert run["status"] == 0
    assert app.messages("event")[-1]["recovery_files"] == []  # the clean exit left nothing behind
    assert_healthy(app)


def test_answering_no_removes_the_recovery_file_and_starts_fresh(crashed):
    run = crashed["no"]
    app = run["app"]
    assert [m["asked"] for m in app.messages("asked")][0] == "Restore unsaved work?"
    report = run["report"]
    assert report["state"] == model_state_of_demo()
    assert report["modified"] is False
    assert not run["orphan"].exists()
    assert run["orphan"].name not in report["recovery_files"]
    assert run["status"] == 0
    assert app.messages("event")[-1]["recovery_files"] == []
    assert_healthy(app)


def model_state_of_demo():
    s = demo_session()
    return state_of(s.tokens, s.matrices, s.settings)


# ----- two instances at once -------------------------------------------------------------------
def test_two_instances_never_share_or_offer_each_others_recovery_file(base, qapp):
    home = base / "two"
    rng = random.Random(9)
    first = App(base, home, "edit", "--instance", "1")
    first_started = first.next(lambda m: m.get("event") == "started")
    first.next(lambda m: m.get("saved") is True)  # its recovery file exists now
    second = App(base, home, "edit", "--instance", "2")
    second_started = second.next(lambda m: m.get("event") == "started")
    assert second.messages("asked") == []  # a running instance's recovery file is not an orphan
    paths = {1: Path(first_started["recovery"]), 2: Path(second_started["recovery"])}
    assert paths[1] != paths[2] and paths[1].parent == paths[2].parent == home / "recovery"
    second.next(lambda m: m.get("edit") == 25)
    killed = {2: kill_soon(second, rng), 1: kill_soon(first, rng)}
    recovered = {}
    for instance, (killed_at, times) in killed.items():
        # each file holds its own instance's edits (the numbers of the two runs differ)
        recovered[instance] = check_recovered(paths[instance], killed_at, times, instance)[0]
    for app in (first, second):
        assert_healthy(app)
    # a third start offers the newest orphan: Yes restores it, and the other one stays, intact
    third = App(base, home, "report-quit", "--answers", "yes")
    report = third.next(lambda m: m.get("event") == "report")
    assert third.finish() == 0
    assert len([m for m in third.messages("asked") if m["asked"] == "Restore unsaved work?"]) == 1
    chosen = [i for i in (1, 2) if recovered[i] == report["state"]]
    assert len(chosen) == 1
    other = 3 - chosen[0]
    assert not paths[chosen[0]].exists()
    assert paths[other].name in report["recovery_files"] and paths[other].exists()
    assert session_state(load_session(paths[other])) == recovered[other]
    assert_healthy(third)


# regression (was a bug): two windows of one process created within the same millisecond got the same
# recovery file name; the second could not take its lock and silently never autosaved
def test_two_windows_started_in_the_same_millisecond_each_autosave_their_own_file(qtbot, home, ui, monkeypatch):
    import explorer.recovery

    with monkeypatch.context() as frozen:
        frozen.setattr(explorer.recovery.time, "time", lambda: 1_700_000_000.0)
        first, second = ui.open_window(qtbot), ui.open_window(qtbot)
    assert first.recovery.path != second.recovery.path
    for window, value in ((first, 1.5), (second, 2.5)):
        assert window.model.set_cell("Q", 0, 0, value)
        window.recovery.autosave()
    for window, value in ((first, 1.5), (second, 2.5)):
        assert load_session(window.recovery.path).matrices["Q"][0, 0] == value
        window.model.undo_stack.setClean()


# ----- every way out exits 0 -------------------------------------------------------------------
@pytest.fixture(scope="module")
def exits(base):
    broken = base / "broken.json"
    broken.write_text('{"format": "attention-explorer-session", "version": 2, "tok', "utf-8")
    runs = {
        "close": ("close",),
        "edit-close": ("edit-close",),
        "open-broken": ("open-quit", "--open", str(broken)),
        "start-broken": ("report-quit", "--session", str(broken)),
    }
    apps = {name: App(base, base / f"exit-{name}", *args) for name, args in runs.items()}
    return {name: (app.finish(), app) for name, app in apps.items()}


@pytest.mark.parametrize("name", ["close", "edit-close", "open-broken", "start-broken"])
def test_every_way_out_exits_0(exits, name):
    status, app = exits[name]
    assert status == 0, app.stderr()[-3000:]
    assert app.messages("event")[-1] == {"event": "exit", "status": 0, "recovery_files": []}
    assert_healthy(app)


def test_closing_the_window_with_edits_asks_first(exits):
    _, app = exits["edit-close"]
    assert [m["asked"] for m in app.messages("asked")] == ["Unsaved changes"]
    assert exits["close"][1].messages("asked") == []


def test_a_failed_open_warns_keeps_the_session_and_the_app_exits_0(exits):
    _, app = exits["open-broken"]
    warned = app.messages("warned")
    assert [w["warned"] for w in warned] == ["Could not open the session"]
    assert "broken.json" in warned[0]["text"]
    assert app.messages("unchanged") == [{"unchanged": True, "edited": True}]
    assert app.messages("event")[1]["modified"] is True  # the unsaved edit is still there


def test_a_broken_session_argument_warns_then_runs_on_the_demo_and_exits_0(exits):
    _, app = exits["start-broken"]
    warned = app.messages("warned")
    assert [w["warned"] for w in warned] == ["Could not open the session"]
    assert "broken.json" in warned[0]["text"]
    report = app.messages("state")[0]
    assert report["state"] == model_state_of_demo() and report["path"] is None
    assert app.messages("asked") == []  # no restore offer after a failed load (nothing crashed)
