"""Column label widths (``heatmap_ticks.label_widths``): each label's width as Qt measures it, each distinct
text measured once, and two heatmaps of the same tokens (Scores and Weights) measure them once."""
import numpy as np
from PySide6.QtGui import QFont, QFontMetricsF

from explorer.widgets import heatmap_ticks


class Counting(QFontMetricsF):
    texts = []

    def horizontalAdvance(self, text, *args):
        Counting.texts.append(text)
        return super().horizontalAdvance(text, *args)


def test_each_width_is_qts_and_each_text_is_measured_once(qapp, monkeypatch):
    monkeypatch.setattr(heatmap_ticks, "QFontMetricsF", Counting)
    monkeypatch.setattr(heatmap_ticks, "_widths_seen", {})
    Counting.texts = []
    font = QFont()
    texts = ["the", "cat", "the", "猫", "", "the"]
    widths = heatmap_ticks.label_widths(font, texts)
    want = [QFontMetricsF(font).horizontalAdvance(t) for t in texts]
    np.testing.assert_array_equal(widths, want)
    assert sorted(Counting.texts) == sorted(["the", "cat", "猫", ""])
    assert not widths.flags.writeable  # shared between heatmaps: nobody may change it
    assert heatmap_ticks.label_widths(font, list(texts)) is widths and len(Counting.texts) == 4  # remembered
    bigger = QFont(font)
    bigger.setPointSizeF(font.pointSizeF() * 2)
    assert heatmap_ticks.label_widths(bigger, texts)[1] > widths[1]  # another font is measured again


def test_scores_and_weights_of_a_new_session_measure_its_tokens_once(window, monkeypatch):
    monkeypatch.setattr(heatmap_ticks, "QFontMetricsF", Counting)
    Counting.texts = []
    model = window.model
    from explorer.core.presets import random_session
    model.load(random_session(30, 8, seed=11))
    model.flush()
    window.panels["scores"].refresh()
    window.panels["weights"].refresh()
    tokens = list(model.tokens)
    assert sorted(t for t in Counting.texts if t in tokens) == sorted(set(tokens))
