"""The matrix editor (F2): Q, K, V or X and the W, typed, scrubbed and pasted; tokens and dimensions added or
removed by its edit buttons."""
from .panel import EditorPanel

__all__ = ["EditorPanel"]
