"""Attention Explorer: edit the numbers of the attention mechanism and watch every stage recompute."""

__version__ = "0.1.0"
