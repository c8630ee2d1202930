"""Which rows and columns of a heatmap are labelled: every one while the labels fit, else every 2nd,
5th, 10th… (ticks on cell centres, the same step for the row labels and the row notes)."""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtGui import QFontMetricsF

from .heatmap_overlays import FLAG
from .nice import nice_step


_WIDTHS_KEPT = 4  # label lists whose widths are remembered (the scores and weights share theirs)
_widths_seen: dict = {}


def label_widths(font, texts: list[str]) -> np.ndarray:
    """The pixel width of each text in ``font`` (read-only), each distinct text measured once; the last
    few lists are remembered, so two heatmaps of the same 4096 tokens measure them once (~20 ms)."""
    key = (font.key(), tuple(texts))
    widths = _widths_seen.get(key)
    if widths is None:
        fm = QFontMetricsF(font)
        measured = {s: fm.horizontalAdvance(s) for s in dict.fromkeys(texts)}
        widths = np.array([measured[s] for s in texts], dtype=float)
        widths.flags.writeable = False
        if len(_widths_seen) >= _WIDTHS_KEPT:
            del _widths_seen[next(iter(_widths_seen))]
        _widths_seen[key] = widths
    return widths


def label_step(widths: np.ndarray, cell_px: float, gap: float) -> int:
    """Smallest nice step at which neighbouring centred labels of these widths do not overlap."""
    step = 1
    while step < len(widths):
        w = widths[::step]
        if np.all((w[:-1] + w[1:]) / 2 + gap <= step * cell_px):
            return step
        step = nice_step(step + 1)
    return step


def cell_ticks(shape, row_labels, col_labels, col_label_px, row_notes, flagged, cell_w, cell_h, line_height):
    """{"left", "top", "right", "bottom": [(index, text)], "notes": whether the right side has texts}
    for cells ``cell_w`` × ``cell_h`` pixels; a flagged row's label starts with ⚠."""
    rows, cols = shape
    row_step = nice_step(math.ceil((line_height + 1) / max(cell_h, 1e-9)))
    col_step = label_step(col_label_px, cell_w, gap=8.0)
    left = [(i, f"{FLAG} {row_labels[i]}" if flagged is not None and flagged[i] else row_labels[i])
            for i in range(0, rows, row_step)]
    right = [(i, row_notes[i] if row_notes is not None else "") for i in range(0, rows, row_step)]
    columns = range(0, cols, col_step)
    return {"left": left, "top": [(j, col_labels[j]) for j in columns], "right": right,
            "bottom": [(j, "") for j in columns], "notes": row_notes is not None}
