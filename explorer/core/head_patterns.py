"""What a head mostly does on a text, in words: where its weight goes on average (F19's model view).
Measured on the causal weights of one head: the previous token, itself, the first token, the token
after the query's earlier occurrence (induction, when the token ids are given), or spread."""
import numpy as np

PATTERNS = (("previous token", "previous"), ("itself", "self"), ("the first token", "first"),
            ("the token after this token's earlier occurrence (induction)", "induction"))


def induction_score(weights, ids):
    """The mean weight each query puts on the tokens that followed its token's earlier occurrences
    (Olsson et al.'s induction pattern on natural text), over the queries whose token occurred before
    (not just before it: that next token would be the query itself); None when no token repeats so."""
    w = np.asarray(weights, dtype=np.float64)
    ids = np.asarray(ids)
    shares = []
    for i in range(2, len(ids)):
        earlier = np.flatnonzero(ids[:i - 1] == ids[i])  # occurrences j ≤ i − 2, so j + 1 < i
        if earlier.size:
            shares.append(w[i, earlier + 1].sum())
    return float(np.mean(shares)) if shares else None


def pattern_scores(weights, ids=None):
    """{"previous", "self", "first"}: the mean weight each query row puts there (rows that have
    such a key only); "spread": the mean entropy over log(keys allowed), 0 (one key) … 1 (uniform);
    and with the text's token ``ids``, "induction" when some token repeats (``induction_score``)."""
    w = np.asarray(weights, dtype=np.float64)
    n = w.shape[0]
    scores = {"previous": float(np.mean(np.diagonal(w, offset=-1))) if n > 1 else 0.0,
              "self": float(np.mean(np.diagonal(w)[1:])) if n > 1 else 1.0,  # row 0 can only see itself
              "first": float(np.mean(w[1:, 0])) if n > 1 else 0.0}
    allowed = np.arange(1, n + 1)  # a causal row i sees i + 1 keys
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy = -np.nansum(np.where(w > 0, w * np.log(w), 0.0), axis=1)
        spread = np.where(allowed > 1, entropy / np.log(allowed), 0.0)
    scores["spread"] = float(np.mean(spread[1:])) if n > 1 else 0.0
    induction = induction_score(w, ids) if ids is not None else None
    if induction is not None:
        scores["induction"] = induction
    return scores


def strongest_pattern(weights, ids=None):
    """(words, score) of the pattern with the most weight, e.g. ("previous token", 0.92)."""
    scores = pattern_scores(weights, ids)
    if scores["spread"] > 0.8:  # near uniform: no one key stands out
        return "spread over many keys", scores["spread"]
    words, key = max((p for p in PATTERNS if p[1] in scores), key=lambda p: scores[p[1]])
    if scores[key] < 0.4:  # no one place takes most of the weight
        return f"no one place (the most: {words}", scores[key]
    return words, scores[key]
