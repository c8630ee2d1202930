"""The fixed text of an exported script (F20), piece by piece: the chapter's definitions written plainly in
NumPy. ``as_code`` puts in front of them the session's own tokens, numbers and settings, and picks the pieces
the session needs (a piece for RoPE only when RoPE is on, and so on). No user text is ever put in here."""

HEADER = '''\
#!/usr/bin/env python3
"""Attention, reproduced as code: a session of Attention Explorer written out in NumPy.

Attention is three matrix multiplications (Attention 就是三次矩阵乘):
  ① S = Q·Kᵀ·scale    one dot product per (query, key) pair: how well each query matches each key
  ② A = softmax(S)     each row shared out as a budget: weights >= 0 that sum to 1
  ③ O = A·V            each query carries away that mix of the values (a convex combination)

It needs only NumPy. Run it as

    python3 THIS_FILE.py [RESULTS.npz]

to print S, A and O of every head and save them with np.savez to RESULTS.npz (by default
THIS_FILE_results.npz beside this script); np.load("RESULTS.npz") reads them back.
"""
import argparse
import math
import unicodedata
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve()
parser = argparse.ArgumentParser(description="Recompute the attention of this session, print it and save it.")
parser.add_argument("results", nargs="?", default=str(HERE.with_name(HERE.stem + "_results.npz")),
                    help="where to save S, A, O and the output (.npz; default: %(default)s)")
args = parser.parse_args()
'''

