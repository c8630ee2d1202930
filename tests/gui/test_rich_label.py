"""RichLabel: wrapped rich text that asks for a new layout only when its height changes (issue 18)."""
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget

from explorer.widgets.rich_label import RichLabel

SHORT = "<b>③ readout for 追</b>: O = 0.45·v(猫) + 0.05·v(追)"


class Layouts(QObject):
    def __init__(self):
        super().__init__()
        self.requests = 0

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.LayoutRequest:
            self.requests += 1
        return False


def in_a_column(qtbot, label, width=400):
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.addWidget(label)
    layout.addStretch(1)
    qtbot.addWidget(box)
    box.resize(width, 200)
    box.show()
    qtbot.waitExposed(box)
    QApplication.processEvents()
    return box


def test_a_new_text_of_the_same_height_asks_for_no_layout(qtbot):
    label = RichLabel(SHORT)
    box = in_a_column(qtbot, label)
    height = label.height()
    watch = Layouts()
    box.installEventFilter(watch)
    label.setText(SHORT.replace("0.45", "0.44"))
    QApplication.processEvents()
    assert watch.requests == 0 and label.height() == height
    assert label.text() == SHORT.replace("0.45", "0.44")


def test_a_text_that_wraps_to_more_lines_gets_the_room(qtbot):
    label = RichLabel(SHORT)
    box = in_a_column(qtbot, label, width=300)
    one = label.height()
    watch = Layouts()
    box.installEventFilter(watch)
    label.setText(SHORT + " — a convex combination of the rows of V (weights ≥ 0, Σ = 1)<br>and a second line")
    QApplication.processEvents()
    assert watch.requests >= 1
    assert label.height() >= one + 2 * label.fontMetrics().lineSpacing()  # at least two more lines, given room
    assert label.height() == label.heightForWidth(label.width())


def test_a_word_longer_than_the_line_breaks_instead_of_being_cut(qtbot):
    label = RichLabel("x" * 200)
    assert label.minimumSizeHint().width() < label.fontMetrics().horizontalAdvance("x" * 20)
    one_line = label.heightForWidth(10_000)
    assert label.heightForWidth(100) > 3 * one_line  # wrapped within the word


def test_it_draws_what_a_wrapped_rich_text_qlabel_draws(qtbot):
    """The Readout's texts looked the same with a QLabel; the reference here is Qt's own label."""
    text = SHORT + " — <span style='color:#555'>head 1/2</span>"
    ours, theirs = RichLabel(text), QLabel(text)
    theirs.setWordWrap(True)
    for w in (ours, theirs):
        qtbot.addWidget(w)
        w.resize(260, w.heightForWidth(260))
        w.show()
    QApplication.processEvents()
    assert ours.height() == theirs.height()
    a, b = ours.grab().toImage(), theirs.grab().toImage()
    assert a.convertToFormat(QImage.Format.Format_RGB32) == b.convertToFormat(QImage.Format.Format_RGB32)
    blank = QImage(a.size(), QImage.Format.Format_RGB32)
    blank.fill(ours.palette().color(ours.backgroundRole()))
    assert a.convertToFormat(QImage.Format.Format_RGB32) != blank  # and there is text on it
