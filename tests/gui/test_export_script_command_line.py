"""``--export-script FILE`` (F22): the session given (a file, a matrix file, --model's head, or the demo) written
as a NumPy script, headless, exit 0; why not on stderr with exit 2. Each run is a subprocess, all started at
once; the scripts written are then run and compared with the pipeline (or, for a model's head, the model)."""
from pathlib import Path

import numpy as np
import pytest

from explorer.core.pipeline import run_pipeline
from explorer.core.presets import demo_session
from explorer.core.session import load_session
from tests.core.as_code_checks import assert_reproduces, close, run_script
from tests.gui.app_processes import run_at_once

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 120  # seconds: only a guard against a hang, never an assertion about speed
TEXT = "a red fox ran over the hill a red fox ran over the hill"
DATA = ROOT / "tests" / "data"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """name -> (returncode, stdout, stderr, folder), every process started at once."""
    base = tmp_path_factory.mktemp("cli")
    main = str(ROOT / "main.py")
    np.save(base / "Q.npy", np.arange(12.0).reshape(4, 3) / 8)
    (base / "broken.json").write_text('{"format": "attention-explorer-session", "version": 1, "tok', "utf-8")
    commands = {
        "demo": [main, "--export-script", "{dir}/demo.py"],
        "session": [main, str(DATA / "session_v4_cross_projected_mqa.json"), "--export-script", "{dir}/s.py"],
        "matrix": [main, str(base / "Q.npy"), "--export-script", "{dir}/q.py"],
        "model": [main, "--model", "embedded", "--text", TEXT, "--layer", "2", "--head", "1", "--export-script",
                  "{dir}/head.py"],
        "with_screenshot": [main, "--export-script", "{dir}/demo.py", "--screenshot", "{dir}/out.png"],
        "broken": [main, str(base / "broken.json"), "--export-script", "{dir}/never.py"],
        "unwritable": [main, "--export-script", "{dir}/missing/never.py"],
    }
    return run_at_once(base, commands, TIMEOUT)


def succeeded(runs, name):
    code, out, err, folder = runs[name]
    assert (code, out, err) == (0, "", ""), (code, out, err)
    return folder


def test_the_demo_is_written_and_its_script_reproduces_it(runs):
    folder = succeeded(runs, "demo")
    script = (folder / "demo.py").read_text("utf-8")
    (folder / "again").mkdir()
    assert_reproduces(demo_session(), folder / "again")   # the same text the command line wrote
    assert (folder / "again" / "attention.py").read_text("utf-8") == script


def test_a_session_file_is_written_as_opened(runs):
    folder = succeeded(runs, "session")
    saved = run_and_load(folder, "s.py")
    session = load_session(DATA / "session_v4_cross_projected_mqa.json")
    r = run_pipeline(session.matrices, session.settings)
    close(saved["A"], r.heads.weights, "A")
    close(saved["output"], r.heads.output, "output")


def test_a_matrix_file_is_imported_first(runs):
    folder = succeeded(runs, "matrix")
    saved = run_and_load(folder, "q.py")
    np.testing.assert_array_equal(saved["Q"], np.arange(12.0).reshape(4, 3) / 8)


def test_a_model_head_script_gives_the_models_own_attention(runs):
    """The script recomputes the head from X and its W; the model's forward pass (float32) said the same."""
    from explorer.models import open_embedded_model

    folder = succeeded(runs, "model")
    saved = run_and_load(folder, "head.py")
    model = open_embedded_model()
    run = model.run(TEXT, progress=lambda *a: None, cancelled=lambda: False)
    np.testing.assert_allclose(saved["A"][0], run.attentions[1, 0], rtol=0, atol=1e-5)
    assert "Made from a real model's head: tiny-induction, layer 2 head 1" in (folder / "head.py").read_text("utf-8")


def test_a_script_and_a_screenshot_together(runs):
    folder = succeeded(runs, "with_screenshot")
    assert (folder / "demo.py").exists() and (folder / "out.png").stat().st_size > 10_000


@pytest.mark.parametrize("name, words", [("broken", "broken.json: "), ("unwritable", "never.py: could not be written")])
def test_what_cannot_be_written_exits_2_and_says_why(runs, name, words):
    code, out, err, folder = runs[name]
    assert code == 2 and out == ""
    assert err.startswith("attention-explorer: ") and words in err and "Traceback" not in err
    assert not (folder / "never.py").exists()


def run_and_load(folder, name):
    run = run_script(folder / name, folder / "results.npz", folder)
    assert run.returncode == 0, run.stderr
    with np.load(folder / "results.npz", allow_pickle=False) as saved:
        return {key: saved[key] for key in saved.files}
