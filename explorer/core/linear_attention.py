"""Linear attention (Katharopoulos et al. 2020): a feature map φ instead of exp, and associativity.

The chapter names the trick "结合律": softmax(QKᵀ)V must build the (L, L) table, but with a similarity
φ(q)·φ(k) the product regroups — φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1) — and costs L·d·d_v instead of L²·d.
Causal: the sums φ(K)ᵀV and φ(K)ᵀ1 become prefix sums over the keys (a running state, as an RNN keeps).
Performer (Choromanski et al. 2021, FAVOR+) picks φ so that φ(q)·φ(k) estimates exp(q·k) itself: positive
random features exp(w·x − |x|²/2)/√m with w ~ N(0, I) — softmax attention without the table, in expectation.
"""
import numpy as np

FEATURE_MAPS = ("elu+1", "relu")
CHUNK = 64  # keys per step of the causal prefix sums: its (chunk, d, d_v) temporaries stay small


def feature_map(x, phi="elu+1"):
    """φ(x) element-wise: elu(x) + 1 (the paper's, always > 0) or relu(x) (≥ 0: a row may get no weight)."""
    x = np.asarray(x, dtype=np.float64)
    if phi == "elu+1":
        return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))
    if phi == "relu":
        return np.maximum(x, 0.0)
    raise ValueError(f"feature map φ must be one of {', '.join(FEATURE_MAPS)}, got {phi!r}")


def random_features(m, d, seed=0):
    """Performer's W: m × d, rows drawn from N(0, I) by ``seed`` (the same seed draws the same numbers)."""
    if int(m) != m or m < 1:
        raise ValueError(f"Performer's number of features m must be a whole number ≥ 1, got {m!r}")
    return np.random.default_rng(int(seed)).standard_normal((int(m), int(d)))


def positive_features(x, w, per_row):
    """FAVOR+'s φ(x) = exp(w·x − |x|²/2)/√m for each row of x, w the rows of ``w``; E[φ(x)·φ(y)] = exp(x·y).

    Shifted before exp by each row's largest exponent (``per_row``, for queries: a row's scale cancels in its
    normalisation) or by the largest of all (keys: a common scale cancels everywhere), so nothing overflows."""
    x = np.asarray(x, dtype=np.float64)
    z = x @ w.T - 0.5 * np.sum(x * x, axis=1, keepdims=True)
    z -= z.max(axis=1, keepdims=True) if per_row else z.max()
    return np.exp(z) / np.sqrt(len(w))


def linear_attention(fq, fk, v):
    """Non-causal: φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1), with ``fq`` = φ(Q), ``fk`` = φ(K); never an (L, L) table.
    A row whose normaliser is 0 (relu can give it) gets output 0."""
    kv = fk.T @ v  # (d, d_v)
    z = fk.sum(axis=0)  # (d,) = φ(K)ᵀ1
    num, den = fq @ kv, fq @ z
    return np.divide(num, den[:, None], out=np.zeros_like(num), where=den[:, None] > 0)


def causal_linear_attention(fq, fk, v):
    """Causal: query i (at key position i + Lk − Lq) sums over keys j ≤ its position only — running sums
    S = Σ φ(k_j) v_jᵀ and z = Σ φ(k_j), added a chunk of keys at a time."""
    n_q, n_k = len(fq), len(fk)
    offset = n_k - n_q
    state, z = np.zeros((fk.shape[1], v.shape[1])), np.zeros(fk.shape[1])
    out = np.zeros((n_q, v.shape[1]))
    if offset > 0:  # keys before the first query's position are all seen by every query
        state, z = fk[:offset].T @ v[:offset], fk[:offset].sum(axis=0)
    for top in range(max(offset, 0), n_k, CHUNK):
        stop = min(top + CHUNK, n_k)
        prefix = state + np.cumsum(fk[top:stop, :, None] * v[top:stop, None, :], axis=0)  # (c, d, d_v)
        zs = z + np.cumsum(fk[top:stop], axis=0)
        rows = np.arange(top, stop) - offset
        ok = rows >= 0
        r, f = rows[ok], fq[rows[ok]]
        num = np.einsum("cd,cde->ce", f, prefix[ok])
        den = np.einsum("cd,cd->c", f, zs[ok])
        out[r] = np.divide(num, den[:, None], out=np.zeros_like(num), where=den[:, None] > 0)
        state, z = prefix[-1], zs[-1]
    return out


def linear_weights(fq, fk, allowed=None):
    """The (Lq, Lk) weights linear attention amounts to: φ(q_i)·φ(k_j) normalised by rows (masked cells 0).
    For showing and comparing only; the mechanism itself never builds this table."""
    out = np.empty((len(fq), len(fk)))
    step = max(1, (1 << 21) // max(len(fk), 1))  # bands of ≥ 512 rows at L = 4096: BLAS is slow on thin ones
    for top in range(0, len(fq), step):
        rows = slice(top, top + step)
        sim = fq[rows] @ fk.T
        if allowed is not None:
            sim *= allowed[rows]
        den = sim.sum(axis=1, keepdims=True)
        np.divide(sim, np.where(den > 0, den, np.inf), out=out[rows])  # a row with nothing to weigh: 0
    return out
