"""The autosave writes on its own thread: the window never waits for the disk, and a slow write
spaces the next ones out."""
import threading
import time

from explorer import recovery as recovery_module
from explorer.core.session import load_session


def test_the_timer_hands_the_write_over_and_returns(qtbot, window, monkeypatch):
    release = threading.Event()
    real = recovery_module.save_session

    def slow_save(session, path):
        release.wait(10)
        time.sleep(0.3)  # a slow disk: the next autosaves should come less often
        real(session, path)

    monkeypatch.setattr(recovery_module, "save_session", slow_save)
    rec = window.recovery
    window.model.set_cell("Q", 0, 0, 7.5)
    window.model.flush()
    rec._tick()  # what the timer calls
    # the write is still held at ``release``: had the tick waited for it, it would be done by now
    assert not release.is_set() and not rec._saving.done()
    assert not rec.path.exists()
    window.model.set_cell("Q", 0, 0, 8.5)
    rec._tick()  # the first write still runs: this tick waits for the next one
    release.set()
    qtbot.waitUntil(lambda: rec._saving.done(), timeout=10_000)
    rec._tick()  # collects the first write, then starts the next with the newer edit
    rec._collect(wait=True)
    assert load_session(rec.path).matrices["Q"][0, 0] == 8.5
    assert rec._timer.interval() >= 0.3 / recovery_module.SAVE_SHARE * 1000 * 0.9


def test_a_clean_state_waits_for_a_running_write_before_removing_the_file(qtbot, window, monkeypatch):
    rec = window.recovery
    window.model.set_cell("Q", 0, 0, 7.5)
    window.model.flush()
    rec._tick()
    window.model.undo_stack.setClean()
    assert rec._saving is None and not rec.path.exists()
