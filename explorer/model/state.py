"""The model's state as one immutable-by-convention value: what an undo command saves and restores."""
from dataclasses import dataclass, replace

import numpy as np

from explorer.core.session import Session, Settings

MATRIX_NAMES = ("Q", "K", "V")  # always there; X and the W join them once a session is projected


@dataclass(frozen=True)
class State:
    """Tokens, the Q/K/V arrays and the settings. Arrays are shared between states, never resized in place."""

    tokens: tuple
    matrices: dict
    settings: Settings

    @classmethod
    def from_session(cls, session):
        mats = {n: np.array(a, dtype=np.float64, order="C") for n, a in session.matrices.items()}
        return cls(tokens=tuple(session.tokens), matrices=mats, settings=session.settings)

    def with_settings(self, **changes):
        return replace(self, settings=replace(self.settings, **changes))

    def same_as(self, other):
        """Equal tokens, settings and numbers (a drag that ended where it began)."""
        return (self.tokens == other.tokens and self.settings == other.settings
                and self.matrices.keys() == other.matrices.keys()
                and all(np.array_equal(a, other.matrices[n]) for n, a in self.matrices.items()))

    def copy(self):
        """A deep copy, so later in-place cell edits cannot reach it."""
        return replace(self, matrices={n: a.copy() for n, a in self.matrices.items()})

    def to_session(self, title="", layout=None):
        return Session(tokens=self.tokens, matrices=self.matrices, settings=self.settings, title=title,
                       layout=layout)
