"""Axes painted once and then blitted: a whole-window repaint otherwise replays every axis's text."""
import weakref
from contextlib import contextmanager
from functools import partial

import pyqtgraph as pg
from PySide6.QtWidgets import QGraphicsItem
from shiboken6 import isValid


def cache_axes(*plots):
    """Give every axis of these PlotItems (and colour bars) a device-pixel cache.

    An axis redraws its cache only when its ticks, labels or size change (pyqtgraph calls
    ``update()`` then), so an edit that changes only the image repaints no text. A resized axis
    starts a new cache: Qt would repaint only the area the resize exposed and keep the rest of the
    old pixels, labels beside the rows of the old size (seen in the Heads panel's floating dock).
    """
    for plot in plots:
        axes = plot.axes.values() if isinstance(plot, pg.PlotItem) else [plot.axis]
        for entry in axes:
            axis = entry["item"] if isinstance(entry, dict) else entry
            axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            axis.geometryChanged.connect(partial(_new_cache_if_resized, weakref.ref(axis)))


def _new_cache_if_resized(ref):
    axis = ref()
    if axis is None or not isValid(axis):  # an axis replaced by another (setAxisItems) says so as it goes
        return
    size = axis.size().toTuple()
    if axis.__dict__.get("_cached_size") != size:
        axis.__dict__["_cached_size"] = size
        if axis.cacheMode() != QGraphicsItem.CacheMode.NoCache:  # not while painted as vectors (SVG)
            axis.setCacheMode(QGraphicsItem.CacheMode.NoCache)  # drops the old pixels
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
