"""F24 Query–key space: the shown head's queries and keys on one plane (after AttentionViz)."""
from .panel import QKSpacePanel

__all__ = ["QKSpacePanel"]
