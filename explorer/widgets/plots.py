"""Small pyqtgraph plots for the lesson panels (the √d and RoPE lessons): styled alike, with titles
of one or more centred lines; and a pool of plot items reused from one draw to the next."""
import math

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt

from .plot_cache import cache_axes


TITLE_MARGIN = 8  # pixels the title keeps from the plot's edges


def set_title(plot, html, color):
    """A plot title of one or more lines (``<br>``), each centred, in a title row as tall as the text;
    a line wider than the plot wraps (again whenever the plot is resized) rather than being cut."""
    item = plot.getPlotItem()
    item.setTitle(html, color=color, size="10pt")
    text = item.titleLabel.item
    option = text.document().defaultTextOption()
    option.setAlignment(Qt.AlignmentFlag.AlignHCenter)
    text.document().setDefaultTextOption(option)
    if getattr(plot, "_title_wrap", None) is None:
        plot._title_wrap = _TitleWrap(plot)
    plot._title_wrap.wrap()


class _TitleWrap(QObject):
    """Fits a plot's title to the plot's width: wrapped lines, and a title row as tall as they are."""

    def __init__(self, plot):
        super().__init__(plot)
        self.plot = plot
        plot.installEventFilter(self)

    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Resize:
            self.wrap()
        return False

    def wrap(self):
        item = self.plot.getPlotItem()
        label, text = item.titleLabel, item.titleLabel.item
        text.setTextWidth(-1)
        room = self.plot.width() - item.getAxis("left").width() - 2 * TITLE_MARGIN  # the title spans the view
        text.setTextWidth(min(text.document().idealWidth(), room) if room > 40 else text.document().idealWidth())
        label.resizeEvent(None)
        height = math.ceil(text.boundingRect().height()) + 2
        label.setMaximumHeight(height)
        item.layout.setRowFixedHeight(0, height)


def lesson_plot(parent, fg, bg, title, bottom, left, *, grid_alpha=0.15, min_size=(220, 170), fixed_ticks=False):
    """A still plot (no mouse, no menu, no auto-range buttons) with labelled axes in ``fg`` on ``bg``.

    ``fixed_ticks``: the few ticks the caller sets may all carry text (labels are clipped to the view).
    """
    plot = pg.PlotWidget(parent)
    plot.setBackground(bg)
    item = plot.getPlotItem()
    item.hideButtons()
    item.setMenuEnabled(False)
    item.setMouseEnabled(x=False, y=False)
    item.showGrid(x=True, y=True, alpha=grid_alpha)
    if title:
        set_title(plot, title, fg.name())
    for side, text in (("left", left), ("bottom", bottom)):
        axis = item.getAxis(side)
        axis.setPen(fg)
        axis.setTextPen(fg)
        axis.enableAutoSIPrefix(False)
        if fixed_ticks:
            axis.setStyle(textFillLimits=[(0, 0.9)])
        if text:
            axis.setLabel(text, color=fg.name())
    cache_axes(item)
    plot.setMinimumSize(*min_size)
    return plot


def pooled(plot, items, count, make):
    """``count`` items on ``plot``: the ones already there reused, new ones from ``make()``, extras removed
    (at large sizes the same dozen items are updated on every draw instead of rebuilt)."""
    for item in items[count:]:
        plot.removeItem(item)
    items = items[:count]
    while len(items) < count:
        item = make()
        # added hidden, then shown: an item added visible to an active scene gives the scene focus, and
        # that FocusIn hides any tooltip on screen (one over a heatmap, say, while an undo redraws this)
        item.setVisible(False)
        plot.addItem(item)
        item.setVisible(True)
        items.append(item)
    return items
