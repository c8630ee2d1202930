"""F20 Reproduce as code: a session written out as a runnable NumPy script — the chapter's "写成代码:十行,
不藏私" for the session on screen. The script needs only NumPy (it never imports the explorer), recomputes
① S, ② A, ③ O of every head from the session's own numbers and settings, prints them and saves them.

Numbers are written as ``repr`` (the shortest text that reads back to the same float64), tokens and titles
as ``repr`` string literals (never as code). A session of more than MAX_LITERAL_NUMBERS numbers keeps them in
an .npz beside the script instead (a real model's head: GPT-2's is ~200 000 numbers, ~5 MB of text that no
one reads). A setting the script cannot reproduce is refused by name: never a silently different script.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import settings_schema
from .as_code_text import (ALIBI, HEADER, HEADS_LOOP, ROPE_SPEEDS, ROPE_SPEEDS_LLAMA3, ROTATE, SAVE, SHOW,
                           SINUSOIDAL, SOFTMAX)
from .atomic import atomic_write_bytes, atomic_write_text, file_name
from .errors import ExportError
from .heads import kv_head_count
from .session_check import validate_session

MAX_LITERAL_NUMBERS = 2 ** 16   # more numbers than this go to an .npz beside the script
LINE = 100                      # a row of numbers longer than this is continued on the next line

# Every setting that changes the results, and the values the script has code for (None: any valid value).
# A setting (or value) not here is refused by name.
REPRODUCED = {
    "scale_mode": ("inv_sqrt_d", "none", "custom"), "scale": None, "temperature": None, "causal": None,
    "heads": None, "kv_heads": None, "source": ("direct", "projected"),
    "positions": ("none", "sinusoidal", "alibi"), "rope": None, "rope_base": None,
    "rope_style": tuple(ROTATE), "rope_offset": None, "rope_scaling": ("none", "llama3"),
    "rope_factor": None, "rope_low_freq_factor": None, "rope_high_freq_factor": None,
    "rope_original_max_position_embeddings": None,
}

# What each matrix is, in the chapter's words
MEANING = {"Q": "what each token looks for", "K": "what each token can be found by",
           "V": "what each token carries away", "X": "the token vectors", "X_src": "the keys' token vectors",
           "W_q": "Q = X·W_qᵀ", "W_k": "K = X·W_kᵀ", "W_v": "V = X·W_vᵀ", "W_o": "output = concat·W_oᵀ"}
SCRIPT_NAMES = {"Wq": "W_q", "Wk": "W_k", "Wv": "W_v", "Wo": "W_o"}   # as the chapter writes them


@dataclass(frozen=True)
class ExportedScript:
    """The script's text and, when its numbers are many, the .npz it loads beside itself (name and members)."""

    text: str
    matrices_name: str | None = None
    matrices: dict = field(default_factory=dict)


def refusal(settings, where="session"):
    """Why the script cannot reproduce these settings (naming the setting), or None."""
    for name in settings_schema.RESULTS:
        value = getattr(settings, name)
        label = settings_schema.SCHEMA[name].label
        if name not in REPRODUCED:
            return (f"{where}: the setting {name} ({label}) is {value!r}; it changes the results, but the exported "
                    f"script has no code for it, so no script was written")
        allowed = REPRODUCED[name]
        if allowed is not None and value not in allowed:
            return (f"{where}: the setting {name} ({label}) is {value!r}; the exported script can reproduce only "
                    f"{', '.join(map(repr, allowed))}, so no script was written")
    return None


def rule(title):
    """A section's heading line: ``# ── title ─────…`` to the width of the script."""
    return f"# ── {title} ".ljust(LINE, "─")


def aligned(lines):
    """Lines of ``code   # comment`` with their comments lined up (the longest code decides)."""
    split = [line.split("   # ", 1) if "   # " in line else [line] for line in lines]
    width = max((len(p[0]) for p in split if len(p) == 2), default=0)
    return [p[0].ljust(width) + "   # " + p[1] if len(p) == 2 else p[0] for p in split]


def comment_text(text):
    """``text`` as it may stand in a comment: itself when printable on one line, else its ``repr``."""
    return text if text.isprintable() else repr(text)


