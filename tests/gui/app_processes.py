"""The application run as a person runs it: each command in its own process, all started at once, each with a
home folder of its own (settings, recent files, recovery copies) and no display."""
import os
import subprocess
import sys
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
