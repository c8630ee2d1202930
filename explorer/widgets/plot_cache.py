"""Axes painted once and then blitted: a whole-window repaint otherwise replays every axis's text."""
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
