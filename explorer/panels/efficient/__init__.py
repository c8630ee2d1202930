"""F18 Efficient attention: the L² bill's money-saving schools on the session's shown head."""
from .panel import EfficientPanel

__all__ = ["EfficientPanel"]
