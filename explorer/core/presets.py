"""Ready-made sessions: the chapter's demo and a few more that each teach one thing."""
import numpy as np

from .session import Session, Settings

DEMO_TOKENS = ("猫", "追", "红色", "激光点")


def demo_session():
    """The chapter's demo 「猫 追 红色 激光点」 with hand-set 3-D Q, K, V.

    Dimensions mean: 0 = "is a noun / thing", 1 = "is an action", 2 = "is a modifier / colour".
    K (what I can be found by): 猫 and 激光点 are nouns ([2,0,0], [2,0,1] — the dot is also a bit
    "coloured"), 追 is the action [0,2,0], 红色 the modifier [0,0,2].
    Q (what I look for): 追 = [2,0,0] — the verb looks for nouns, so it scores 猫 and 激光点 equally
    (4 each) and splits its budget between subject and object (≈0.45 + 0.45); 激光点 =
    [0.3,0,2] — the noun looks for its modifier, so 红色 wins (≈0.59); 猫 = [0.5,1.5,0] looks
    for the action it does; 红色 = [1,0,0.8] looks for the noun it colours (激光点 best).
    V (what can be carried away): one-hot "animal", "motion", "colour" for 猫, 追, 红色, and the
    laser dot is mostly colour with some motion [0,0.3,0.8] — so the row of 追 visibly mixes the
    animal of 猫 with the colour and motion of 激光点.
    """
    q = [[0.5, 1.5, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 0.8], [0.3, 0.0, 2.0]]
    k = [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0], [2.0, 0.0, 1.0]]
    v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.3, 0.8]]
    return _session("Demo: 猫 追 红色 激光点", DEMO_TOKENS, q, k, v, Settings(selected_row=1))


def random_session(length=6, dim=4, seed=0, *, dim_v=None):
    """Q, K, V drawn from a standard normal with a fixed seed: the same numbers every time."""
    rng = np.random.default_rng(int(seed))
    dim_v = dim if dim_v is None else dim_v
    tokens = tuple(f"t{i}" for i in range(length))
    q, k = rng.standard_normal((length, dim)), rng.standard_normal((length, dim))
    v = rng.standard_normal((length, dim_v))
    return _session(f"Random L={length} d={dim} (seed {seed})", tokens, q, k, v, Settings())


def uniform_session():
    """All-zero queries: every score is 0, so every row spreads its weight evenly (1/L each) —
    the output is the plain average of V. Attention without a question to ask."""
    base = demo_session()
    q = np.zeros_like(base.matrices["Q"])
    return _session("Uniform: zero queries", base.tokens, q, base.matrices["K"], base.matrices["V"], Settings())


def previous_token_session(length=6):
    """A previous-token head: key j carries its position one-hot, query i asks for position i−1
    (with strength 6), so each token looks at the one before it; the causal mask hides the future.
    """
    tokens = ("The", "cat", "chased", "the", "red", "dot")[:length] if length <= 6 else tuple(
        f"t{i}" for i in range(length))
    eye = np.eye(length)
    q = 6.0 * np.roll(eye, -1, axis=1)
    q[0] = 0.0  # the first token has no predecessor: it can only look at itself
    v = np.random.default_rng(1).standard_normal((length, 2)).round(2)
    return _session("Previous-token head", tokens, q, eye, v, Settings(scale_mode="none", causal=True))


MULTI_HEAD_TOKENS = ("小", "猫", "追", "红色", "的", "激光点")


def multi_head_session():
    """Projected mode, D = 8, two heads that read different things from the same X.

    X = [cos 60°·p, sin 60°·p | noun, verb, modifier, particle, animate, light]: two position
    dimensions (an angle that turns 60° per token) and six content features.
    Head 1 (dims 0–3 of Q and K) is a previous-token head: W_q turns the position back by one
    step, so q_p·k_j = 10·cos(60°·(p − 1 − j)) peaks at j = p − 1. Head 2 (dims 4–7) attends by
    content: a noun looks for a modifier, a verb for a noun, a modifier for a noun, 的 for a
    modifier. The causal mask keeps both honest; W_v = I and W_o = I, so the output shows X mixed.
    """
    L, theta = len(MULTI_HEAD_TOKENS), np.pi / 3
    content = {"小": [2], "猫": [0, 4], "追": [1], "红色": [2, 5], "的": [3], "激光点": [0, 5]}
    x = np.zeros((L, 8))
    for p, token in enumerate(MULTI_HEAD_TOKENS):
        x[p, 0], x[p, 1] = np.round([np.cos(theta * p), np.sin(theta * p)], 12)  # no 1.2e-16 for 0
        x[p, [2 + c for c in content[token]]] = 1.0
    wq, wk = np.zeros((8, 8)), np.zeros((8, 8))
    c, s = np.cos(-theta), np.sin(-theta)
    wq[0:2, 0:2] = 10.0 * np.array([[c, -s], [s, c]])  # rotate the query's position back one token
    wk[0:2, 0:2] = np.eye(2)
    noun, verb, modifier, particle, light = 2, 3, 4, 5, 7
    for axis, (asks, answers) in enumerate([(noun, modifier), (verb, noun), (modifier, noun),
                                            (particle, modifier)], start=4):
        wq[axis, asks], wk[axis, answers] = 4.0, 4.0
    wq[4, light], wk[4, light] = 2.0, 2.0  # the light-coloured laser dot prefers the colour 红色
    mats = {"Q": x @ wq.T, "K": x @ wk.T, "V": x.copy(), "X": x, "Wq": wq, "Wk": wk, "Wv": np.eye(8),
            "Wo": np.eye(8)}
    settings = Settings(heads=2, causal=True, source="projected", selected_row=5)
    return Session(tokens=MULTI_HEAD_TOKENS, matrices=mats, settings=settings,
                   title="Two heads: previous token and content")


