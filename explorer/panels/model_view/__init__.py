"""Model · real heads: a real model's every layer and head, and what it says next with an edited head."""
from .panel import ModelViewPanel

__all__ = ["ModelViewPanel"]