def number_rows(array):
    """The rows of a matrix as lines of ``repr`` floats (bit for bit), a long row continued over lines."""
    for row in array.tolist():
        pieces, lines = [], []
        for x in row:
            text = repr(float(x))
            if pieces and sum(len(p) + 2 for p in pieces) + len(text) > LINE:
                lines.append(", ".join(pieces))
                pieces = []
            pieces.append(text)
        lines.append(", ".join(pieces))
        yield lines


def matrix_literal(name, array, labels=None, meaning=None):
    """``NAME = np.array([...])`` with a row per line, each row after its token in a comment."""
    meaning = meaning or MEANING[name]
    rows, cols = array.shape
    out = []
    for i, lines in enumerate(number_rows(array)):
        note = f"   # {comment_text(labels[i])}" if labels is not None else ""
        if len(lines) == 1:
            out.append(f"    [{lines[0]}],{note}")
        else:
            out.append(f"    [{lines[0]},{note}")
            out.extend(f"     {line}," for line in lines[1:-1])
            out.append(f"     {lines[-1]}],")
    if labels is not None and len(out) == rows:  # a line per row: the tokens lined up
        out = aligned(out)
    return "\n".join([f"{name} = np.array([   # {name} ({rows} × {cols}): {meaning}", *out, "])"])


def _inputs(session):
    """The matrices the script computes from, by the script's names: Q, K, V, or X (X_src) and the W."""
    if session.settings.source == "projected":
        names = ["X", *(["X_src"] if "X_src" in session.matrices else []), "Wq", "Wk", "Wv", "Wo"]
    else:
        names = ["Q", "K", "V"]
    return {SCRIPT_NAMES.get(n, n): np.asarray(session.matrices[n], dtype=np.float64) for n in names}


def _labels(session, name):
    queries = session.query_tokens or session.tokens
    return {"Q": queries, "X": queries, "K": session.tokens, "V": session.tokens, "X_src": session.tokens}.get(name)


def _tokens_section(session):
    lines = ["", f"TITLE = {session.title!r}"]
    head = session.model_head
    if head is not None:
        lines += [f"# Made from a real model's head: {comment_text(head.name)}, layer {head.layer + 1} head "
                  f"{head.head + 1} (counted from 1, as the Model view shows them).",
                  "# X is that layer's normalised attention input, the W are the head's own (a last column of ones",
                  "# in X carries the biases, if the model has any). Only this head's attention is recomputed here;",
                  "# what the model says next needs the whole model."]
    lines += ["", rule("The tokens"), *list_literal("TOKENS", session.tokens, "one per row of K and V")]
    if session.cross:
        lines += list_literal("QUERY_TOKENS", session.query_tokens, "cross-attention: these ask, one per row of Q")
    else:
        lines.append("QUERY_TOKENS = TOKENS   # self-attention: the same tokens ask and answer")
    return lines


def list_literal(name, texts, comment):
    """``NAME = ['a', 'b', …]   # comment``, each text its ``repr`` (a string literal, never code); a long list
    continued over lines."""
    one = f"{name} = {list(texts)!r}   # {comment}"
    if len(one) <= LINE + 20:
        return [one]
    lines, piece = [f"{name} = [   # {comment}"], ""
    for text in map(repr, texts):
        if piece and len(piece) + len(text) + 2 > LINE - 4:
            lines.append("    " + piece.rstrip())
            piece = ""
        piece += text + ", "
    return lines + ["    " + piece.rstrip(), "]"]


def _numbers_section(inputs, session, data_name):
    lines = ["", rule("The numbers")]
    if session.settings.source == "projected":
        lines.append("# The token vectors X and the projections that give each token its three personalities "
                     "(三种人格)")
    else:
        lines.append("# Each token's three personalities (三种人格): a row of Q, of K and of V")
    meanings = dict(MEANING)
    if session.cross:
        meanings.update(W_k="K = X_src·W_kᵀ", W_v="V = X_src·W_vᵀ")
    if data_name is None:
        lines += [matrix_literal(name, array, _labels(session, name), meanings[name])
                  for name, array in inputs.items()]
        return lines
    count = sum(a.size for a in inputs.values())
    lines += [f"# {count:,} numbers: too many to read here, so they are in the .npz beside this script,",
              "# written with it and read back exactly (float64, no pickle).",
              f"NUMBERS = np.load(HERE.with_name({data_name!r}), allow_pickle=False)"]
    for name, array in inputs.items():
        lines.append(f"{name} = NUMBERS[{name!r}]   # {name} ({array.shape[0]} × {array.shape[1]}): "
                     f"{meanings[name]}")
    return lines