TRANSLATION_QUERIES = tuple("The cat chases the red laser dot".split())


def translation_session():
    """Cross-attention (F16): the English sentence's words ask, the chapter's 猫 追 红色 激光点 answer.

    Dimensions mean: 0 = "cat", 1 = "chase", 2 = "red", 3 = "laser dot". K: each Chinese word is its own
    meaning ×2, and the laser dot is a bit red too ([0, 0, 0.5, 2]). Q: each English word asks for its
    meaning ×3 (cat→猫, chases→追, red→红色, laser and dot→激光点, ≈0.83–0.87 of each row); the articles ask
    softly for the noun they belong to (The→猫, the→激光点). V is the identity: the output row of a word is
    its alignment, which Chinese words it took how much of. No causal mask: cross-attention has none.
    """
    q = [[1.0, 0.0, 0.0, 0.3],   # The → 猫 (the cat)
         [3.0, 0.0, 0.0, 0.0],   # cat → 猫
         [0.3, 3.0, 0.0, 0.3],   # chases → 追 (a little of who chases whom)
         [0.3, 0.0, 0.0, 1.0],   # the → 激光点 (the … dot)
         [0.0, 0.0, 3.0, 0.0],   # red → 红色
         [0.0, 0.0, 0.4, 3.0],   # laser → 激光点
         [0.0, 0.0, 0.3, 3.0]]   # dot → 激光点
    k = [[2.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.5, 2.0]]
    mats = {"Q": np.array(q), "K": np.array(k), "V": np.eye(4)}
    return Session(tokens=DEMO_TOKENS, matrices=mats, settings=Settings(selected_row=2),
                   title="Cross-attention: The cat chases the red laser dot → 猫 追 红色 激光点",
                   query_tokens=TRANSLATION_QUERIES)


def grouped_query_session(length=6, heads=8, kv_heads=2, d_head=2, seed=0):
    """Grouped-query attention (GQA, as in Llama 2/3): ``heads`` query heads share ``kv_heads`` K/V heads.

    Q is (L, H·d_h) = (6, 16); K and V are (L, H_kv·d_h) = (6, 4): query heads 0–3 read K/V head 0 and
    4–7 read K/V head 1, so the heads of a group differ only by their queries. Seeded normal numbers,
    causal like a decoder; the concat is (L, H·d_h) = (6, 16).
    """
    rng = np.random.default_rng(int(seed))
    tokens = ("The", "cat", "chased", "the", "red", "dot")[:length] if length <= 6 else tuple(
        f"t{i}" for i in range(length))
    mats = {"Q": rng.standard_normal((length, heads * d_head)).round(2),
            "K": rng.standard_normal((length, kv_heads * d_head)).round(2),
            "V": rng.standard_normal((length, kv_heads * d_head)).round(2)}
    settings = Settings(heads=heads, kv_heads=kv_heads, causal=True, selected_row=length - 1)
    return Session(tokens=tokens, matrices=mats, settings=settings,
                   title=f"Grouped-query attention: {heads} query heads share {kv_heads} K/V heads")


PRESETS = {
    "demo": demo_session,
    "uniform": uniform_session,
    "previous_token": previous_token_session,
    "random": random_session,
    "multi_head": multi_head_session,
    "translation": translation_session,
    "grouped_query": grouped_query_session,
}


def _session(title, tokens, q, k, v, settings):
    mats = {name: np.array(m, dtype=np.float64) for name, m in (("Q", q), ("K", k), ("V", v))}
    return Session(tokens=tuple(tokens), matrices=mats, settings=settings, title=title)
