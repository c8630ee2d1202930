"""The shared model: state, undo commands and the recompute that feeds every panel."""
from .attention_model import AttentionModel
from .flags import DECODE, LESSON, SELECTION, SETTINGS, STRUCTURE, VALUES
from .lesson_state import ALL_STAGES
from .outcome import Refusal

__all__ = ["ALL_STAGES", "DECODE", "AttentionModel", "LESSON", "Refusal", "SELECTION", "SETTINGS", "STRUCTURE", "VALUES"]
