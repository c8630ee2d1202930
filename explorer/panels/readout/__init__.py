"""F4 Readout: the selected query row's output O_i, read as each key's share (bars) and as a point in V's hull."""
from .colours import key_colour
from .panel import PLOT_MIN_HEIGHT, ReadoutPanel
from .plane_labels import STAR_PX

__all__ = ["PLOT_MIN_HEIGHT", "STAR_PX", "ReadoutPanel", "key_colour"]
