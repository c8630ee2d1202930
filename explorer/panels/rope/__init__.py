"""F9 The RoPE visualizer: q and k of one head, pair by pair, turned by their positions."""
from .panel import RopePanel
from .plots import OFFSET_SPAN

__all__ = ["OFFSET_SPAN", "RopePanel"]
