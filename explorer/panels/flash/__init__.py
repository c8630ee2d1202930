"""F23 FlashAttention's online softmax, stepped tile by tile for the shown head."""
from .panel import FlashAttentionPanel

__all__ = ["FlashAttentionPanel"]
