"""Input checks shared by the core functions: clear messages naming the shapes that do not fit."""
import numpy as np

from .errors import NonFiniteError, ShapeError


def as_matrix(x, name, ndim=2):
    """``x`` as a float64 array with only finite values: exactly ``ndim`` dimensions, or at least 2 if ``ndim`` is None."""
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ShapeError(f"{name} must be a numeric array: {exc}") from None
    if (a.ndim != ndim) if ndim is not None else (a.ndim < 2):
        raise ShapeError(f"{name} must be {ndim or 'at least 2'}-D, got shape {a.shape}")
    if 0 in a.shape:
        raise ShapeError(f"{name} must not be empty, got shape {a.shape}")
    if not np.isfinite(a).all():
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
        raise NonFiniteError(f"{name} has a non-finite value {a[bad]} at {bad}")
    return a


def require_finite(a, what):
    """Raise ``NonFiniteError`` if ``a`` overflowed (used after products of large values)."""
    if not np.isfinite(a).all():
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
        raise NonFiniteError(f"{what} overflowed at {bad}: the values are too large to multiply")
