"""How session messages name a value, a text or a size: short, and never printing something huge."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np


def short(text: str, limit: int = 40) -> str:
    """``repr`` of ``text``, cut to ``limit`` characters and an ellipsis."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def describe(value: Any) -> str:
    """What a value is, in JSON words, without ever printing something huge or deeply nested."""
    if value is None:
        return "null"
    if isinstance(value, (bool, np.bool_)):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, (int, np.integer)):
        text = str(int(value)) if abs(int(value)) < 10 ** 30 else "a very large integer"
        return f"a number ({text})"
    if isinstance(value, (float, np.floating)):
        return f"a number ({float(value)!r})"
    if isinstance(value, str):
        return f"a string ({short(value)})"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, np.ndarray):
        return f"an array of {value.dtype}"
    return f"a {type(value).__name__}"


def size_text(n: int) -> str:
    """A byte count as people read it: ``12.5 MiB``, or ``300 bytes`` below a MiB."""
    return f"{n / 2 ** 20:.1f} MiB" if n >= 2 ** 20 else f"{n} bytes"
