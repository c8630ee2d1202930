"""F7 The step-through lesson: ① → ② → ③ with guess-then-reveal, the chapter's four guided experiments, live checks."""
from .panel import LessonPanel
from .texts import NOT_DEMO
from .wording import weight_texts

__all__ = ["NOT_DEMO", "LessonPanel", "weight_texts"]
