"""The shared model: state, undo commands and the recompute that feeds every panel."""
from .attention_model import ALL_STAGES, LESSON, SELECTION, SETTINGS, STRUCTURE, VALUES, AttentionModel

__all__ = ["ALL_STAGES", "AttentionModel", "LESSON", "SELECTION", "SETTINGS", "STRUCTURE", "VALUES"]