def _scale_line(settings):
    if settings.scale_mode == "inv_sqrt_d":
        return "SCALE = 1 / np.sqrt(D_HEAD)   # 1/√d_h keeps the spread of the scores near 1 whatever d_h is"
    if settings.scale_mode == "none":
        return "SCALE = 1.0   # scale mode 'none': the bare dot products"
    return f"SCALE = {float(settings.scale)!r}   # a custom scale"


def _settings_section(settings, grouped):
    lines = ["", rule("The settings"),
             f"HEADS = {settings.heads}   # H heads: the columns of Q and K are cut into H slices of d_h (切头)"]
    if grouped:
        lines.append(f"KV_HEADS = {kv_head_count(settings.heads, settings.kv_heads)}   # grouped-query attention: "
                     f"the H query heads share H_kv K/V heads")
    lines += [f"TEMPERATURE = {float(settings.temperature)!r}   # T divides the scores before the softmax: low T → "
              f"one key takes all",
              f"CAUSAL = {bool(settings.causal)!r}   # the lower-triangular pass (下三角通行证): "
              f"query i sees keys j ≤ i only"]
    if settings.rope:
        lines += [f"ROPE_BASE = {float(settings.rope_base)!r}   # RoPE: θ_i = base^(−2i/d_h)",
                  f"ROPE_OFFSET = {int(settings.rope_offset)}   # RoPE turns token t by the angle of position "
                  f"offset + t"]
        if settings.rope_scaling == "llama3":
            lines += ["# Llama 3.1's \"llama3\" RoPE scaling (config.json's rope_scaling)",
                      f"FACTOR = {float(settings.rope_factor)!r}",
                      f"LOW_FREQ_FACTOR = {float(settings.rope_low_freq_factor)!r}",
                      f"HIGH_FREQ_FACTOR = {float(settings.rope_high_freq_factor)!r}",
                      f"ORIGINAL_CONTEXT = {int(settings.rope_original_max_position_embeddings)}   # "
                      f"original_max_position_embeddings"]
    return aligned(lines)


def _projection_section(settings, cross):
    side = "X_src" if cross else "X"
    lines = ["", rule("The three personalities: Q = X·W_qᵀ, K = X·W_kᵀ, V = X·W_vᵀ")]
    if settings.positions == "sinusoidal":
        lines.append("X = X + sinusoidal_positions(*X.shape)   # each token's position vector added to it first")
        if cross:
            lines.append("X_src = X_src + sinusoidal_positions(*X_src.shape)   # the keys' by their own positions")
    if cross:
        lines.append("# cross-attention: the queries come from X, the keys and values from X_src")
    lines += ["Q = X @ W_q.T", f"K = {side} @ W_k.T", f"V = {side} @ W_v.T"]
    return lines


