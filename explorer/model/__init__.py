"""The shared model: state, undo commands and the recompute that feeds every panel."""
from .attention_model import SELECTION, SETTINGS, STRUCTURE, VALUES, AttentionModel

__all__ = ["AttentionModel", "SELECTION", "SETTINGS", "STRUCTURE", "VALUES"]
