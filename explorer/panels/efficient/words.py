"""What the Efficient attention panel says: each mechanism's name, its sentence in the chapter's words, and
what each parameter means (the tooltips)."""
from PySide6.QtCore import QT_TRANSLATE_NOOP

from explorer.widgets.html_escape import escape

SCHOOLS_ZH = ("三派加上正文说的线性注意力,构成「长上下文军备竞赛」的主要战线——每条战线的武器,都是你行囊里的旧零件:"
              "稀疏、低秩、结合律。")  # the chapter, under every mechanism's sentence

NAMES = {
    "window": QT_TRANSLATE_NOOP("Efficient", "Sliding window"),
    "global_window": QT_TRANSLATE_NOOP("Efficient", "Global + window"),
    "strided": QT_TRANSLATE_NOOP("Efficient", "Sparse Transformer · strided"),
    "fixed": QT_TRANSLATE_NOOP("Efficient", "Sparse Transformer · fixed"),
    "linformer": QT_TRANSLATE_NOOP("Efficient", "Linformer (low rank)"),
    "linear": QT_TRANSLATE_NOOP("Efficient", "Linear attention"),
    "performer": "Performer (FAVOR+)",
}

SHORT = {"window": QT_TRANSLATE_NOOP("Efficient", "window"),  # in the cost plot's legend
         "global_window": QT_TRANSLATE_NOOP("Efficient", "global + window"),
         "strided": QT_TRANSLATE_NOOP("Efficient", "strided"), "fixed": QT_TRANSLATE_NOOP("Efficient", "fixed"),
         "linformer": "Linformer", "linear": QT_TRANSLATE_NOOP("Efficient", "linear"), "performer": "Performer"}

SENTENCES = {
    "window": (QT_TRANSLATE_NOOP("Efficient", "滑动窗口注意力 (Mistral): each token looks only at its nearest neighbours, |i − j| < w "
               "(causal: the w latest keys) — the score table becomes a band, L² falls to L·w; the far reach is "
               "built by stacking layers, as convolutions do.")),
    "global_window": (QT_TRANSLATE_NOOP("Efficient", "全局锚点 + 窗口 (Longformer, BigBird): the band of a sliding window, plus g global tokens "
                      "that every token sees and that see every token.")),
    "strided": (QT_TRANSLATE_NOOP("Efficient", "稀疏/块状注意力 — 跳跃 (Sparse Transformer, Child et al. 2019, strided): the l latest keys and "
                "every l-th key further back — about L·(l + L/l) cells, least at l ≈ √L.")),
    "fixed": (QT_TRANSLATE_NOOP("Efficient", "稀疏/块状注意力 (Sparse Transformer, Child et al. 2019, fixed): one's own block of l tokens, and "
              "the last c positions of every block — its “summary” that later blocks read.")),
    "linformer": (QT_TRANSLATE_NOOP("Efficient", "低秩流派 (Linformer, Wang et al. 2020): bet that the attention matrix is low rank — project K "
                  "and V along L to k rows first (E K, F V with E, F of shape k × L), then attend: L² becomes "
                  "L·k. Linformer learns E and F; here they are random, N(0, 1/k), drawn with the seed — or mean "
                  "pooling, each projected row the average of a stretch of L/k positions.")),
    "linear": (QT_TRANSLATE_NOOP("Efficient", "结合律 (linear attention, Katharopoulos et al. 2020): replace exp(q·k) by φ(q)·φ(k) and regroup, "
               "φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1) — no L × L table at all, L·d·d_v instead of L²·d "
               "(causal: running sums over the keys).")),
    "performer": (QT_TRANSLATE_NOOP("Efficient", "结合律, with softmax kept in expectation (Performer, Choromanski et al. 2021): m positive random "
                  "features φ(x) = exp(w·x − |x|²/2)/√m, w ~ N(0, I), make φ(q)·φ(k) an unbiased estimate of "
                  "exp(q·k·scale) — then the same regrouping as linear attention: L·m·(d + d_v), no L × L table.")),
}