SOFTMAX = '''
def softmax(S, allowed):
    """② Each row of S becomes weights >= 0 that sum to 1 (softmax 分预算). A key that is not allowed gets
    −∞, so exactly 0 weight; the row's largest score is subtracted first (the chapter's 急救包②): exp can
    never overflow, and the weights are the same."""
    S = np.where(allowed, S, -np.inf)
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''

SINUSOIDAL = '''
def sinusoidal_positions(length, width):
    """The original Transformer's position vectors PE (length × width): position p, columns 2i and 2i + 1
    hold sin and cos of p / 10000^(2i/width) — every pair of columns a clock turning at its own speed."""
    p = np.arange(length, dtype=float)[:, None]
    angle = p / np.power(10000.0, np.arange(0, width, 2, dtype=float) / width)
    pe = np.empty((length, width))
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle[:, :width // 2])
    return pe
'''

ALIBI = '''
def alibi_slopes(n):
    """ALiBi's slope m_h of each of n heads (Press et al. 2022, their get_slopes): a geometric sequence
    starting at 2^(−8/n) when n is a power of two; otherwise that of the largest power of two c below n,
    then every other slope of 2c."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    c = 2 ** math.floor(math.log2(n))
    return power_of_2(c) + alibi_slopes(2 * c)[0::2][:n - c]
'''

ROPE_SPEEDS = '''
def rope_speeds(d):
    """RoPE's speed θ_i = base^(−2i/d) of each of the d/2 pairs of a head: the first pairs turn fast, the
    last ones slowly."""
    return ROPE_BASE ** (-np.arange(0, d, 2, dtype=float) / d)
'''

ROPE_SPEEDS_LLAMA3 = '''
def rope_speeds(d):
    """RoPE's speed θ_i = base^(−2i/d) of each of the d/2 pairs of a head, stretched by Llama 3.1's "llama3"
    scaling (as Hugging Face's _compute_llama3_parameters does it): with the wavelength λ_i = 2π/θ_i, pairs
    too slow to turn within the original context turn FACTOR times slower, fast pairs keep their speed,
    the pairs between are blended."""
    theta = ROPE_BASE ** (-np.arange(0, d, 2, dtype=float) / d)
    wavelength = 2 * np.pi / theta
    low_freq_wavelength = ORIGINAL_CONTEXT / LOW_FREQ_FACTOR
    high_freq_wavelength = ORIGINAL_CONTEXT / HIGH_FREQ_FACTOR
    smooth = (ORIGINAL_CONTEXT / wavelength - LOW_FREQ_FACTOR) / (HIGH_FREQ_FACTOR - LOW_FREQ_FACTOR)
    blended = (1 - smooth) * theta / FACTOR + smooth * theta
    slowed = np.where(wavelength > low_freq_wavelength, theta / FACTOR, blended)
    return np.where(wavelength < high_freq_wavelength, theta, slowed)
'''

ROTATE = {
    "half": '''
def rotate(M, positions):
    """RoPE: in every head of M (d_h columns each), turn pair i of the row at position p by the angle p·θ_i.
    The "half" convention (GPT-NeoX / Llama's rotate_half): column i pairs with column i + d_h/2."""
    angle = positions[:, None] * rope_speeds(D_HEAD)[None, :]
    cos, sin = np.cos(angle), np.sin(angle)
    half = D_HEAD // 2
    out = np.empty_like(M)
    for start in range(0, M.shape[1], D_HEAD):
        a, b = M[:, start:start + half], M[:, start + half:start + D_HEAD]
        out[:, start:start + half] = a * cos - b * sin
        out[:, start + half:start + D_HEAD] = b * cos + a * sin
    return out
''',
    "interleaved": '''
def rotate(M, positions):
    """RoPE: in every head of M (d_h columns each), turn pair i of the row at position p by the angle p·θ_i.
    The "interleaved" convention (GPT-J / RoFormer): column 2i pairs with column 2i + 1."""
    angle = positions[:, None] * rope_speeds(D_HEAD)[None, :]
    cos, sin = np.cos(angle), np.sin(angle)
    out = np.empty_like(M)
    for start in range(0, M.shape[1], D_HEAD):
        a, b = M[:, start:start + D_HEAD:2], M[:, start + 1:start + D_HEAD:2]
        out[:, start:start + D_HEAD:2] = a * cos - b * sin
        out[:, start + 1:start + D_HEAD:2] = b * cos + a * sin
    return out
''',
}

SHOW = '''
np.set_printoptions(precision=4, suppress=True, linewidth=150, threshold=400, edgeitems=4)


def width(text):
    """How many columns a terminal gives text (a Chinese character takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def listed(tokens, most=8):
    return ", ".join(tokens[:most]) + (f", … ({len(tokens)} in all)" if len(tokens) > most else "")


def show(heading, M, rows, columns=None):
    """Print matrix M under its heading, each row after its token when the matrix is printed whole."""
    print(heading)
    print(f"  rows: {listed(rows)}" + (f"; columns: {listed(columns)}" if columns else ""))
    lines = np.array2string(M).splitlines()
    if len(lines) == len(rows):  # a line per row: without the outer brackets, after the row's token
        lines = [line[1:] for line in lines]
        lines[-1] = lines[-1][:-1]
        pad = max(width(token) for token in rows)
        lines = [token + " " * (pad - width(token)) + "  " + line for token, line in zip(rows, lines)]
    print("\\n".join("  " + line for line in lines) + "\\n")
'''

HEADS_LOOP = '''
S_heads, A_heads, O_heads = [], [], []
for h in range(HEADS):
    q = Q[:, h * D_HEAD:(h + 1) * D_HEAD]      # 切头: head h's slice of the queries …
{kv_slices}
    S = q @ k.T * SCALE                        # ① the first matrix multiplication: L² dot products at once
{bias}    S = S / TEMPERATURE                        # the temperature divides the scores (T = 1: no change)
    A = softmax(S, allowed)                    # ② softmax shares out each row's budget
    O = A @ v                                  # ③ the third: each row a weighted mix of the rows of v
    S_heads.append(S)
    A_heads.append(A)
    O_heads.append(O)
    name = f"head {{h + 1}} of {{HEADS}}"
    show(f"① S = q·kᵀ·scale{{' / T' if TEMPERATURE != 1 else ''}}, {{name}}"
         + (" (the mask comes in ②)" if CAUSAL else ""), S, QUERY_TOKENS, TOKENS)
    show(f"② A = softmax(S), {{name}}: every row sums to 1", A, QUERY_TOKENS, TOKENS)
    show(f"③ O = A·v, {{name}}", O, QUERY_TOKENS)

concat = np.concatenate(O_heads, axis=1)       # 拼头: the heads' outputs side by side
'''

SAVE = '''
np.savez(args.results, S=np.stack(S_heads), A=np.stack(A_heads), O=np.stack(O_heads), concat=concat,
         output=output, Q=Q, K=K, V=V, tokens=np.array(TOKENS), query_tokens=np.array(QUERY_TOKENS))
saved = args.results if args.results.endswith(".npz") else args.results + ".npz"   # as np.savez names it
print(f"Saved S, A, O (one per head), concat, output and Q, K, V as used to {saved}")
'''
