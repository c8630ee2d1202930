"""Round numbers for axes and label spacing: 1, 2, 5 × 10^k."""
import math
import sys

STEPS = (1, 2, 5)
FINE_STEPS = (1, 1.5, 2, 3, 5, 7.5)  # for an axis whose range should track the data more closely


def nice_step(n):
    """Smallest of 1, 2, 5, 10, 20, 50, … that is >= n (label thinning: show every k-th label)."""
    step = 1
    while True:
        for m in STEPS:
            if step * m >= n:
                return step * m
        step *= 10


def nice_ceiling(x, steps=STEPS):
    """Smallest of ``steps`` × 10^k that is >= x > 0 (ranges that move in steps, not jitter); for an x below the
    smallest normal float (~2.2e−308, where 10^k would underflow to 0) that of the smallest normal float."""
    x = max(x, sys.float_info.min)
    exp = 10.0 ** math.floor(math.log10(x))
    return float(next(f * exp for f in (*steps, 10) if f * exp >= x * (1 - 1e-12)))


def label_every(count, pixels, label_px):
    """Every how many of ``count`` evenly spaced labels to show so each gets ``label_px`` of ``pixels``:
    a nice step, never more than the first nice step reaching ``count``."""
    return nice_step(min(count * label_px / pixels, count))


def round_ticks(lo, hi, pixels, min_px):
    """Ticks at round values (1, 2, 5 × 10^k apart, at least ``min_px`` of ``pixels`` apart) inside [lo, hi],
    and the decimals their labels need."""
    span = hi - lo
    if not (span > 0 and pixels > 0):
        return [], 0
    step = nice_ceiling(span * min_px / pixels)
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    first, last = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
    return [round(k * step, decimals) for k in range(first, last + 1)], decimals
