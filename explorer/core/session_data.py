"""The Session value: tokens, matrices, settings, layout, title, (cross-attention) query tokens and
(version 6) the real model's head it was made from, with read-only float64 arrays.

Built freely in memory (lists, any real dtype); ``validate_session`` says whether it is a valid one.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from .session_settings import Settings


def _frozen_array(value: Any) -> Any:
    """A read-only copy of ``value`` as an array (real numbers become float64); else ``value``."""
    if isinstance(value, np.ndarray):
        if (value.dtype == np.float64 and not value.flags.writeable and value.base is None
                and value.flags.c_contiguous):
            return value
    elif not isinstance(value, (list, tuple)):
        return value
    try:
        array = np.array(value, copy=True, order="C")
        if array.dtype.kind in "iuf" and array.dtype != np.float64:
            array = array.astype(np.float64)
        array.flags.writeable = False
    except Exception:  # ragged lists and the like: validate_session says what is wrong
        return value
    return array


@dataclass(frozen=True)
class ModelHead:
    """The real model's head a session was made from (F25), so that a reopened session finds its model again:
    the checkpoint folder (an absolute path), the model's name, the layer and the head (counted from 0, as in
    Python), the model's hidden width D, whether it learns position vectors (GPT-2's wpe), and the token ids
    of its text, one per token of the session. Not the model's logits: they are computed again on opening."""

    folder: str
    name: str
    layer: int
    head: int
    hidden: int
    learned_positions: bool = False
    ids: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.ids, list):
            object.__setattr__(self, "ids", tuple(self.ids))


MODEL_HEAD_FIELDS = tuple(f.name for f in fields(ModelHead))   # in the order the writer writes them
MODEL_HEAD_REQUIRED = tuple(name for name in MODEL_HEAD_FIELDS if name != "learned_positions")


@dataclass(frozen=True, eq=False)
class Session:
    """Everything a session file holds. Arrays are stored as read-only float64 copies.

    ``query_tokens`` None is self-attention: the tokens ask and answer. A tuple makes a cross-attention
    session: Q (and X) has one row per query token, ``tokens`` are the keys' (K, V, X_src one row each)."""

    tokens: tuple[str, ...]
    matrices: Mapping[str, np.ndarray]   # "Q" (Lq, d_k), "K" (L, d_kv) and "V" (L, d_v); see MATRIX_AXES
    settings: Settings = Settings()
    layout: Mapping[str, str] | None = None   # opaque UI layout, strings only, <= 1 MiB
    title: str = ""
    query_tokens: tuple[str, ...] | None = None   # cross-attention: the queries' tokens
    model_head: ModelHead | None = None   # the real model's head it was made from (version 6)

    @property
    def cross(self) -> bool:
        """A cross-attention session: its queries come from another sequence than its keys."""
        return self.query_tokens is not None

    def __post_init__(self) -> None:
        for name in ("tokens", "query_tokens"):
            if isinstance(getattr(self, name), list):
                object.__setattr__(self, name, tuple(getattr(self, name)))
        if isinstance(self.matrices, Mapping):
            object.__setattr__(self, "matrices", MappingProxyType(
                {name: _frozen_array(value) for name, value in self.matrices.items()}))
        if isinstance(self.layout, Mapping):
            object.__setattr__(self, "layout", MappingProxyType(dict(self.layout)))

    def __eq__(self, other: object) -> bool:
        """Equal fields, and matrices equal bit for bit (so -0.0 differs from 0.0)."""
        if not isinstance(other, Session):
            return NotImplemented
        return (self.tokens == other.tokens and self.query_tokens == other.query_tokens
                and self.settings == other.settings and self.model_head == other.model_head
                and self.title == other.title and _plain(self.layout) == _plain(other.layout)
                and _matrices_identical(self.matrices, other.matrices))


def _plain(mapping: Any) -> Any:
    """A mapping as a plain dict, so layouts compare by content whatever Mapping holds them."""
    return dict(mapping) if isinstance(mapping, Mapping) else mapping


def _matrices_identical(a: Any, b: Any) -> bool:
    """The same names and, for each, the same shape, dtype and bits (float64 compared as int64)."""
    if not (isinstance(a, Mapping) and isinstance(b, Mapping)):
        return a is b
    if set(a) != set(b):
        return False
    for name in a:
        x, y = a[name], b[name]
        if not (isinstance(x, np.ndarray) and isinstance(y, np.ndarray)):
            if x is not y:
                return False
        elif x.shape != y.shape or x.dtype != y.dtype:
            return False
        elif x.dtype == np.float64:
            if not np.array_equal(np.ascontiguousarray(x).view(np.int64),
                                  np.ascontiguousarray(y).view(np.int64)):
                return False
        elif not np.array_equal(x, y):
            return False
    return True
