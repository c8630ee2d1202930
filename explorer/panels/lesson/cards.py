"""The lesson's cards: a step of ① ② ③ with its Reveal button, and a guided experiment with its buttons."""
from dataclasses import dataclass
from explorer.widgets.html_escape import escape

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout

from explorer.i18n import translate


def label(text="", role=None):
    """A wrapping rich-text label; ``role`` "zh" or "en" gives the chapter's sentence or its translation a colour."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    if role == "zh":
        label.setStyleSheet("color: #1d232b;")
    elif role == "en":
        label.setStyleSheet("color: #4a5360;")
    return label



@dataclass(frozen=True)
class Frozen:
    """A verdict as it was written when its stage was revealed, and the numbers it judged."""

    guess: tuple
    text: str
    matrix: np.ndarray
    mask: object


class Card(QFrame):
    """One guided experiment: its title, the chapter's sentence, English, live numbers, buttons."""

    def __init__(self, title, zh, en, parent=None):
        super().__init__(parent)
        self.setObjectName("lessonCard")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(4)
        self.title_text = title  # the chapter's Chinese · English
        self.title = label()
        self.zh = label(escape(zh), "zh")
        self.en = label(escape(en), "en")
        self.live = label()
        self.note = label()
        self.note.setVisible(False)
        self.buttons = QHBoxLayout()
        self.setup_button = QPushButton()
        self.buttons.addWidget(self.setup_button)
        self.buttons.addStretch(1)
        for w in (self.title, self.zh, self.en, self.live, self.note):
            layout.addWidget(w)
        layout.addLayout(self.buttons)
        self.note_index = None  # the undo-stack index the note was written for (None: any)

    def say(self, text, index=None):
        """Show ``text`` under the card; with ``index``, only while the undo stack stays at that index."""
        self.note.setText(text)
        self.note.setVisible(bool(text))
        self.note_index = index if text else None


class Step(QFrame):
    """One of ① ② ③: formula, the chapter's sentence, the guess or the verdict, and its Reveal button."""

    def __init__(self, stage, title, formula, zh, en, parent=None):
        super().__init__(parent)
        self.stage = stage
        self.setObjectName("lessonCard")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(4)
        top = QHBoxLayout()
        self.formula = escape(formula).replace(" ", "&nbsp;")  # the formula stays on one line
        self.title = label()
        self.set_title(title)
        self.reveal_button = QPushButton(translate("Lesson", "Reveal {stage}").format(stage=title[0]))
        self.reveal_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        top.addWidget(self.title, 1)
        top.addWidget(self.reveal_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(top)
        self.zh, self.en = label(escape(zh), "zh"), label(escape(en), "en")
        layout.addWidget(self.zh)
        layout.addWidget(self.en)
        self.status = label()
        layout.addWidget(self.status)

    def set_title(self, title):
        self.title.setText(f"<b>{escape(title)}</b> &nbsp; <span style='font-family:serif'>{self.formula}</span>")

