"""FittingText: the width a label or check box asks for is enough for its shortest text, whatever the
fullest text is (the editor's titles: a long, partly bold caption and a short bold name). The expected
widths are Qt's own size hints of a widget showing only that text."""
import pytest
from PySide6.QtWidgets import QCheckBox, QLabel

from explorer.widgets.fitting_text import FittingText

TITLES = [("X", "the tokens' vectors, one row per token"), ("Q", "queries"),
          ("X_src", "the second sequence's token vectors, one row per key")]


@pytest.mark.parametrize("shown,short", TITLES)
def test_a_title_asks_for_the_width_of_its_short_bold_name_at_least(qtbot, shown, short):
    title = QLabel()
    qtbot.addWidget(title)
    FittingText(title, ((f"<b>{shown}</b> <span style='color:#555'>— {short}</span>", f"{shown} — {short}"),
                        (f"<b>{shown}</b>", shown)))
    alone = QLabel(f"<b>{shown}</b>")
    qtbot.addWidget(alone)
    assert title.minimumWidth() >= alone.sizeHint().width()


def test_a_check_box_asks_for_the_width_of_its_short_text_with_its_indicator(qtbot):
    box = QCheckBox()
    qtbot.addWidget(box)
    FittingText(box, ("causal mask (no peeking at later tokens)", "causal mask"))
    alone = QCheckBox("causal mask")
    qtbot.addWidget(alone)
    assert alone.sizeHint().width() <= box.minimumWidth() <= alone.sizeHint().width() + 1
