"""Where a person writes or loads the sentences the corpus view places: one per line, a .txt file, a colouring."""
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (QComboBox, QFileDialog, QLabel, QPlainTextEdit, QPushButton, QSizePolicy,
                               QToolButton, QVBoxLayout, QWidget)

from explorer.i18n import translate
from explorer.widgets.html_escape import escape
from explorer.widgets.palette import BAD
from explorer.widgets.wrap_row import WrapRow

# words the shipped tiny model knows (lower case): a previous-token head and an induction head show on them
SAMPLE = ("the cat sat on the mat\n"
          "the dog ran to the door\n"
          "the cat sat on the mat and the dog ran to the door\n"
          "the dog sat on the mat the dog sat on the mat")
LINES_SHOWN = 3  # the box scrolls beyond: the plot keeps the dock's height
BY_POSITION, BY_SIDE = "position", "side"


class SentencesBox(QWidget):
    """``place(text)`` when Place is pressed, ``load(path)`` when a file is chosen, ``colouring(which)``."""

    place = Signal(str)
    load = Signal(str)
    colouring = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.text = QPlainTextEdit(SAMPLE, self)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        lines = QFontMetrics(self.text.font()).lineSpacing() * LINES_SHOWN
        self.text.setFixedHeight(lines + 2 * self.text.frameWidth() + 8)
        self.place_button = QPushButton(self)
        place, text = self.place, self.text  # (its own buttons' slots: no reference back to the box)
        self.place_button.clicked.connect(lambda: place.emit(text.toPlainText()))
        self.load_button = QPushButton(self)
        self.load_button.clicked.connect(self._choose_file)
        self.colour_by = QComboBox(self)
        self.colour_by.addItem("", BY_POSITION)
        self.colour_by.addItem("", BY_SIDE)
        self.colour_by.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        colouring, colour_by = self.colouring, self.colour_by
        self.colour_by.currentIndexChanged.connect(lambda _: colouring.emit(colour_by.currentData()))
        self.edit_button = QToolButton(self)  # shows or hides the sentences: placed, they give the plot the room
        self.edit_button.setCheckable(True)
        self.edit_button.setChecked(True)
        self.edit_button.setArrowType(Qt.ArrowType.DownArrow)
        self.edit_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.edit_button.toggled.connect(self.show_text)
        self.message = QLabel(self)  # what was placed, or why not
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.RichText)
        self.message.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        buttons = WrapRow([[self.edit_button, self.place_button, self.load_button], [self.colour_by]], self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.text)
        layout.addWidget(buttons, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.message)
        self.retranslate()

    def retranslate(self):
        """Every text of the box in the interface's language (again after View ▸ Language)."""
        self.text.setPlaceholderText(translate("QKSpace", "One sentence per line"))
        self.text.setToolTip(translate("QKSpace", "One sentence per line (blank lines are skipped); each runs through "
                                                  "the model on its own, and the head's queries and keys of all of "
                                                  "them share one plane"))
        self.place_button.setText(translate("QKSpace", "Place"))
        self.place_button.setToolTip(translate("QKSpace", "Run every sentence through the model and place the head's "
                                                          "queries and keys"))
        self.load_button.setText(translate("QKSpace", "Load .txt…"))
        self.load_button.setToolTip(translate("QKSpace", "Sentences from a UTF-8 text file, one per line"))
        self.colour_by.setItemText(0, translate("QKSpace", "colour: position"))
        self.colour_by.setItemText(1, translate("QKSpace", "colour: query / key"))
        self.colour_by.setToolTip(translate("QKSpace", "Colour each point by its token's position in its sentence, or "
                                                       "by query and key"))
        self.edit_button.setText(translate("QKSpace", "Sentences"))
        self.edit_button.setToolTip(translate("QKSpace", "Show or hide the sentences (hidden once they are "
                                                         "placed)"))

    def _choose_file(self):
        path, _ = QFileDialog.getOpenFileName(self, translate("QKSpace", "Load sentences"), "",
                                              translate("QKSpace", "Text files (*.txt);;All files (*)"))
        if path:
            self.load.emit(path)

    def show_text(self, on):
        """Show (True) or hide the sentences' box."""
        if self.edit_button.isChecked() != on:
            self.edit_button.setChecked(on)  # (comes back here through ``toggled``)
            return
        self.edit_button.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.text.setVisible(on)

    def say(self, text, bad=False):
        """A line under the buttons: plain words, in red when they say what is wrong."""
        self.message.setText(f"<span style='color:{BAD}'>{escape(text)}</span>" if bad else escape(text))
        self.message.setVisible(bool(text))  # (no empty line between the buttons and the plot)

    @property
    def colour(self):
        return self.colour_by.currentData()
