"""The model that ships with the explorer still shows its heads: a previous-token head in layer 0 and an
induction head in layer 1 (Olsson et al., 2022), scored here with the test's own code from run.attentions;
heads.json beside it says the same; it is small, and importing explorer.models loads no Qt and no torch."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from explorer.core.pipeline import run_pipeline
from explorer.models import EMBEDDED_MODEL, open_embedded_model

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def model():
    return open_embedded_model()


@pytest.fixture(scope="module")
def repeated(model):
    """Runs on five texts of 20 random vocabulary words said twice, and the block length."""
    specials = {"<s>", "<unk>"}
    words = sorted(w for w in model.tokenizer.get_vocab() if w not in specials)
    rng = np.random.default_rng(2024)
    runs = []
    for _ in range(5):
        block = list(rng.choice(words, size=20, replace=False))
        runs.append(model.run(" ".join(block + block)))
    return runs, 20


def my_induction_score(attentions, half):
    """Mean weight from each token of the second copy on the token after its first occurrence (BOS at 0)."""
    layers, heads = attentions.shape[:2]
    score = np.zeros((layers, heads))
    for i in range(1 + half, 1 + 2 * half):
        score += attentions[:, :, i, i - half + 1]
    return score / half


def my_previous_token_score(attentions):
    length = attentions.shape[-1]
    return sum(attentions[:, :, i, i - 1] for i in range(2, length)) / (length - 2)


def test_the_files_are_small_and_in_the_hugging_face_layout():
    names = {p.name for p in EMBEDDED_MODEL.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "heads.json"} <= names
    assert sum(p.stat().st_size for p in EMBEDDED_MODEL.iterdir()) < 5 * 2 ** 20
    assert (ROOT / "tools" / "train_tiny_model.py").is_file()


def test_it_has_an_induction_head_and_a_previous_token_head(model, repeated):
    runs, half = repeated
    assert model.config.layers >= 2
    assert all(r.tokens[0] == "<s>" and len(r.ids) == 1 + 2 * half for r in runs)
    induction = np.mean([my_induction_score(r.attentions, half) for r in runs], axis=0)
    previous = np.mean([my_previous_token_score(r.attentions) for r in runs], axis=0)
    best = np.unravel_index(np.argmax(induction), induction.shape)
    assert induction[best] >= 0.5 and best[0] >= 1          # induction needs a head before it
    assert previous[0].max() >= 0.5                           # … a previous-token head in layer 0

    listed = json.loads((EMBEDDED_MODEL / "heads.json").read_text())
    roles = {(h["layer"], h["head"]): h["role"] for h in listed["heads"]}
    assert roles[tuple(int(i) for i in best)] == "induction"
    assert roles[(0, int(np.argmax(previous[0])))] == "previous-token"
    assert {(h.layer, h.head) for h in model.notable_heads} == set(roles)
    assert listed["training"]["seed"] and listed["training"]["final_loss"] < 3.0


def test_it_continues_a_repeated_sentence(model):
    run = model.run("the cat sat on the mat with a red ball the cat sat on the mat with a red")
    assert model.top_next_tokens(run, 1)[0][0] == "ball"


def test_its_induction_head_opens_as_a_session(model, repeated):
    runs, _ = repeated
    head = next(h for h in model.notable_heads if h.role == "induction")
    session = model.head_session(runs[0], head.layer, head.head)
    result = run_pipeline(session.matrices, session.settings)
    np.testing.assert_allclose(result.heads.weights[0], runs[0].attentions[head.layer, head.head], atol=1e-5)


def test_importing_explorer_models_loads_no_qt_and_no_torch():
    probe = ("import sys; sys.path.insert(0, %r); import explorer.models as m; m.open_embedded_model().run('the cat');"
             "import json; print(json.dumps(sorted({n.split('.')[0] for n in sys.modules})))" % str(ROOT))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert not loaded & {"PySide6", "shiboken6", "pyqtgraph", "torch", "transformers", "huggingface_hub"}


def test_the_readme_example_runs(tmp_path, monkeypatch, capsys):
    readme = (ROOT / "README.md").read_text("utf-8")
    block = next(b for b in readme.split("```python\n")[1:] if "open_embedded_model" in b).split("```")[0]
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))     # an empty cache: nothing listed, nothing fetched
    namespace = {}
    exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["model"].top_next_tokens(namespace["edited"], 1)[0][0] == "mat"
    assert "layer 2 of 2" in capsys.readouterr().out
