"""Result buffers made ready while a session file is read (issue 18, ``core.spare_buffers``): the file's
shape is told before its matrices are read, a recompute writes into the spare arrays only once their
thread has stopped and only when they fit, and the results are the pipeline's bit for bit. Behaviour
only (which arrays, which thread writes when), never timings."""
import subprocess
import sys
import time
from dataclasses import replace

import numpy as np
import pytest

from explorer.core import presets
from explorer.core import recompute as rc
from explorer.core import spare_buffers as sb
from explorer.core.pipeline import run_pipeline
from explorer.core.session import Settings, load_session, save_session
from explorer.core.session_convert import read_outline
from tests.core.recompute_checks import assert_same


def direct(length, d, dv, seed=0):
    rng = np.random.default_rng(seed)
    return {"Q": rng.standard_normal((length, d)), "K": rng.standard_normal((length, d)),
            "V": rng.standard_normal((length, dv))}


def test_the_outline_is_the_shape_a_recompute_makes_or_none_for_settings_no_session_has():
    assert sb.outline_shape(7, 9, {"heads": 4, "selected_head": 2}) == (4, 7, 9, 2)
    assert sb.outline_shape(7, 9, {}) == (1, 7, 9, 0)  # the settings' defaults
    assert sb.outline_shape(7, 9, {"heads": 2, "selected_head": 5}) == (2, 7, 9, 1)  # the last head, as the model does
    for bad in ({"heads": "4"}, {"heads": 0}, {"heads": True}, {"heads": 2.0}, {"selected_head": -1}):
        assert sb.outline_shape(7, 9, bad) is None
    assert sb.outline_shape(0, 9, {}) is None


def test_spares_are_made_only_for_large_results_not_reused_ones(monkeypatch):
    monkeypatch.setattr(sb, "SPARE_BYTES", 16 * 2 * 5 * 6)  # H·Lq·Lk·16 bytes of 2 × 5 × 6 results
    assert sb.spare_for((2, 5, 5, 0)) is None  # smaller
    assert sb.spare_for(None) is None
    assert sb.spare_for((2, 5, 6, 1), keep=(2, 5, 6)) is None  # the window's results of that shape are reused
    spare = sb.spare_for((2, 5, 6, 1), keep=(2, 5, 7))
    assert spare.shape == (2, 5, 6) and spare.head == 1
    spare.release()


def test_the_thread_touches_the_shown_head_and_nothing_writes_after_take():
    spare = sb.SpareBuffers(3, 40, 50, 2)
    spare._join()  # let it finish: every row of head 2's scores and weights is touched
    assert spare.touched_rows == 40
    assert not spare.scores[2].any() and not spare.weights[2].any()
    scores, weights = spare.take((3, 40, 50))
    assert scores.shape == weights.shape == (3, 40, 50) and scores.flags.writeable
    assert spare.take((3, 40, 50)) is None  # once


def test_take_stops_a_thread_still_touching_before_it_hands_the_arrays_over(monkeypatch):
    monkeypatch.setattr(sb, "_CHUNK_BYTES", 8 * 64)  # one row a block: many blocks
    for _ in range(5):
        spare = sb.SpareBuffers(2, 4000, 64, 0)
        scores, weights = spare.take((2, 4000, 64))
        assert not any(t.is_alive() for t in spare._threads)
        scores[...] = 7.0
        weights[...] = 7.0
        time.sleep(0.01)  # a thread still writing would put zeros back
        assert (scores == 7.0).all() and (weights == 7.0).all()


def test_a_spare_of_another_shape_or_released_is_not_taken():
    spare = sb.SpareBuffers(2, 5, 6, 0)
    assert spare.take((2, 5, 7)) is None and not any(t.is_alive() for t in spare._threads)
    spare = sb.SpareBuffers(2, 5, 6, 0)
    spare.release()
    assert spare.take((2, 5, 6)) is None


