"""Edits flow back into the model (F25): a head's session in place of the head gives the model's own
next-token distribution while unedited, and after an edit the distribution of an independent float64
forward pass, written here from the GPT-2 and Llama equations, with that head's weights replaced."""
import math
from dataclasses import replace

import numpy as np
import pytest

from explorer.core.errors import ShapeError
from explorer.core.session import Session
from explorer.models import head_source, next_token_change, open_checkpoint
from explorer.models.flow_back import misfit
from tests.core.checkpoint_factory import gpt2_checkpoint, llama_checkpoint, llama_config

TEXT = "the cat sat on the mat the dog chased the red laser dot"


# ----- the reference: one head at a time, float64, sharing nothing with explorer ------------------------------
def layer_norm(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps) * g + b


def rms_norm(x, g, eps):
    return x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps) * g


def softmax_rows(s):
    e = np.exp(s - s.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def attend(q, k, v, causal=True, temperature=1.0):
    """softmax(q·kᵀ/√d_h / T) over the keys a query may see, then ·v."""
    s = q @ k.T / math.sqrt(q.shape[1]) / temperature
    if causal:
        s = np.where(np.tril(np.ones(s.shape)) > 0, s, -np.inf)
    return softmax_rows(s) @ v


def rope(x, base):
    """Llama's RoPE, pair (x_j, x_{j+d/2}) as the complex number x_j + i·x_{j+d/2} turned by p·θ_j."""
    half = x.shape[1] // 2
    theta = base ** (-np.arange(half) * 2 / x.shape[1])
    z = (x[:, :half] + 1j * x[:, half:]) * np.exp(1j * np.arange(len(x))[:, None] * theta[None, :])
    return np.concatenate([z.real, z.imag], 1)


def probabilities(logits):
    e = np.exp(logits - logits.max())
    return e / e.sum()


def gpt2_next(t, cfg, ids, edit=None):
    """GPT-2's next-token probabilities; ``edit(layer, head, q, k, v)`` → that head's A·v, or None."""
    t = {n: np.asarray(a, np.float64) for n, a in t.items()}
    d, n, eps = cfg["n_embd"], cfg["n_head"], cfg["layer_norm_epsilon"]
    dh = d // n
    h = t["wte.weight"][ids] + t["wpe.weight"][:len(ids)]
    for i in range(cfg["n_layer"]):
        p = f"h.{i}."
        qkv = layer_norm(h, t[p + "ln_1.weight"], t[p + "ln_1.bias"], eps) @ t[p + "attn.c_attn.weight"] \
            + t[p + "attn.c_attn.bias"]
        outs = []
        for j in range(n):
            q, k, v = (qkv[:, part * d + j * dh:part * d + (j + 1) * dh] for part in range(3))
            out = edit(i, j, q, k, v) if edit else None
            outs.append(attend(q, k, v) if out is None else out)
        h = h + np.concatenate(outs, 1) @ t[p + "attn.c_proj.weight"] + t[p + "attn.c_proj.bias"]
        m = layer_norm(h, t[p + "ln_2.weight"], t[p + "ln_2.bias"], eps) @ t[p + "mlp.c_fc.weight"] \
            + t[p + "mlp.c_fc.bias"]
        h = h + 0.5 * m * (1 + np.tanh(math.sqrt(2 / math.pi) * (m + 0.044715 * m ** 3))) @ t[p + "mlp.c_proj.weight"] \
            + t[p + "mlp.c_proj.bias"]
    final = layer_norm(h[-1], t["ln_f.weight"], t["ln_f.bias"], eps)
    return probabilities(final @ t["wte.weight"].T)


def llama_next(t, cfg, ids, edit=None):
    """A Llama-family model's next-token probabilities (GQA: query head j reads K/V head j // (H / H_kv))."""
    t = {n: np.asarray(a, np.float64) for n, a in t.items()}
    n, kv, dh, eps = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"], cfg["rms_norm_eps"]
    h = t["model.embed_tokens.weight"][ids]
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        x = rms_norm(h, t[p + "input_layernorm.weight"], eps)
        proj = {c: x @ t[p + f"self_attn.{c}_proj.weight"].T + t.get(p + f"self_attn.{c}_proj.bias", 0.0)
                for c in "qkv"}
        outs = []
        for j in range(n):
            g = j // (n // kv)
            q = rope(proj["q"][:, j * dh:(j + 1) * dh], cfg["rope_theta"])
            k = rope(proj["k"][:, g * dh:(g + 1) * dh], cfg["rope_theta"])
            v = proj["v"][:, g * dh:(g + 1) * dh]
            out = edit(i, j, q, k, v) if edit else None
            outs.append(attend(q, k, v) if out is None else out)
        h = h + np.concatenate(outs, 1) @ t[p + "self_attn.o_proj.weight"].T
        m = rms_norm(h, t[p + "post_attention_layernorm.weight"], eps)
        gate, up = m @ t[p + "mlp.gate_proj.weight"].T, m @ t[p + "mlp.up_proj.weight"].T
        h = h + (gate / (1 + np.exp(-gate)) * up) @ t[p + "mlp.down_proj.weight"].T
    final = rms_norm(h[-1], t["model.norm.weight"], eps)
    return probabilities(final @ t.get("lm_head.weight", t["model.embed_tokens.weight"]).T)


# ----- the checkpoints --------------------------------------------------------------------------------------
@pytest.fixture(params=["gpt2", "llama", "qwen2"])
def family(request, tmp_path):
    """(model, reference next-token function, config, tensors) for GPT-2 (biases), Llama (RoPE, GQA)
    and Qwen2 (RoPE, GQA and q/k/v biases)."""
    if request.param == "gpt2":
        cfg, tensors = gpt2_checkpoint(tmp_path)
        reference = gpt2_next
    else:
        qwen = request.param == "qwen2"
        cfg, tensors = llama_checkpoint(tmp_path, biases=qwen, config=llama_config(model_type=request.param))
        reference = llama_next
    return open_checkpoint(tmp_path), reference, cfg, tensors


def edited(session, **matrices_or_settings):
    """The session with some matrices replaced and some settings changed (as the window's edits do)."""
    mats = {n: a for n, a in matrices_or_settings.items() if isinstance(a, np.ndarray)}
    settings = {n: v for n, v in matrices_or_settings.items() if n not in mats}
    return Session(tokens=session.tokens, matrices={**session.matrices, **mats},
                   settings=replace(session.settings, **settings), title=session.title)


def uniform(q, k, v):
    """A head that attends uniformly: query i gives 1/(i+1) to each key j ≤ i."""
    weights = np.tril(np.ones((len(q), len(q))))
    return (weights / weights.sum(1, keepdims=True)) @ v


# ----- the tests --------------------------------------------------------------------------------------------
def test_an_unedited_head_gives_the_models_own_next_token_distribution(family):
    model, reference, cfg, tensors = family
    run = model.run(TEXT)
    own = run.next_token_probabilities()
    np.testing.assert_allclose(own, reference(tensors, cfg, run.ids), atol=1e-5)  # (the model is right)
    for layer in range(model.config.layers):
        for head in range(model.config.heads):
            session = model.head_session(run, layer, head)
            again = model.run_ids(run.ids, edits={(layer, head): session})
            np.testing.assert_allclose(again.next_token_probabilities(), own, rtol=0, atol=1e-5)
            np.testing.assert_allclose(again.attentions, run.attentions, rtol=0, atol=1e-5)
    change, _ = next_token_change(model, head_source(model, run, 0, 1), model.head_session(run, 0, 1), k=5)
    assert change.moved < 1e-5
    assert [t.label for t in change.after_top] == [label for label, _ in model.top_next_tokens(run, 5)]
    assert all(abs(t.change) < 1e-5 for t in change.after_top + change.before_top)


@pytest.mark.parametrize("layer, head", [(0, 1), (1, 3)])
def test_a_head_made_to_attend_uniformly_changes_what_the_model_says_as_the_reference_does(family, layer, head):
    """W_q = 0 makes every score 0: each query spreads its weight evenly over the keys it may see."""
    model, reference, cfg, tensors = family
    run = model.run(TEXT)
    session = model.head_session(run, layer, head)
    flat = edited(session, Wq=np.zeros_like(session.matrices["Wq"]))
    expected = reference(tensors, cfg, run.ids, lambda i, j, q, k, v: uniform(q, k, v) if (i, j) == (layer, head)
                         else None)
    assert 0.5 * np.abs(expected - run.next_token_probabilities()).sum() > 0.01  # the edit matters
    source = head_source(model, run, layer, head)
    change, baseline = next_token_change(model, source, flat, k=6)
    np.testing.assert_allclose([t.after for t in change.after_top], np.sort(expected)[::-1][:6], atol=1e-5)
    assert [t.token_id for t in change.after_top] == list(np.argsort(-expected, kind="stable")[:6])
    assert change.moved == pytest.approx(0.5 * np.abs(expected - run.next_token_probabilities()).sum(), abs=1e-5)
    # the later layers' heads: how far each one's rows moved, against the unedited run
    after = model.run_ids(run.ids, edits={(layer, head): flat}).attentions
    later = {(i, j): c for i, j, c in change.later_heads}
    for (i, j), c in later.items():
        rows = 0.5 * np.abs(after[i, j].astype(np.float64) - run.attentions[i, j]).sum(1)
        assert c == pytest.approx(rows.mean(), abs=1e-6) and i > layer
    assert len(later) == (min(4, model.config.heads) if layer + 1 < model.config.layers else 0)
    np.testing.assert_array_equal(baseline, run.attentions[layer + 1:])


def test_temperature_mask_and_direct_q_edits_flow_through_the_sessions_own_pipeline(family):
    model, reference, cfg, tensors = family
    run = model.run(TEXT)
    layer, head = 1, 2
    session = model.head_session(run, layer, head)
    source = head_source(model, run, layer, head)

    def expect(fn):
        p = reference(tensors, cfg, run.ids, lambda i, j, q, k, v: fn(q, k, v) if (i, j) == (layer, head) else None)
        return np.sort(p)[::-1][:5]

    def got(s):
        return [t.after for t in next_token_change(model, source, s, k=5)[0].after_top]

    np.testing.assert_allclose(got(edited(session, temperature=3.0)),
                               expect(lambda q, k, v: attend(q, k, v, temperature=3.0)), atol=1e-5)
    np.testing.assert_allclose(got(edited(session, causal=False)),
                               expect(lambda q, k, v: attend(q, k, v, causal=False)), atol=1e-5)
    # direct mode: Q, K, V are the session's own (before RoPE); the output goes back through its W_o
    q = session.matrices["Q"].copy()
    q[-1] *= 4.0  # the last token asks four times as sharply
    direct = edited(session, Q=q, source="direct")
    sharper = expect(lambda qq, k, v: attend(np.vstack([qq[:-1], 4 * qq[-1:]]), k, v))
    np.testing.assert_allclose(got(direct), sharper, atol=1e-5)


def test_a_session_that_no_longer_fits_its_head_says_why(tmp_path):
    gpt2_checkpoint(tmp_path)
    model = open_checkpoint(tmp_path)
    run = model.run(TEXT)
    session = model.head_session(run, 0, 0)
    source = head_source(model, run, 0, 0)
    assert misfit(source, session) is None
    shorter = Session(tokens=session.tokens[:-1], matrices={n: a[:-1] if n in "QKVX" else a
                                                            for n, a in session.matrices.items()},
                      settings=session.settings)
    assert "tokens and the model's text" in misfit(source, shorter)
    two = edited(session, heads=2)
    assert "2 heads" in misfit(source, two)
    with pytest.raises(ShapeError, match="cannot stand in for layer 1 head 1"):
        next_token_change(model, source, two)
    assert source.describe() == f"layer 1 head 1 of {model.name}"


# ----- a head kept in a session file (format version 6) --------------------------------------------------------
def test_a_head_saved_in_a_session_file_comes_back_and_its_logits_are_computed_again(family, tmp_path):
    """The file keeps the head but not the logits; with_logits runs the original pass again, and the change an
    edit makes is then the same as for the head just opened — against the independent reference too."""
    from explorer.core.session import load_session, save_session
    from explorer.models import HeadSource, with_logits
    model, reference, cfg, tensors = family
    run = model.run(TEXT)
    layer, head = 1, 0
    source = head_source(model, run, layer, head)
    hot = edited(model.head_session(run, layer, head), temperature=3.0)
    save_session(replace(hot, model_head=source.saved()), tmp_path / "head.aesz")
    loaded = load_session(tmp_path / "head.aesz")
    back = HeadSource.from_saved(loaded.model_head)
    assert back.logits is None and back.same_head(source) and back.describe() == source.describe()
    assert (back.hidden, back.learned_positions) == (model.config.hidden, cfg.get("n_embd") is not None)
    with pytest.raises(ShapeError, match="not known yet"):
        next_token_change(model, back, loaded)
    full, later = with_logits(model, back)
    own = reference(tensors, cfg, run.ids)  # the unedited model, float64, from the paper's equations
    np.testing.assert_allclose(probabilities(full.logits.astype(np.float64)), own, atol=1e-5)
    np.testing.assert_array_equal(later, run.attentions[layer + 1:])
    again, _ = next_token_change(model, full, loaded, k=5)
    first, _ = next_token_change(model, source, hot, k=5)
    assert again == first


def test_a_checkpoint_that_is_no_longer_the_heads_says_why(tmp_path):
    from explorer.models import checkpoint_misfit
    gpt2_checkpoint(tmp_path)
    model = open_checkpoint(tmp_path)
    source = head_source(model, model.run(TEXT), 1, 3)
    c = model.config
    assert checkpoint_misfit(c, source) is None
    assert checkpoint_misfit(replace(c, layers=1), source) == (
        "it has 1 layer of 4 heads, and the session came from layer 2 head 4")
    assert "came from layer 2 head 4" in checkpoint_misfit(replace(c, heads=3), source)
    assert checkpoint_misfit(replace(c, hidden=c.hidden * 2), source) == (
        f"its hidden width is {c.hidden * 2}; the head's output was {c.hidden} wide")
    highest = max(source.ids)
    assert checkpoint_misfit(replace(c, vocab=highest), source) == (
        f"its vocabulary has {highest:,} entries, and the text has token id {highest:,}")
    assert checkpoint_misfit(replace(c, vocab=highest + 1), source) is None
    assert "RoPE now" in checkpoint_misfit(replace(c, rope_theta=10000.0), source)


def test_a_saved_folder_is_resolved_as_the_open_models_and_one_from_another_system_stays_as_written(tmp_path):
    from explorer.core.session import ModelHead
    from explorer.models import HeadSource
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    saved = ModelHead(folder=str(tmp_path / "link"), name="m", layer=0, head=0, hidden=8, ids=(1, 2))
    assert HeadSource.from_saved(saved).folder == (tmp_path / "real").resolve()
    windows = HeadSource.from_saved(replace(saved, folder="C:\\models\\gpt2"))
    assert str(windows.folder) == "C:\\models\\gpt2" and not windows.folder.is_dir()
    assert HeadSource.from_saved(saved).saved() == replace(saved, folder=str((tmp_path / "real").resolve()))


def test_the_shipped_model_saved_by_another_install_is_found_in_this_one(tmp_path):
    from explorer.core.session import ModelHead
    from explorer.models import EMBEDDED_MODEL, HeadSource
    elsewhere = ModelHead(folder="/opt/other-install/explorer/resources/models/tiny-induction", name="tiny-induction",
                          layer=1, head=0, hidden=64, ids=(1, 2))
    assert HeadSource.from_saved(elsewhere).folder == EMBEDDED_MODEL.resolve()
    other = replace(elsewhere, name="my-model", folder=str(tmp_path / "gone"))   # any other model stays as written
    assert HeadSource.from_saved(other).folder == (tmp_path / "gone").resolve()
