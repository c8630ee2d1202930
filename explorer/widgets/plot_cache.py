"""Axes painted once and then blitted: a whole-window repaint otherwise replays every axis's text."""
from contextlib import contextmanager

import pyqtgraph as pg
from PySide6.QtWidgets import QGraphicsItem


def cache_axes(*plots):
    """Give every axis of these PlotItems (and colour bars) a device-pixel cache.

    An axis redraws its cache only when its ticks, labels or size change (pyqtgraph calls
    ``update()`` then), so an edit that changes only the image repaints no text.
    """
    for plot in plots:
        axes = plot.axes.values() if isinstance(plot, pg.PlotItem) else [plot.axis]
        for entry in axes:
            axis = entry["item"] if isinstance(entry, dict) else entry
            axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)


@contextmanager
def axes_as_vectors(widget):
    """Paint axes without their cache inside (an SVG export wants text and lines, not pixmaps)."""
    cached = [item for view in widget.findChildren(pg.GraphicsView) for item in view.scene().items()
              if isinstance(item, pg.AxisItem)
              and item.cacheMode() != QGraphicsItem.CacheMode.NoCache]
    for item in cached:
        item.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    try:
        yield
    finally:
        for item in cached:
            item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
