"""Which heads copy the previous token and which complete an induction pattern (Olsson et al., 2022).

On a sequence of random tokens repeated twice, [A B C … | A B C …], a previous-token head puts its
weight on position i − 1; an induction head, at the second occurrence of a token, looks at the
token right after its first occurrence (i − n + 1 for a block of n) — the one that comes next.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HEADS_FILE = "heads.json"   # written beside the embedded model by tools/train_tiny_model.py


def repeated_random_ids(candidates, half: int, seed: int, prefix=()) -> list[int]:
    """``prefix`` + n random ids from ``candidates`` + the same n again."""
    rng = np.random.default_rng(seed)
    block = rng.choice(np.asarray(candidates), size=half, replace=len(candidates) < half).tolist()
    return list(prefix) + block + block


def previous_token_scores(attentions: np.ndarray) -> np.ndarray:
    """(layers, heads): each head's mean weight on the previous position, over positions 1 … L−1."""
    length = attentions.shape[-1]
    i = np.arange(1, length)
    return attentions[..., i, i - 1].mean(axis=-1)


def induction_scores(attentions: np.ndarray, half: int, start: int = 0) -> np.ndarray:
    """(layers, heads): the mean weight from each token of the second block on the token right after
    its first occurrence; the blocks are [start, start + half) and [start + half, start + 2·half)."""
    i = np.arange(start + half, start + 2 * half)
    return attentions[..., i, i - half + 1].mean(axis=-1)


@dataclass(frozen=True)
class NotableHead:
    """A head with a known job: ``role`` is "previous-token" or "induction", ``score`` its mean weight."""

    layer: int
    head: int
    role: str
    score: float


@dataclass(frozen=True)
class HeadScores:
    """Both scores for every head, (layers, heads), averaged over ``samples`` random sequences."""

    previous_token: np.ndarray
    induction: np.ndarray
    half: int
    samples: int
    seed: int

    def notable(self, threshold: float = 0.4) -> list[NotableHead]:
        """The heads scoring at least ``threshold`` on either pattern, strongest first within a role."""
        found = []
        for role, scores in (("previous-token", self.previous_token), ("induction", self.induction)):
            order = np.argsort(-scores, axis=None)
            for flat in order:
                layer, head = np.unravel_index(flat, scores.shape)
                if scores[layer, head] >= threshold:
                    found.append(NotableHead(int(layer), int(head), role, round(float(scores[layer, head]), 4)))
        return found

    def to_json(self) -> dict:
        return {"probe": {"half": self.half, "samples": self.samples, "seed": self.seed},
                "previous_token": np.round(self.previous_token.astype(np.float64), 4).tolist(),
                "induction": np.round(self.induction.astype(np.float64), 4).tolist(),
                "heads": [vars(h) for h in self.notable()]}


def read_notable_heads(folder: Path) -> list[NotableHead] | None:
    """The heads listed in ``heads.json`` beside a model, or None when it has none (or an unreadable one)."""
    try:
        data = json.loads((folder / HEADS_FILE).read_text(encoding="utf-8"))
        return [NotableHead(int(h["layer"]), int(h["head"]), str(h["role"]), float(h["score"]))
                for h in data["heads"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
