"""Which rows and columns of a heatmap are labelled, and how: every column label lying while they all fit,
else every one standing up while a line of text fits in a cell (in a band as tall as the longest, up to a
cap), else every 2nd, 5th, 10th… lying plus each one that still fits between its shown neighbours (one long
token does not hide its short neighbours); ticks on cell centres, the same step for row labels and notes."""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtGui import QFontMetricsF

from .label_axis import FLAG, standing_length
from .nice import nice_step

LABEL_GAP = 8.0  # px between neighbouring column labels
UPRIGHT_GAP = 4.0  # px at least between neighbouring standing labels
UPRIGHT_LINES = (2, 6)  # a standing label's band: at least 2 and at most 6 line heights…
UPRIGHT_SHARE = 0.25  # …and (above the least) this share of the heatmap's height, or what rows can spare


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


def fitting_columns(widths, cell_px: float, gap: float, step: int) -> list[int]:
    """Every ``step``-th column, and, left to right, each other one on the step labels of the median width
    would take whose label keeps ``gap`` pixels from those shown on either side (labels alike keep one
    even step)."""
    n = len(widths)
    ranked = sorted(float(x) for x in widths)  # (not np.median: it imports numpy.ma, ~30 ms of start-up)
    median = (ranked[(n - 1) // 2] + ranked[n // 2]) / 2 if n else 0.0
    fine = label_step(np.full(n, median), cell_px, gap) if n else 1
    if fine >= step:
        return list(range(0, n, step))
    w = [float(x) for x in widths]
    columns, last = [], None
    for j in sorted({*range(0, n, fine), *range(0, n, step)}):
        if j % step:
            right = j + step - j % step
            if ((last is None or (w[last] + w[j]) / 2 + gap <= (j - last) * cell_px)
                    and (right >= n or (w[j] + w[right]) / 2 + gap <= (right - j) * cell_px)):
                columns.append(j)
                last = j
        else:
            columns.append(j)
            last = j
    return columns


def upright_cap(line_height: float, height: float, spare: float = 0.0) -> float:
    """The tallest band standing column labels may take in a heatmap ``height`` pixels tall (longer ones are cut):
    a share of it, or the ``spare`` pixels the matrix can give up and keep every row label, if more."""
    least, most = UPRIGHT_LINES
    return max(least * line_height, min(most * line_height, max(UPRIGHT_SHARE * height, spare)))


def labelled_rows(rows: int, step: int, selected: int | None = None) -> list[int]:
    """Every ``step``-th row, and the ``selected`` one in place of those too close to it to be read beside it."""
    shown = list(range(0, rows, step))
    if selected is None or not 0 <= selected < rows or step == 1 or selected % step == 0:
        return shown
    return sorted([i for i in shown if abs(i - selected) >= step] + [selected])


def cell_ticks(shape, row_labels, col_labels, col_label_px, row_notes, flagged, cell_w, cell_h, line_height,
               thickness=None, cap=math.inf, selected_row=None):
    """{"left", "top", "right", "bottom": [(index, text)], "notes": whether the right side has texts, "upright":
    the band the column labels stand in (None: they lie)} for cells ``cell_w`` × ``cell_h`` pixels; a flagged
    row's label starts with ⚠; ``thickness``: how wide a standing line's ink is (default ``line_height``);
    ``cap``: the tallest band (``upright_cap``); ``selected_row`` is labelled where rows are labelled one in a few."""
    rows, cols = shape
    row_step = nice_step(math.ceil((line_height + 1) / max(cell_h, 1e-9)))
    step = label_step(col_label_px, cell_w, LABEL_GAP)
    upright = None
    if step == 1 or len(col_label_px) != cols:
        columns = range(0, cols, step)
    elif cell_w >= (line_height if thickness is None else thickness) + UPRIGHT_GAP:
        columns = range(cols)
        tallest = max(standing_length(col_labels[j], float(col_label_px[j])) for j in range(cols))
        upright = float(min(math.ceil(tallest) + 1, math.floor(cap)))
    else:
        columns = fitting_columns(col_label_px, cell_w, LABEL_GAP, step)
    shown_rows = labelled_rows(rows, row_step, selected_row)
    left = [(i, f"{FLAG} {row_labels[i]}" if flagged is not None and flagged[i] else row_labels[i]) for i in shown_rows]
    right = [(i, row_notes[i] if row_notes is not None else "") for i in shown_rows]
    return {"left": left, "top": [(j, col_labels[j]) for j in columns], "right": right,
            "bottom": [(j, "") for j in columns], "notes": row_notes is not None, "upright": upright}


def is_cut(ticks, label: str, width: float) -> bool:
    """Whether column label ``label`` (``width`` pixels lying) is cut short (…) with these ``cell_ticks``."""
    band = ticks.get("upright")
    return band is not None and standing_length(label, width) + 1 > band


def show_ticks(plot, ticks) -> None:
    """Hand ``cell_ticks``' ticks to the plot's four axes (the top one standing its labels up or not)."""
    top = plot.getAxis("top")
    top.setTicks([ticks["top"], []])
    top.set_upright(ticks["upright"])
    plot.getAxis("left").setTicks([ticks["left"], []])
    plot.getAxis("right").setStyle(showValues=ticks["notes"])
    plot.getAxis("right").setTicks([ticks["right"], []])
    plot.getAxis("bottom").setTicks([ticks["bottom"], []])
