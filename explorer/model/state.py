"""The model's state as one immutable-by-convention value (what an undo command saves and restores),
and the view selection that lives beside it (saved with the session, never an undo step)."""
from dataclasses import dataclass, replace

import numpy as np

from explorer.core.heads import kv_head_count
from explorer.core.session import Session, Settings

MATRIX_NAMES = ("Q", "K", "V")  # always there; X and the W join them once a session is projected


@dataclass(frozen=True)
class Selection:
    """The query row and the head the panels focus on, and the key last chosen (a heatmap's column; the
    key is a view choice only: the session saves the row and the head)."""

    row: int = 0
    head: int = 0
    key: int = 0

    def clamped(self, n_queries, n_heads, n_keys):
        return Selection(min(self.row, n_queries - 1), min(self.head, n_heads - 1), min(self.key, n_keys - 1))


@dataclass(frozen=True)
class State:
    """Tokens, the Q/K/V arrays and the computation settings (the selection fields stay at 0: the
    selection is not part of it). Arrays are shared between states, never resized in place."""

    tokens: tuple  # the keys' (and values') tokens; in self-attention the queries' too
    matrices: dict
    settings: Settings
    query_tokens: tuple | None = None  # cross-attention: the queries' own tokens
    # the real model's head this state was opened from and edited since (explorer.models.HeadSource), or
    # None; every edit keeps it, so undo and redo carry it with the numbers (F25)
    model_head: object | None = None

    @classmethod
    def from_session(cls, session):
        mats = {n: np.array(a, dtype=np.float64, order="C") for n, a in session.matrices.items()}
        settings = replace(session.settings, selected_row=0, selected_head=0)
        return cls(tokens=tuple(session.tokens), matrices=mats, settings=settings,
                   query_tokens=None if session.query_tokens is None else tuple(session.query_tokens))

    @property
    def cross(self):
        return self.query_tokens is not None

    @property
    def queries(self):
        """The tokens that ask: the query tokens of a cross session, else the tokens."""
        return self.tokens if self.query_tokens is None else self.query_tokens

    @property
    def kv_heads(self):
        """H_kv, the K/V heads the query heads share (H without grouping)."""
        return kv_head_count(self.settings.heads, self.settings.kv_heads)

    def shape(self):
        """The ``cross`` and ``grouped`` keywords of ``core.structure``'s shape edits."""
        return {"cross": self.cross, "grouped": self.kv_heads < self.settings.heads}

    def kv_width(self):
        """K's width (of W_k's rows when projected): H_kv·d_h."""
        return self.matrices["Wk"].shape[0] if self.settings.source == "projected" else self.matrices["K"].shape[1]

    def check_widths(self):
        """The widths ``settings_schema.check_together`` reads."""
        qk, v = self.widths()
        widths = {"qk": qk, "v": v, "kv": self.kv_width(), "L": len(self.tokens), "Lq": len(self.queries)}
        if "Wo" in self.matrices:
            widths["o"] = self.matrices["Wo"].shape[1]
        return widths

    def with_settings(self, **changes):
        return replace(self, settings=replace(self.settings, **changes))

    def widths(self):
        """(Q/K width, V width) of the attention computed: of Q and V, or of W_q and W_v when projected."""
        m = self.matrices
        if self.settings.source == "projected":
            return m["Wq"].shape[0], m["Wv"].shape[0]
        return m["Q"].shape[1], m["V"].shape[1]

    def same_as(self, other):
        """Equal tokens, settings and numbers (a drag that ended where it began)."""
        return (self.tokens == other.tokens and self.query_tokens == other.query_tokens
                and self.settings == other.settings
                and self.matrices.keys() == other.matrices.keys()
                and all(np.array_equal(a, other.matrices[n]) for n, a in self.matrices.items()))

    def copy(self):
        """A deep copy, so later in-place cell edits cannot reach it."""
        return replace(self, matrices={n: a.copy() for n, a in self.matrices.items()})

    def saved_head(self):
        """What a session file keeps of the model's head (``core.session.ModelHead``), or None: no head, or the
        tokens no longer one per token id of the model's text (a token added or removed: the file cannot hold it)."""
        head = self.model_head
        return None if head is None or len(head.ids) != len(self.tokens) else head.saved()

    def to_session(self, title="", layout=None, selection=Selection()):
        settings = replace(self.settings, selected_row=selection.row, selected_head=selection.head)
        return Session(tokens=self.tokens, matrices=self.matrices, settings=settings, title=title,
                       layout=layout, query_tokens=self.query_tokens, model_head=self.saved_head())
