"""Generation · KV cache: the decode stepper panel."""
from .panel import GenerationPanel

__all__ = ["GenerationPanel"]
