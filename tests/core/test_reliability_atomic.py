"""Atomic save under SIGKILL: the session file on disk is always a complete session, never half of one.

A writer subprocess (plain Python, no Qt) forks a child per round; the child saves three sessions
A, B, C over and over with the real ``save_session`` (temporary file, fsync, ``os.replace``) and
reports each finished save through a pipe, and the writer kills it with SIGKILL after a random delay
(spread over ~1.5 cycles of three saves as the machine runs them then, so a loaded machine still sees all three).
In half of the rounds the child's ``os.fsync`` is slowed down by a random 0–4 ms (a slow disk), so
many kills land while the temporary file is being written or synced.

After every kill the file's bytes must be exactly one of the complete texts, and the right one: with
n saves reported finished, the file holds the n-th (A, B, C, A, …) or the (n + 1)-th, in flight when
the kill came — never an older one. Rounds where the target did not exist yet must leave either no
file or a complete first save. A killed save may leave its hidden temporary file behind (nothing can
clean up after SIGKILL), but never anything else, and the next load or save of the file removes it.
"""
import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from explorer.core.session import Session, Settings, load_session, session_to_json

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL") or not hasattr(os, "fork"),
                                reason="needs POSIX fork and SIGKILL")

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 150            # kills (the issue asks for at least 100)
ABSENT_EVERY = 10       # every 10th round starts with no target file at all
TIMEOUT = 120           # seconds: a guard against a hang, not a speed assertion


def sessions():
    """The old file O and the three sessions the child cycles through: ~140 KB each, all different."""
    rng = np.random.default_rng(8)
    out = {}
    for name in "OABC":
        length, width = 48, 48
        out[name] = Session(tuple(f"{name}{i}" for i in range(length)),
                            {m: rng.standard_normal((length, width)) for m in "QKV"},
                            Settings(temperature=float(1 + "OABC".index(name))), title=f"session {name}")
    return out


WRITER = textwrap.dedent(r'''
    import hashlib, json, os, random, signal, sys, time
    sys.path.insert(0, sys.argv[1])
    from explorer.core.session import load_session, save_session
    from explorer.core.errors import SessionError
    sys.path.insert(0, os.path.join(sys.argv[1], "tests", "core"))
    from test_reliability_atomic import sessions  # the test's own, so both sides build the same four

    folder, rounds, absent_every = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    target = os.path.join(folder, "lesson.json")
    s = sessions()
    order = [s["A"], s["B"], s["C"]]
    rng = random.Random(20240608)


    def child(slow):
        if slow:
            real_fsync = os.fsync

            def slow_fsync(fd):
                time.sleep(rng.uniform(0, 0.004))
                real_fsync(fd)

            os.fsync = slow_fsync
        i = 0
        while True:
            save_session(order[i % 3], target)
            os.write(w, b"x")
            i += 1


    # the kills spread over ~1.5 cycles of three saves as this machine runs them now (at least 45 ms): on a
    # loaded machine a fixed 45 ms could end every child before its third save
    started = time.perf_counter()
    for _ in range(2):
        for session in order:
            save_session(session, target)
    spread = max(0.045, 0.75 * (time.perf_counter() - started))

    for k in range(rounds):
        absent = k % absent_every == 0
        if absent:
            if os.path.exists(target):
                os.unlink(target)
        else:
            save_session(s["O"], target)
        slow = k % 2 == 1
        r, w = os.pipe()
        delay = rng.uniform(0, spread)
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                child(slow)
            finally:
                os._exit(0)
        os.close(w)
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        saves = 0
        while True:
            chunk = os.read(r, 65536)
            if not chunk:
                break
            saves += len(chunk)
        os.close(r)
        leftovers = sorted(n for n in os.listdir(folder) if n != "lesson.json")
        if os.path.exists(target):
            with open(target, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            try:
                loaded = load_session(target)
                loads = next((n for n in "OABC" if loaded == s[n]), "other")
            except SessionError as e:
                loads = f"refused: {e}"
        else:
            digest, loads = None, "absent"
        # loading lesson.json removed what the killed (and reaped) save left; without a file to
        # load, the next round's first save does
        after = sorted(n for n in os.listdir(folder) if n != "lesson.json")
        print(json.dumps({"round": k, "absent": absent, "slow": slow, "killed": os.WIFSIGNALED(status)
                          and os.WTERMSIG(status) == signal.SIGKILL, "saves": saves, "digest": digest,
                          "loads": loads, "leftovers": leftovers, "after_load": after,
                          "delay_ms": round(delay * 1000, 2)}),
              flush=True)
''')


@pytest.fixture(scope="module")
def rounds(tmp_path_factory):
    base = tmp_path_factory.mktemp("sigkill")
    folder = base / "data"
    folder.mkdir()
    (base / "writer.py").write_text(WRITER, "utf-8")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(base / "writer.py"), str(ROOT), str(folder), str(ROUNDS),
                           str(ABSENT_EVERY)], cwd=str(base), env=env, capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    return [json.loads(line) for line in proc.stdout.splitlines()], folder


def texts():
    return {name: hashlib.sha256(session_to_json(s).encode("utf-8")).hexdigest()
            for name, s in sessions().items()}


def test_at_least_100_saves_were_killed_at_random_moments(rounds):
    results, _ = rounds
    assert len(results) == ROUNDS >= 100
    assert all(r["killed"] for r in results), "a child was not killed by SIGKILL"
    saves = [r["saves"] for r in results]
    # the kills are spread over the save cycle: before the first save finished, and after several
    assert min(saves) == 0 and max(saves) >= 2, saves
    # and some landed inside a save, between the temporary file's creation and the rename
    assert sum(1 for r in results if r["leftovers"]) >= 3, "no kill hit a save in progress"


def test_the_file_is_always_the_complete_old_or_the_complete_new_session(rounds):
    results, folder = rounds
    digests = texts()
    by_digest = {d: n for n, d in digests.items()}
    order = "ABC"
    for r in results:
        n = r["saves"]
        if r["absent"]:
            allowed = {None, "A"} if n == 0 else {order[(n - 1) % 3], order[n % 3]}
        else:
            allowed = {"O", "A"} if n == 0 else {order[(n - 1) % 3], order[n % 3]}
        found = None if r["digest"] is None else by_digest.get(r["digest"], "a partial or foreign file")
        assert found in allowed, f"round {r['round']}: after {n} saves the file is {found}, expected {allowed}"
        if found is not None:
            assert r["loads"] == found, r  # and it loads as that very session
        # a killed save leaves at most its own hidden temporary, never another visible file, and
        # the next load (or, with no file to load, the next save) removes it
        assert all(name.startswith(".lesson.json.") and name.endswith(".tmp") for name in r["leftovers"]), r
        assert len(r["leftovers"]) <= 1, r
        assert r["after_load"] == ([] if r["digest"] is not None else r["leftovers"]), r
    assert os.listdir(folder) in (["lesson.json"], [])
    final = folder / "lesson.json"
    if final.exists():
        assert load_session(final) in sessions().values()


def test_both_the_old_and_the_new_session_survive_kills(rounds):
    """Some kills keep the old file (killed before the rename), some the new one (after it)."""
    results, _ = rounds
    digests = texts()
    before_first = {r["digest"] for r in results if r["saves"] == 0 and not r["absent"]}
    assert digests["O"] in before_first  # killed before its first rename: the old file is intact
    seen = {r["digest"] for r in results}
    assert {digests["A"], digests["B"], digests["C"]} <= seen
