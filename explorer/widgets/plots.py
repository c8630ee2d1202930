"""Small pyqtgraph plots for the lesson panels (the √d and RoPE lessons): styled alike, with titles
of one or more centred lines; and a pool of plot items reused from one draw to the next."""
import math
import re

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QTextCursor

from .plot_cache import cache_axes


TITLE_MARGIN = 8  # pixels the title keeps from the plot's edges
# a space beside an operator ("m − n", "d_h = 4", "q · k"): never a place to wrap a formula
_OPERATOR_SPACES = re.compile(r"(?<=\S)( )[−=·×→+÷≡]( )(?=\S)")


def unbreakable_spaces(line):
    """Where ``line`` (one line of a title, as plain text) must not wrap: the spaces beside an operator and the
    space before its last word — a wrapped title never leaves "n" of "m − n", or a last word, alone on a line."""
    spaces = {m.start(k) for m in _OPERATOR_SPACES.finditer(line) for k in (1, 2)}
    last = line.rstrip().rfind(" ")
    if last > 0:
        spaces.add(last)
    return sorted(spaces)


def set_title(plot, html, color):
    """A plot title of one or more lines (``<br>``), each centred, in a title row as tall as the text;
    a line wider than the plot wraps (again whenever the plot is resized) rather than being cut, each into
    lines of even length (and never where ``unbreakable_spaces`` says it does not)."""
    item = plot.getPlotItem()
    item.setTitle(html, color=color, size="10pt")
    text = item.titleLabel.item
    document = text.document()
    option = document.defaultTextOption()
    option.setAlignment(Qt.AlignmentFlag.AlignHCenter)
    document.setDefaultTextOption(option)
    found = document.find("\u2028")  # each line a paragraph of its own: each then wraps evenly
    while not found.isNull():
        found.removeSelectedText()
        found.insertBlock()
        found = document.find("\u2028", found)
    for paragraph in _paragraphs(document):  # (the document only: the title's text stays as given)
        for at in unbreakable_spaces(paragraph.text()):
            space = QTextCursor(paragraph)
            space.setPosition(paragraph.position() + at)
            space.movePosition(QTextCursor.MoveOperation.NextCharacter, QTextCursor.MoveMode.KeepAnchor)
            space.insertText("\u00a0", space.charFormat())
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
        paragraphs = _paragraphs(text.document())
        for paragraph in paragraphs:
            _narrow(paragraph, 0.0)
        text.setTextWidth(-1)
        room = self.plot.width() - item.getAxis("left").width() - 2 * TITLE_MARGIN  # the title spans the view
        ideal = text.document().idealWidth()
        width = min(ideal, room) if room > 40 else ideal
        text.setTextWidth(width)
        if width < ideal:  # it wraps: each wrapped paragraph as narrow as it can be in as many lines (even lines)
            for paragraph in paragraphs:
                _evenly(text.document(), paragraph, width)
        label.resizeEvent(None)
        height = math.ceil(text.boundingRect().height()) + 2
        label.setMaximumHeight(height)
        item.layout.setRowFixedHeight(0, height)


def _paragraphs(document):
    blocks, block = [], document.begin()
    while block.isValid():
        blocks.append(block)
        block = block.next()
    return blocks


def _narrow(paragraph, margin):
    """Indent ``paragraph`` (a QTextBlock) by ``margin`` px on both sides."""
    form = paragraph.blockFormat()
    if form.leftMargin() != margin or form.rightMargin() != margin:
        form.setLeftMargin(margin)
        form.setRightMargin(margin)
        QTextCursor(paragraph).setBlockFormat(form)


def _lines(document, paragraph):
    document.documentLayout().blockBoundingRect(paragraph)  # (laid out again first, if it must be)
    return paragraph.layout().lineCount()


def _evenly(document, paragraph, width):
    """Narrow a paragraph wrapped at ``width`` to the least width at which it takes no more lines (to a pixel):
    its lines then come out of even length, none a word or two left alone."""
    lines = _lines(document, paragraph)
    if lines < 2:
        return
    low, high = width / 2, width
    while high - low > 1:
        middle = (low + high) / 2
        _narrow(paragraph, (width - middle) / 2)
        if _lines(document, paragraph) <= lines:
            high = middle
        else:
            low = middle
    _narrow(paragraph, (width - high) / 2)


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