SHOWN = {  # what the left heatmap shows for each kind: (its title, what its tooltip adds)
    "pattern": (QT_TRANSLATE_NOOP("Efficient", "A′ (hatched: not computed)"),
                QT_TRANSLATE_NOOP("Efficient", "A′ = softmax of the session's scores S over the computed cells only (re-normalised there)")),
    "linformer": (QT_TRANSLATE_NOOP("Efficient", "A′ = P·F, a mix (not a distribution)"),
                  QT_TRANSLATE_NOOP("Efficient", "A′ = P·F with P = softmax(Q(EK)ᵀ·scale), L × k: what each query takes from each row of V")),
    "pooling": (QT_TRANSLATE_NOOP("Efficient", "A′ = P·F over pooled keys"),
                QT_TRANSLATE_NOOP("Efficient", "A′ = P·F with P = softmax(Q(EK)ᵀ·scale), L × k, and F averaging stretches of positions")),
    "linear": (QT_TRANSLATE_NOOP("Efficient", "A′ = φ(q_i)·φ(k_j) by rows"),
               QT_TRANSLATE_NOOP("Efficient", "A′ = φ(q_i)·φ(k_j) normalised by rows: the weights linear attention amounts to (it never builds "
               "them)")),
}

TIPS = {
    "kind": QT_TRANSLATE_NOOP("Efficient", "Which money-saving school to try on the shown head's own Q, K, V"),
    "window": QT_TRANSLATE_NOOP("Efficient", "w: a query sees keys with |i − j| < w (causal: i − w < j ≤ i)"),
    "stride": QT_TRANSLATE_NOOP("Efficient", "l: strided — the l latest keys and every l-th one back; fixed — the block length"),
    "summary": QT_TRANSLATE_NOOP("Efficient", "c: fixed pattern — the last c positions of every block are its summary, seen by all later tokens"),
    "global_tokens": QT_TRANSLATE_NOOP("Efficient", "g: the first g tokens are global anchors: they see every token and every token sees them"),
    "rank": QT_TRANSLATE_NOOP("Efficient", "k: Linformer projects the L keys and values to k rows (E K, F V with E, F of shape k × L)"),
    "seed": QT_TRANSLATE_NOOP("Efficient", "The seed of Linformer's random E, F or of Performer's features W: the same seed draws the same numbers"),
    "features": QT_TRANSLATE_NOOP("Efficient", "m: Performer's number of random features — more features, a closer estimate of softmax, more cost"),
    "projection": (QT_TRANSLATE_NOOP("Efficient", "E = F, k × L: random with entries N(0, 1/k) (the Johnson–Lindenstrauss scale; a Linformer "
                   "learns its own), or mean pooling — row r the average of the r-th stretch of L/k positions")),
    "phi": QT_TRANSLATE_NOOP("Efficient", "φ: elu(x) + 1 (the paper's, always > 0) or relu(x) (a query may then find no weight at all)"),
}

NOT_SAVED = QT_TRANSLATE_NOOP("Efficient", "These choices belong to this panel: they are not saved in the session.")
NO_CAUSAL_LINFORMER = (QT_TRANSLATE_NOOP("Efficient", "⚠ Linformer has no causal form: E and F mix every position, later ones too, into "
                       "each projected key (the paper uses it in encoders) — the mask cannot be kept."))
NO_BIAS = QT_TRANSLATE_NOOP("Efficient", "ALiBi's bias is not in φ(q)·φ(k) or Q(EK)ᵀ: only the patterns keep it.")
NO_MASS = QT_TRANSLATE_NOOP("Efficient", "Exact mass inside: the exact weight on a pattern's kept cells. This mechanism keeps "
                                        "no pattern (every key is read, mixed or approximated), so there is none.")
PHI_NO_SCALE = QT_TRANSLATE_NOOP("Efficient", "φ takes Q and K as the scores use them, without the scale (as in the paper).")


def legend(*entries):
    """A one-line legend in HTML: (symbol, colour, text) per entry."""
    return " &nbsp; ".join(f"<span style='color:{c}'>{s}</span>&nbsp;{escape(t)}" for s, c, t in entries)


def sig3(x):
    """Three significant digits ("0.123", "1.00e-05"), ∞ for infinity."""
    if x == float("inf"):
        return "∞"
    return f"{x:.3g}" if 1e-3 <= abs(x) < 1e4 or x == 0 else f"{x:.2e}"


def count(n):
    """A whole number with thin spaces between thousands (“16 777 216”)."""
    return f"{int(n):,}".replace(",", "\u2009")
