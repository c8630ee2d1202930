"""A labelled matrix heatmap: fixed colour levels, hatched masked cells, values in cells, hover/click.

Generic (rows, columns, labels, numbers; nothing of attention). Built as pyqtgraph's
MatrixDisplayExample: one row-major ImageItem, shifted by half a cell in a Y-inverted plot, so cell
(i, j) is centred at view point (x=j, y=i) and ticks sit on cell centres; a ColourBar follows the
levels. Overlays (mask, texts, outlines: ``heatmap_overlays``) are single items whose cost does not
grow with item count; the pointer (hover, tooltips, clicks) is ``heatmap_pointer``'s.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Signal
from PySide6.QtGui import QFontMetricsF, QPalette

from explorer.core.pooling import block_extreme, blocks_for
from explorer.widgets.lean_image import LeanImageItem
from explorer.widgets.colour_bar import ColourBar
from explorer.widgets.lean_plot import LeanPlotItem, held_labels
from explorer.widgets.plot_cache import cache_axes

from .cell_text import MAX_CELLS, MIN_CELL_H, MIN_CELL_W, CellTextItem, contrast_is_white
from .palette import CMAPS, colour_map
from .heatmap_overlays import MASK_FILL, MaskOverlay, OutlineOverlay
from .heatmap_pointer import HeatmapPointer
from .heatmap_ticks import cell_ticks, label_widths, show_ticks, upright_cap
from .label_axis import LabelAxis, line_ink

MAX_CELL_ASPECT = 2.0  # cells fill the view but are never more than 2:1 (readability first)
MIN_PLOT_H = 160.0  # the matrix (and so the colour bar) is never squeezed below this height
LAYOUT_MARGIN = 6.0
NOTES_SLACK = 4.0  # px to spare before hidden row notes come back (see Heatmap._notes_fit)


def _spread_levels(lo: float, hi: float) -> tuple[float, float]:
    """Equal levels (e.g. all-zero scores) widened around the value, so nothing divides by zero."""
    d = max(abs(lo), 1.0)
    return (lo, hi) if hi > lo else (lo - d, hi + d)


def _same_flags(a, b) -> bool:
    """Two flagged-row arrays (or None) flag the same rows."""
    return a is b or (a is not None and b is not None and np.array_equal(a, b))


def _ink(widget):
    """The text colour of an enabled widget, also while this one is disabled (under a loading cover):
    a title set then would otherwise keep the disabled grey for good."""
    return widget.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.WindowText)


class Heatmap(HeatmapPointer, pg.GraphicsLayoutWidget):
    """A labelled matrix heatmap with fixed levels, a colour bar, masked cells, hover and click.

    Cell (row i, col j) is centred at view point (x=j, y=i); row 0 is at the top.
    """

    cellHovered = Signal(int, int)  # (-1, -1) when the pointer leaves the matrix
    cellClicked = Signal(int, int)

    def __init__(
        self,
        parent=None,
        *,
        cmap: str = "sequential",
        colorbar_label: str = "",
        row_title: str = "",
        col_title: str = "",
        masked_text: str = "−∞",
        cell_format: Callable[[float, float], str] | None = None,
    ):
        """``cell_format(value, largest |value|)``: a cell's printed text (default: ``cell_text.format_value``)."""
        super().__init__(parent)
        if cmap not in CMAPS:
            raise ValueError(f"cmap must be one of {sorted(CMAPS)}, got {cmap!r}")
        self.tooltip_provider: Callable[[int, int], str] | None = None
        self._shape = (0, 0)
        self._values = np.zeros((0, 0))
        self._display = np.zeros((0, 0))
        self._overview = None
        self._stride = None  # (rows, cols) between the cells handed to the image
        self._placed = None  # (image shape, width, height in cells) the image was stretched over
        # Asked before re-sampling the matrix after a resize: False while its owner rewrites it.
        self.image_valid: Callable[[], bool] | None = None
        self._masked: np.ndarray | None = None
        self._row_labels: list[str] = []
        self._col_labels: list[str] = []
        self._row_source = self._col_source = None  # the label tuples last given (their texts: the lists)
        self._row_notes: list[str] | None = None
        self._flagged: np.ndarray | None = None
        self._col_label_px = np.zeros(0)  # pixel width of each column label
        self._hover = (-1, -1)
        self._tooltip_text = ""  # the hovered cell's tooltip, shown again when Qt asks for it
        self._extra = (0.0, 0.0)  # layout margin added left/right and top/bottom by _fit_view
        self._ticks: dict[str, list[tuple[int, str]]] = {"left": [], "top": [], "right": []}

        fg = _ink(self)
        self.setBackground(self.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.Base))
        self.ci.setContentsMargins(*(LAYOUT_MARGIN,) * 4)

        axes = {side: LabelAxis(side, pen=fg, textPen=fg) for side in ("left", "top", "right", "bottom")}
        self.plot = LeanPlotItem(axisItems=axes)  # no menus to build: ~5 ms each at start-up
        self.addItem(self.plot)
        self.plot.hideButtons()
        self.plot.setMouseEnabled(x=False, y=False)
        vb = self.plot.getViewBox()
        vb.invertY(True)
        vb.setDefaultPadding(0.0)
        vb.disableAutoRange()
        with held_labels(axes.values()):
            for side, axis in axes.items():
                self.plot.showAxis(side)
                axis.setStyle(tickLength=4, showValues=side != "bottom", autoExpandTextSpace=True,
                              hideOverlappingLabels=40)
                axis.enableAutoSIPrefix(False)
                axis.setTicks([[], []])
            axes["bottom"].setHeight(4)
            axes["right"].setStyle(showValues=False)
            self.plot.setLabel("left", row_title, color=fg.name())
            self.plot.setLabel("top", col_title, color=fg.name())

        self.image_item = LeanImageItem(axisOrder="row-major")  # coloured into 32 bits: drawn 5× faster
        self.plot.addItem(self.image_item)
        self._mask_item = MaskOverlay()
        self._text_item = CellTextItem(masked_text, MASK_FILL, cell_format)
        self._outline_item = OutlineOverlay()
        for z, item in enumerate((self._mask_item, self._text_item, self._outline_item), start=1):
            item.setZValue(z)
            self.plot.addItem(item, ignoreBounds=True)

        colormap = colour_map(cmap)
        self._lut = colormap.getLookupTable(nPts=256, alpha=False)  # (256, 3) uint8
        self._white_text = contrast_is_white(self._lut)  # per colour of the map: white numbers read better
        self._white_on_mask = bool(contrast_is_white(
            np.array([[MASK_FILL.red(), MASK_FILL.green(), MASK_FILL.blue()]], dtype=np.uint8))[0])
        self.colorbar = ColourBar(colormap, width=14, pen=fg)
        self.plot.layout.addItem(self.colorbar, 2, 5)  # beside the right axis, as tall as the matrix
        cache_axes(self.plot, self.colorbar)
        self.plot.layout.setColumnFixedWidth(4, 12)  # space between row notes and colour bar
        self.colorbar.axis.setLabel(colorbar_label, color=fg.name())
        self.image_item.setLookupTable(self._lut)

        vb.sigResized.connect(self._relayout)
        self.scene().sigMouseClicked.connect(self._on_mouse_clicked)

    # ---- data -------------------------------------------------------------------------------
    def set_matrix(
        self,
        values,
        *,
        row_labels: Sequence[str],
        col_labels: Sequence[str],
        levels: tuple[float, float],
        masked=None,
        row_notes: Sequence[str] | None = None,
        flagged_rows=None,
        finite: bool = False,
        overview=None,
    ) -> None:
        """Show ``values`` (rows, cols) coloured on fixed ``levels``; ``masked`` True = hatched grey.

        Non-finite values are drawn clipped (−∞ and NaN at the low end, +∞ at the high end);
        ``finite=True`` says the caller knows there are none (saves two passes over 16 M cells).
        ``overview``: the matrix pooled to about screen size, each block its extreme value (made off the
        GUI thread): a matrix larger than the screen is drawn from it, so a one-cell-wide line survives
        where sampling every k-th cell would drop it.
        """
        v = np.asarray(values)  # no copy: at L = 4096 a float64 copy is 128 MiB and ~0.3 s of page faults
        if v.dtype.kind not in "f":
            v = v.astype(np.float64)
        if v.ndim != 2 or v.size == 0:
            raise ValueError(f"values must be a non-empty 2-D array (rows, cols), got shape {v.shape}")
        rows, cols = v.shape
        if len(row_labels) != rows or len(col_labels) != cols:
            raise ValueError(
                f"{len(row_labels)} row labels and {len(col_labels)} column labels for a {rows}×{cols} matrix"
            )
        if row_notes is not None and len(row_notes) != rows:
            raise ValueError(f"{len(row_notes)} row notes for {rows} rows")
        lo, hi = float(levels[0]), float(levels[1])
        if not (math.isfinite(lo) and math.isfinite(hi)) or hi < lo:
            raise ValueError(f"levels must be finite with lo <= hi, got {levels!r}")
        lo, hi = _spread_levels(lo, hi)
        m = None
        if masked is not None:
            m = np.asarray(masked, dtype=bool)
            if m.shape != v.shape:
                raise ValueError(f"mask shape {m.shape} differs from values shape {v.shape}")
        flagged = None
        if flagged_rows is not None:
            flagged = np.array(flagged_rows, dtype=bool).reshape(-1)
            if flagged.shape != (rows,):
                raise ValueError(f"flagged_rows has {flagged.size} entries for {rows} rows")

        if finite or math.isfinite(float(v.min())) and math.isfinite(float(v.max())):  # NaN, ±∞ reach the extremes
            display = v
        else:
            display = np.where(np.isfinite(v), v, np.where(v > 0, hi, lo))
        self._values, self._display, self._masked = v, display, m
        self._overview = None if overview is None else np.asarray(overview)
        self._stride = None
        self._show_image((lo, hi))
        if tuple(self.colorbar.levels()) != (lo, hi):  # (pyqtgraph redoes the bar's axis text on every call)
            self.colorbar.setLevels((lo, hi))
        # Colour the pixels now, while the owner vouches for the numbers: the image is a view of
        # arrays a background recompute may later rewrite, and a paint would otherwise read them then.
        self.image_item.render()
        self._mask_item.set_mask(m if m is not None and m.any() else None, (rows, cols), self._stride)

        white = None
        if v.size <= MAX_CELLS:
            idx = np.clip(np.floor((display - lo) * (256.0 / (hi - lo))), 0, 255).astype(np.intp)
            white = self._white_text[idx]  # the colour each cell is painted, as the image colours it
            if m is not None:
                white[m] = self._white_on_mask
        self._text_item.set_data(v, m, white)

        # Labels, notes and flags are the same from one edit to the next: the ticks made from them
        # (and the layout they size) are left alone then; a resize re-makes them (``_relayout``).
        ticks_changed = (rows, cols) != self._shape
        if not (isinstance(row_labels, tuple) and row_labels is self._row_source):  # a tuple cannot change
            row_texts = [str(s) for s in row_labels]
            ticks_changed |= row_texts != self._row_labels
            self._row_labels, self._row_source = row_texts, row_labels
        if not (isinstance(col_labels, tuple) and col_labels is self._col_source):
            col_texts = [str(s) for s in col_labels]
            if col_texts != self._col_labels:
                self._col_label_px = label_widths(self.font(), col_texts)
                ticks_changed = True
            self._col_labels, self._col_source = col_texts, col_labels
        notes = None if row_notes is None else [str(s) for s in row_notes]
        ticks_changed |= notes != self._row_notes or not _same_flags(flagged, self._flagged)
        self._row_notes, self._flagged = notes, flagged
        if (rows, cols) != self._shape:
            self._shape = (rows, cols)
            self._outline_item.set_shape(self._shape)
            self._set_hover(-1, -1)
            self._fit_view()
        if ticks_changed:
            self._update_ticks()
        self.refresh_tooltip()

    def _show_image(self, levels=None) -> bool:
        """Hand pyqtgraph every cell, or at most ~2 per screen pixel when the matrix is larger;
        True if a new image was handed over (its pixels are then still to be coloured).

        Drawing a 4096² image into 500 pixels samples it anyway (nearest neighbour); sampling first
        shows the same picture without colouring 16 M cells on every change (~40 ms each at L = 4096).
        """
        rows, cols = self._display.shape
        vb = self.plot.getViewBox()
        ratio = self.devicePixelRatioF()
        stride = (max(1, math.ceil(rows / max(2.0 * vb.height() * ratio, 2.0 * MIN_PLOT_H))),
                  max(1, math.ceil(cols / max(2.0 * vb.width() * ratio, 2.0 * MIN_PLOT_H))))
        if stride == self._stride and levels is None:
            return False
        self._stride = stride
        self._mask_item.set_stride(stride)
        fy, fx = stride
        want = (max(1, rows // fy), max(1, cols // fx))
        o = self._overview
        if (fy > 1 or fx > 1) and o is not None and o.shape[0] >= want[0] and o.shape[1] >= want[1]:
            image = block_extreme(o, *blocks_for(o.shape, want))  # every block's extreme: no thin line dropped
            self.image_item.set_finite_image(image, levels or self.image_item.getLevels())
            self._place(image.shape, cols, rows)
            return True
        image = self._display[::fy, ::fx]
        self.image_item.set_finite_image(image, levels or self.image_item.getLevels())
        # each sample covers the fy × fx cells it starts, so cell (i, j) stays centred on (j, i)
        self._place(image.shape, image.shape[1] * fx, image.shape[0] * fy)
        return True

    def _place(self, shape, width, height) -> None:
        """Stretch an image of ``shape`` over ``width`` × ``height`` cells (unless it is there already)."""
        if (shape, width, height) != self._placed:
            self._placed = (shape, width, height)
            self.image_item.setRect(QRectF(-0.5, -0.5, width, height))

    def image_array(self) -> np.ndarray:
        """The float array the image shows (non-finite values already clipped to the levels)."""
        return self._display

    def masked_array(self) -> np.ndarray | None:
        """The bool mask last given (True = masked), or None."""
        return self._masked

    def levels(self) -> tuple[float, float]:
        """The levels in use (equal levels come back widened)."""
        return tuple(self.colorbar.levels())

    def ticks(self, side: str) -> list[tuple[int, str]]:
        """The (index, text) ticks shown on "left" (row labels), "top" (column labels) or "right" (notes)."""
        return list(self._ticks[side])

    def set_highlight(self, cells: Sequence[tuple[int, int]]) -> None:
        """Outline these cells (e.g. the true maximum of a row); an empty list clears."""
        rows, cols = self._shape
        cells = [(int(r), int(c)) for r, c in cells if 0 <= r < rows and 0 <= c < cols]
        if cells != self._outline_item.cells:  # (every edit moves the history, which re-sets the outline)
            self._outline_item.cells = cells
            self._outline_item.update()

    def set_marks(self, cells: Sequence[tuple[int, int]]) -> None:
        """Ring these cells (e.g. each row's strongest key: an alignment); an empty list clears."""
        rows, cols = self._shape
        marks = [(int(r), int(c)) for r, c in cells if 0 <= r < rows and 0 <= c < cols]
        if marks != self._outline_item.marks:
            self._outline_item.marks = marks
            self._outline_item.update()

    def set_titles(self, row_title: str, col_title: str) -> None:
        """Name what the rows and the columns are (left and top axis titles)."""
        fg = _ink(self)
        self.plot.setLabel("left", row_title, color=fg.name())
        self.plot.setLabel("top", col_title, color=fg.name())

    def set_hidden(self, hidden: bool) -> None:
        """Hide the colours and values but keep the labelled grid (to guess before a reveal)."""
        for item in (self.image_item, self._text_item, self._mask_item):
            item.setVisible(not hidden)
        self.colorbar.setVisible(not hidden)
        self.refresh_tooltip()

    def is_hidden(self) -> bool:
        return not self.image_item.isVisible()

    def set_selected_row(self, row: int | None) -> None:
        """Outline a whole row, or none."""
        row = None if row is None or not 0 <= row < self._shape[0] else int(row)
        if row != self._outline_item.row:
            self._outline_item.row = row
            self._outline_item.update()
            self._update_ticks()  # (where rows are labelled one in a few, the selected one is labelled too)

    # ---- geometry ---------------------------------------------------------------------------
    def cell_center(self, row: int, col: int) -> QPointF:
        """Centre of a cell in viewport (= widget) pixel coordinates, e.g. for qtbot or grab()."""
        scene = self.plot.getViewBox().mapViewToScene(QPointF(col, row))
        return self.viewportTransform().map(scene)

    def cell_at(self, pos: QPointF) -> tuple[int, int]:
        """The (row, col) under a viewport pixel position, or (-1, -1) outside the matrix."""
        return self._cell_at_scene(self.mapToScene(pos.toPoint()))

    def _cell_at_scene(self, scene_pos: QPointF) -> tuple[int, int]:
        vb = self.plot.getViewBox()
        rows, cols = self._shape
        if rows == 0 or not vb.sceneBoundingRect().contains(scene_pos):
            return (-1, -1)
        p = vb.mapSceneToView(scene_pos)
        r, c = math.floor(p.y() + 0.5), math.floor(p.x() + 0.5)
        return (r, c) if 0 <= r < rows and 0 <= c < cols else (-1, -1)

    def _relayout(self, *_) -> None:
        self._fit_view()
        self._update_ticks()
        if self._display.size and (self.image_valid is None or self.image_valid()):
            if self._show_image() or self.image_item.qimage is None:  # else its pixels are current
                self.image_item.render()

    def _fit_view(self) -> None:
        """Show the whole matrix filling the view, but never with cells that print their numbers
        stretched beyond 2:1 (cells too small for a number fill the view whatever their shape).

        The surplus goes to the layout margins (not to blank view range), so the axes, ticks and
        colour bar hug the matrix; the matrix stays at least MIN_PLOT_H tall for the colour bar.
        """
        vb = self.plot.getViewBox()
        rows, cols = self._shape
        ex_h, ex_v = self._extra
        avail_w, avail_h = vb.width() + 2 * ex_h, vb.height() + 2 * ex_v
        if rows == 0 or avail_w <= 0 or avail_h <= 0:
            return
        cw, ch = avail_w / cols, avail_h / rows
        new_h = new_v = 0.0
        if ch < MIN_CELL_H or cw < MIN_CELL_W:
            pass  # cells too small to print a number (L = 1024 × d = 64): the matrix takes the whole view
        elif cw > MAX_CELL_ASPECT * ch:
            new_h = (avail_w - cols * MAX_CELL_ASPECT * ch) / 2
        elif ch > MAX_CELL_ASPECT * cw:
            new_v = max(0.0, (avail_h - max(rows * MAX_CELL_ASPECT * cw, min(avail_h, MIN_PLOT_H))) / 2)
        if abs(new_h - ex_h) > 0.5 or abs(new_v - ex_v) > 0.5:
            self._extra = (new_h, new_v)
            m = LAYOUT_MARGIN
            self.ci.setContentsMargins(m + new_h, m + new_v, m + new_h, m + new_v)
        vb.setRange(xRange=(-0.5, cols - 0.5), yRange=(-0.5, rows - 0.5), padding=0)

    def _update_ticks(self) -> None:
        """Ticks on cell centres: every column label, standing up when lying they would overlap, else a
        subset (every 2nd, 5th, 10th, ...) when even standing they would not fit."""
        if self._shape[0] == 0:
            return
        vb, fm = self.plot.getViewBox(), QFontMetricsF(self.font())
        (x0, x1), (y0, y1) = vb.viewRange()
        cell_w, cell_h = vb.width() / max(x1 - x0, 1e-9), vb.height() / max(y1 - y0, 1e-9)
        line = fm.height()  # (the height standing labels may take and still leave every row its label:)
        spare = vb.height() + 2 * self._extra[1] + self.plot.getAxis("top").textHeight - self._shape[0] * (line + 1)
        notes = self._row_notes if self._notes_fit(cell_w, cell_h) else None
        ticks = cell_ticks(self._shape, self._row_labels, self._col_labels, self._col_label_px, notes,
                           self._flagged, cell_w=cell_w, cell_h=cell_h, line_height=line,
                           thickness=line_ink(fm).height(), cap=upright_cap(line, self.height(), spare),
                           selected_row=self._outline_item.row)
        if ticks != self._ticks:  # (setting them again would make every axis regenerate its picture)
            self._ticks = ticks
            show_ticks(self.plot, ticks)

    def _notes_fit(self, cell_w: float, cell_h: float) -> bool:
        """Whether the row notes (②'s "Σ=1.000") keep their column beside the matrix: not where the width they
        take would print the cells' numbers smaller (② at 1024 × 640: 9 px beside ①'s 14; its caption says
        that each row sums to 1). Decided from the width the matrix and the notes share, whichever is shown."""
        if self._row_notes is None:
            return False
        axis, cols = self.plot.getAxis("right"), self._shape[1]
        notes_w = float(np.max(label_widths(self.font(), self._row_notes), initial=0.0)) + axis.style["tickTextOffset"][0]
        shown = bool(self._ticks.get("notes"))
        room = cell_w * cols + 2 * self._extra[0] + (notes_w if shown else 0.0)
        # shown again only with a few pixels to spare: the notes' measured width is not quite their column's
        slack = 0.0 if shown else NOTES_SLACK
        with_notes = self._text_item.text_px((room - notes_w - slack) / cols, cell_h)
        return with_notes >= self._text_item.text_px(room / cols, cell_h)