@pytest.mark.parametrize("head", [0, 2])
@pytest.mark.parametrize("causal", [False, True])
def test_a_recompute_into_spare_buffers_writes_them_and_is_the_pipeline_bit_for_bit(sharing, head, causal):
    mats, s = direct(33, 12, 9, seed=4), Settings(heads=3, causal=causal, temperature=0.8)
    spare = sb.SpareBuffers(3, 33, 33, head)
    scores, weights = spare.scores, spare.weights
    order = [head] + [h for h in range(3) if h != head]
    shown = []
    got = rc.recompute(mats, s, order=order, spare=spare, on_shown=shown.append, **sharing)
    assert got.heads.scores is scores and got.heads.weights is weights
    assert shown[0].heads.scores is scores
    assert_same(got, run_pipeline(mats, s), exact=True)


class HalfTouched(sb.SpareBuffers):
    """A spare whose thread was stopped after the first 10 rows of its head's scores."""

    def _touch(self, which):
        if which == "scores":
            self.scores[self.head, :10] = 0.0
            self.touched_rows = 10


def test_a_spare_half_touched_is_still_written_whole(sharing):
    mats, s = direct(33, 12, 9, seed=5), Settings(heads=3)
    spare = HalfTouched(3, 33, 33, 0)
    scores = spare.scores
    got = rc.recompute(mats, s, spare=spare, on_shown=lambda partial: None, **sharing)
    assert got.heads.scores is scores
    assert_same(got, run_pipeline(mats, s), exact=True)


def test_results_that_fit_are_reused_and_the_spare_let_go():
    mats, s = direct(20, 8, 8, seed=6), Settings(heads=2)
    previous = rc.recompute(mats, s)
    spare = sb.SpareBuffers(2, 20, 20, 0)
    got = rc.recompute(mats, s, previous=previous, spare=spare)
    assert got.heads.scores is previous.heads.scores
    assert spare.take((2, 20, 20)) is None  # released
    assert_same(got, run_pipeline(mats, s), exact=True)


def test_a_spare_of_another_shape_is_not_written():
    mats, s = direct(20, 8, 8, seed=7), Settings(heads=2)
    spare = sb.SpareBuffers(2, 21, 20, 0)
    spare._join()
    scores = spare.scores
    got = rc.recompute(mats, s, spare=spare)
    assert got.heads.scores is not scores and not scores[0].any()  # the zeros it was touched with
    assert_same(got, run_pipeline(mats, s), exact=True)


def two_heads():
    s = presets.random_session(10, 8, seed=2)
    return replace(s, settings=replace(s.settings, heads=2, selected_head=1))


@pytest.mark.parametrize("suffix", [".json", ".aesz"])
def test_the_outline_is_told_before_any_matrix_is_read(tmp_path, suffix, monkeypatch):
    session = two_heads()
    path = tmp_path / f"s{suffix}"
    save_session(session, path)
    events = []
    import explorer.core.session_zip as session_zip
    real_read_npy = session_zip._read_npy
    monkeypatch.setattr(session_zip, "_read_npy", lambda *a: events.append("matrix") or real_read_npy(*a))
    loaded = load_session(path, on_outline=lambda q, k, settings: events.append(
        ("outline", q, k, sb.outline_shape(q, k, settings))))
    members = len(session.matrices) if suffix == ".aesz" else 0  # (JSON's numbers come with its text)
    assert events == [("outline", 10, 10, (2, 10, 10, 1))] + ["matrix"] * members
    assert loaded == session


def test_the_outline_counts_the_query_tokens_of_a_cross_attention_session(tmp_path):
    session = presets.translation_session()
    path = tmp_path / "cross.aesz"
    save_session(session, path)
    told = []
    load_session(path, on_outline=lambda q, k, settings: told.append((q, k)))
    assert len(session.query_tokens) != len(session.tokens)
    assert told == [(len(session.query_tokens), len(session.tokens))]


def test_the_converting_process_says_the_outline_first(tmp_path):
    session = two_heads()
    save_session(session, tmp_path / "s.json")
    done = subprocess.run([sys.executable, "-m", "explorer.core.session_convert", str(tmp_path / "s.json"),
                           str(tmp_path / "s.aesz")], capture_output=True, text=True, check=True)
    assert [read_outline(line) for line in done.stdout.splitlines()] == [(2, 10, 10, 1)]
    assert load_session(tmp_path / "s.aesz") == session
    assert read_outline("OUTLINE 1 2 3") is None and read_outline("OUTLINE a 2 3 4") is None
