"""Bytes as a person reads them, for refusals that name the size of what would not fit."""


def size_text(n):
    """Bytes as a person reads them: "2.0 GiB", "4.9 MiB", "0.8 KiB"."""
    n = max(int(n), 0)
    unit, power = next(((u, e) for u, e in (("GiB", 30), ("MiB", 20)) if n >= 2 ** e), ("KiB", 10))
    return f"{n / 2 ** power:.1f} {unit}"