def script_text(session, data_name=None):
    """The text of the script for a valid session (its numbers loaded from ``data_name`` when given)."""
    s = session.settings
    inputs = _inputs(session)
    grouped = kv_head_count(s.heads, s.kv_heads) != s.heads
    parts = [HEADER.rstrip("\n"), *_tokens_section(session), *_numbers_section(inputs, session, data_name),
             *_settings_section(s, grouped)]
    pieces = [SOFTMAX, SINUSOIDAL if s.positions == "sinusoidal" else "", ALIBI if s.positions == "alibi" else "",
              *([ROPE_SPEEDS_LLAMA3 if s.rope_scaling == "llama3" else ROPE_SPEEDS, ROTATE[s.rope_style]]
                if s.rope else []), SHOW]
    parts += ["\n" + piece.rstrip("\n") for piece in pieces if piece]  # two blank lines before each
    parts.append("\n\nprint(TITLE or 'Attention Explorer session')\nprint()")
    if s.source == "projected":
        parts += _projection_section(s, session.cross)
    before = ["D_HEAD = Q.shape[1] // HEADS   # d_h: each head's width of Q and K",
              f"D_V = V.shape[1] // {'KV_HEADS' if grouped else 'HEADS'}   # each head's width of V",
              _scale_line(s)]
    if s.rope:
        before += ["Q = rotate(Q, ROPE_OFFSET + np.arange(len(Q), dtype=float))   # RoPE: the queries at their "
                  "positions …",
                  "K = rotate(K, ROPE_OFFSET + np.arange(len(K), dtype=float))   # … and the keys at theirs"]
    if s.positions == "alibi":
        before += ["SLOPES = alibi_slopes(HEADS)   # ALiBi: no position vectors, a bias on the scores instead",
                  "DISTANCE = np.abs(np.arange(len(Q))[:, None] - np.arange(len(K))[None, :])   # |i − j|"]
    before += ["allowed = np.ones((len(Q), len(K)), dtype=bool)   # True: the query may look at the key",
               "if CAUSAL:",
               "    allowed = np.tril(allowed)   # no peeking at the future: keys j > i are set to −∞"]
    parts += ["", rule("Every head: ① → ② → ③"), *aligned(before)]
    if grouped:
        kv = ("    g = h // (HEADS // KV_HEADS)               # the K/V head it reads (Hugging Face's repeat_kv "
              "order)\n"
              "    k = K[:, g * D_HEAD:(g + 1) * D_HEAD]      # … of the keys its group shares\n"
              "    v = V[:, g * D_V:(g + 1) * D_V]            # … and of the values")
    else:
        kv = ("    k = K[:, h * D_HEAD:(h + 1) * D_HEAD]      # … of the keys\n"
              "    v = V[:, h * D_V:(h + 1) * D_V]            # … and of the values")
    bias = ("    S = S - SLOPES[h] * DISTANCE               # ALiBi: each token of distance costs m_h\n"
            if s.positions == "alibi" else "")
    parts.append(HEADS_LOOP.format(kv_slices=kv, bias=bias).rstrip("\n"))
    if s.source == "projected":
        parts += ["output = concat @ W_o.T                        # the output projection",
                  "show(\"output = concat·W_oᵀ\", output, QUERY_TOKENS)"]
    else:
        parts += ["output = concat                                # (direct Q, K, V: no output projection)"]
        if s.heads > 1:
            parts.append("show(\"concat: the heads' outputs side by side\", concat, QUERY_TOKENS)")
    parts.append(SAVE.rstrip("\n"))
    return "\n".join(parts) + "\n"


def session_script(session, script_name="attention.py", where="session"):
    """The script for ``session`` (validated first): its text, and the .npz of its numbers when they are
    more than MAX_LITERAL_NUMBERS. SessionError for an invalid session, ExportError for a setting it cannot
    reproduce."""
    session = validate_session(session, where)
    why = refusal(session.settings, where)
    if why:
        raise ExportError(why)
    inputs = _inputs(session)
    if sum(a.size for a in inputs.values()) <= MAX_LITERAL_NUMBERS:
        return ExportedScript(script_text(session))
    data_name = Path(script_name).stem + "_numbers.npz"
    return ExportedScript(script_text(session, data_name), data_name, inputs)


def write_script(session, path):
    """Write the script for ``session`` to ``path`` atomically (its .npz of numbers first, beside it, when it
    has one); ExportError names the file. Returns the ExportedScript written."""
    name = file_name(path)
    exported = session_script(session, name, where=name)
    try:
        if exported.matrices_name:
            buffer = io.BytesIO()
            np.savez(buffer, **exported.matrices)
            atomic_write_bytes(Path(path).with_name(exported.matrices_name), buffer.getbuffer())
        atomic_write_text(path, exported.text)
    except OSError as e:
        raise ExportError(f"{name}: could not be written ({e.strerror or e})") from e
    return exported
