"""Round numbers for axes and label spacing: 1, 2, 5 × 10^k."""
import math


def nice_step(n):
    """Smallest of 1, 2, 5, 10, 20, 50, … that is >= n (label thinning: show every k-th label)."""
    step = 1
    while True:
        for m in (1, 2, 5):
            if step * m >= n:
                return step * m
        step *= 10


def nice_ceiling(x):
    """Smallest of 1, 2, 5 × 10^k that is >= x > 0 (colour ranges that move in steps, not jitter)."""
    exp = 10.0 ** math.floor(math.log10(x))
    return float(next(f * exp for f in (1, 2, 5, 10) if f * exp >= x * (1 - 1e-12)))
