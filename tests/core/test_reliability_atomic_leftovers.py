"""The temporary file of a save killed mid-way is removed by the next save or load of the same file.

``atomic_write_bytes`` names its temporary ``.<name>.<host>-<pid>.<random>.tmp``. A real writer
process is stopped inside ``fsync`` (its temporary written, not yet renamed), then either killed
with SIGKILL, after which the next save or load removes what it left, or kept running, in which case
saves and loads of the same file leave its temporary alone and it finishes its own save. The rules
(dead writer or untouched for a day; never our own process, another host's fresh file, another
target's, or anything not named like a temporary) are checked on files made for the purpose.
"""
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from explorer.core import atomic
from explorer.core.atomic import STALE_AGE_S, atomic_write_bytes, remove_stale_temporaries
from explorer.core.presets import demo_session, multi_head_session
from explorer.core.session import load_session, save_session, session_to_json

pytestmark = pytest.mark.skipif(os.name != "posix" or not hasattr(signal, "SIGKILL"),
                                reason="process ids are checked on POSIX only")

ROOT = Path(__file__).resolve().parents[2]
WRITER = textwrap.dedent(r'''
    import os, sys
    sys.path.insert(0, sys.argv[1])
    from explorer.core.atomic import atomic_write_bytes

    real_fsync = os.fsync

    def held_fsync(fd):  # the temporary is written: say so, then wait for a line on stdin
        os.fsync = real_fsync
        print("syncing", flush=True)
        sys.stdin.readline()
        real_fsync(fd)

    os.fsync = held_fsync
    atomic_write_bytes(sys.argv[2], sys.argv[3].encode())
    print("saved", flush=True)
''')


def start_writer(tmp_path, target, text):
    """A process saving ``text`` to ``target``, held inside fsync; returns it and its temporary."""
    script = tmp_path / "writer.py"
    script.write_text(WRITER, "utf-8")
    proc = subprocess.Popen([sys.executable, str(script), str(ROOT), str(target), text],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "syncing\n"
    temps = temporaries(target.parent)
    assert len(temps) == 1 and f"-{proc.pid}." in temps[0], temps
    return proc, temps[0]


def temporaries(folder):
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))


def dead_pid():
    """The id of a process that has exited and been reaped."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    with pytest.raises(ProcessLookupError):
        os.kill(proc.pid, 0)
    return proc.pid


@pytest.mark.parametrize("next_step", ["save", "load"])
def test_a_save_killed_mid_way_is_cleaned_up_by_the_next_save_or_load(tmp_path, next_step):
    target = tmp_path / "lesson.json"
    save_session(demo_session(), target)
    proc, temp = start_writer(tmp_path, target, "a save that never finishes")
    proc.kill()
    proc.wait()
    proc.stdin.close()
    proc.stdout.close()
    assert temporaries(tmp_path) == [temp]  # SIGKILL: nothing could tidy up
    if next_step == "load":
        assert load_session(target) == demo_session()  # the killed save never replaced it
    else:
        save_session(multi_head_session(), target)
        assert target.read_text("utf-8") == session_to_json(multi_head_session())
    assert temporaries(tmp_path) == []
    assert sorted(os.listdir(tmp_path)) == ["lesson.json", "writer.py"]


def test_a_running_writers_temporary_is_never_removed(tmp_path):
    target = tmp_path / "lesson.json"
    save_session(demo_session(), target)
    proc, temp = start_writer(tmp_path, target, "the other process's save")
    try:
        for _ in range(3):
            save_session(multi_head_session(), target)
            assert load_session(target) == multi_head_session()
            assert remove_stale_temporaries(target) == []
        assert temporaries(tmp_path) == [temp]
        proc.stdin.write("go on\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "saved\n"
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
        proc.stdout.close()
    assert target.read_text("utf-8") == "the other process's save"  # its save went through
    assert temporaries(tmp_path) == []


def test_only_stale_temporaries_of_the_same_target_are_removed(tmp_path):
    target = tmp_path / "lesson.json"
    target.write_text("{}", "utf-8")
    host, other_host = atomic._host_tag(), "0badc0de"
    assert host != other_host
    gone = dead_pid()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        def temp(host_tag, pid, name="lesson.json", rest="x1y2z3_a"):
            return f".{name}.{host_tag}-{pid}.{rest}.tmp"

        removed = {temp(host, gone), temp(host, gone, rest="q")}
        old = {temp(other_host, gone, rest="old"), temp(host, sleeper.pid, rest="old"),
               temp(host, os.getpid(), rest="old")}
        kept = {
            temp(host, os.getpid()),          # this process: another thread may be saving
            temp(host, sleeper.pid),          # a running process
            temp(host, 1),                    # a running process (init), maybe someone else's
            temp(other_host, gone),           # another host: its process ids mean nothing here
            temp(host, gone, name="other.json"),                     # another target's
            ".lesson.json.notes.tmp", "lesson.json.tmp", ".lesson.json.abcdefgh.tmp",
            f".lesson.json.{host}-{gone}.x1y2z3_a.tmp.bak", f".lesson.json.{host}-{gone}..tmp",
        }
        for name in removed | old | kept:
            (tmp_path / name).write_text("half a save", "utf-8")
        day_ago = time.time() - STALE_AGE_S - 60
        for name in old:
            os.utime(tmp_path / name, (day_ago, day_ago))
        # not regular files: never touched
        (tmp_path / temp(host, gone, rest="dir")).mkdir()
        (tmp_path / temp(host, gone, rest="link")).symlink_to(target)
        kept |= {temp(host, gone, rest="dir"), temp(host, gone, rest="link")}

        assert sorted(remove_stale_temporaries(target)) == sorted(removed | old)
        assert set(os.listdir(tmp_path)) == kept | {"lesson.json"}
        assert target.read_text("utf-8") == "{}"
        assert remove_stale_temporaries(target) == []
    finally:
        sleeper.kill()
        sleeper.wait()


def test_cleanup_follows_a_symlinked_target_and_never_raises(tmp_path):
    real = tmp_path / "real" / "lesson.json"
    real.parent.mkdir()
    link = tmp_path / "link.json"
    link.symlink_to(real)
    stale = real.parent / f".lesson.json.{atomic._host_tag()}-{dead_pid()}.abc.tmp"
    stale.write_bytes(b"half")
    atomic_write_bytes(link, b"new")  # the temporaries live beside the real file
    assert real.read_bytes() == b"new" and not stale.exists()
    assert remove_stale_temporaries(tmp_path / "missing" / "x.json") == []  # no folder: no error
    assert remove_stale_temporaries(b"\0") == [] and remove_stale_temporaries(None) == []


def test_a_temporary_names_the_writing_process(tmp_path, monkeypatch):
    seen = []
    real_replace = os.replace

    def spy(src, dst):
        seen.append(os.path.basename(src))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    save_session(demo_session(), tmp_path / "lesson.json")
    assert len(seen) == 1
    assert seen[0].startswith(f".lesson.json.{atomic._host_tag()}-{os.getpid()}.")
    assert seen[0].endswith(".tmp")
