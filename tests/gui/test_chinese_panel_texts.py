"""F21: panel texts that stayed English in 中文 — words built inside f-strings (lupdate never saw them), and
sentences a panel drew before the switch and did not draw again. Expected Chinese written by hand."""
from types import SimpleNamespace

import pytest
from PySide6.QtWidgets import QApplication, QStyle, QStyleOptionComboBox

from explorer import i18n
from explorer.panels.efficient import EfficientPanel
from explorer.panels.flash import FlashAttentionPanel
from explorer.panels.generation import GenerationPanel
from explorer.panels.model_view.next_tokens import favourite, table
from tests.gui.panel_helpers import show_dock, show_panel


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_language("en")


def entry(label, token_id, before, after):
    return SimpleNamespace(label=label, token_id=token_id, before=before, after=after, change=after - before)


def test_the_next_token_tables_column_titles_are_chinese(qapp):
    change = SimpleNamespace(before_top=[entry("·the", 1, 0.5, 0.25)], after_top=[entry("·cat", 2, 0.125, 0.5)])
    assert "before any edit" in table(change, False) and "with the edited head" in table(change, False)
    i18n.set_language("zh")
    html = table(change, False)
    assert "编辑之前" in html and "用编辑过的头" in html
    assert "before any edit" not in html and "with the edited head" not in html


def test_the_lost_favourite_is_told_after_a_chinese_semicolon(qapp):
    change = SimpleNamespace(before_top=[entry("·the", 1, 0.41, 0.02)], after_top=[entry("·cat", 2, 0.1, 0.5)])
    assert favourite(change) == "; “·the” 41.0% → <b>2.00%</b>"  # one decimal from 10 %, two below
    i18n.set_language("zh")
    assert favourite(change) == "；“·the” 41.0% → <b>2.00%</b>"


# ----- texts a panel drew before the switch: drawn again in the new language while shown ----------------
def test_linformers_figures_and_title_follow_the_language_while_shown(qtbot):
    model, panel = show_panel(qtbot, EfficientPanel, size=(1100, 500))
    panel.set_mechanism("linformer", rank=2, projection="random")
    qtbot.waitUntil(lambda: "projected keys" in panel.readout.text(), timeout=5000)
    assert panel.approx_title.text().startswith("A′ = P·F, a mix (not a distribution)")
    i18n.set_language("zh")  # the mechanism stays: nothing but the language changes
    assert "L·k = <b>8</b> 个分数，对着 k = 2 个投影后的键" in panel.readout.text()
    assert "KL：—（A′ 的行不是概率分布）" in panel.readout.text()
    assert panel.approx_title.text().startswith("A′ = P·F，一种混合（不是概率分布）")
    i18n.set_language("en")
    assert "L·k = <b>8</b> scores, against k = 2 projected keys" in panel.readout.text()


def test_a_hidden_efficient_panel_speaks_the_new_language_when_shown_again(qtbot):
    model, panel = show_panel(qtbot, EfficientPanel, size=(1100, 500))
    panel.set_mechanism("linformer", rank=2, projection="random")
    qtbot.waitUntil(lambda: "projected keys" in panel.readout.text(), timeout=5000)
    panel.hide()
    i18n.set_language("zh")
    panel.show()
    qtbot.waitUntil(lambda: "个投影后的键" in panel.readout.text(), timeout=5000)


def test_flashattentions_block_and_memory_sentences_follow_the_language_while_shown(qtbot):
    model, panel = show_panel(qtbot, FlashAttentionPanel, size=(700, 1000))
    panel.slider.setValue(2)  # a step of its own: the switch keeps it
    assert panel.block_text.text().startswith("Query block 1 of 2: rows 猫–追.")
    assert panel.memory.text().startswith("<b>Memory</b>: the largest S tile held at once has 4 cells;")
    i18n.set_language("zh")
    assert panel.block_text.text().startswith("查询块 1/2：行 猫–追。单步演示跟随这个块")
    assert panel.memory.text().startswith("<b>内存</b>：同一时刻存下的最大 S 块有 4 格；")
    assert panel.step_label.text() == "第 2 步，共 2 步"
    i18n.set_language("en")
    assert panel.block_text.text().startswith("Query block 1 of 2")


# ----- FlashAttention's words that were English in every language ------------------------------------
def row_names(table):
    return [table.verticalHeaderItem(i).text() for i in range(table.rowCount())]


def test_flashattentions_table_rows_hbm_line_and_sram_sizes_are_chinese_then_english_again(qtbot):
    model, panel = show_panel(qtbot, FlashAttentionPanel, size=(700, 1000))
    english = row_names(panel.table), panel.hbm.text(), panel.sram.itemText(0)
    assert english[0] == ["m old", "m̃ tile", "m new", "rescale", "ℓ old", "ℓ new"]
    i18n.set_language("zh")
    assert row_names(panel.table) == ["m 旧", "m̃ 本块", "m 新", "缩放", "ℓ 旧", "ℓ 新"]
    assert panel.table.verticalHeaderItem(0).toolTip() == "本块之前的运行最大值（−∞：还没见过任何键）"
    # the demo: N = 4, d = 3, M = 100 KB / 2 bytes = 51 200 numbers > N·d = 12
    hbm = panel.hbm.text()
    assert hbm.startswith("<b>HBM 读写次数，按论文的模型</b>（定理 2，Θ 去掉常数——不是实测），N = 4，d = d<sub>h</sub> = 3，")
    assert "（100 KB）：标准注意力 N·d + N² ≈ 28；" in hbm  # 4·3 + 4² = 28
    assert hbm.endswith("。这里 N·d &lt; M：整个头都放得进片上，两种做法都只读一遍 Q、K、V；定理说的是 d ≤ M ≤ N·d 的情形。")
    assert panel.sram.itemText(0) == "100 KB（论文）"
    i18n.set_language("en")
    assert (row_names(panel.table), panel.hbm.text(), panel.sram.itemText(0)) == english
    assert panel.shown("m old") == [float("-inf")] * 2  # the rows are still found by their English names


def test_linformers_projection_choices_are_chinese_then_english_again(qtbot):
    model, panel = show_panel(qtbot, EfficientPanel, size=(1100, 500))
    box = panel.boxes["projection"]
    i18n.set_language("zh")
    assert [box.itemText(i) for i in range(box.count())] == ["随机 N(0, 1/k)", "均值池化"]
    i18n.set_language("en")
    assert [box.itemText(i) for i in range(box.count())] == ["random N(0, 1/k)", "mean pooling"]


# ----- the Generation panel's speed chooser fits its words --------------------------------------------
def text_room(box):
    """The width a combo box gives its current text (its edit field, arrow and frame left out)."""
    option = QStyleOptionComboBox()
    box.initStyleOption(option)
    return box.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                      QStyle.SubControl.SC_ComboBoxEditField, box).width()


@pytest.mark.parametrize("width", [1100, 620, 560, 400])
def test_the_speed_chooser_shows_its_whole_text_in_both_languages_and_leaves_t_a_slider(qtbot, width):
    model, panel = show_panel(qtbot, GenerationPanel, size=(width, 700))
    box = panel.speed
    for language, longest in (("en", "10 tokens/s"), ("zh", "每秒 10 个词元"), ("en", "10 tokens/s")):
        i18n.set_language(language)
        box.setCurrentIndex(3)
        QApplication.processEvents()
        assert box.currentText() == longest
        assert text_room(box) >= box.fontMetrics().horizontalAdvance(longest), (language, box.width())
        assert panel.slider.slider.width() >= 100, language  # a slider one can still drag: the row wraps first


# ----- one name for the Readout panel: its dock's title and its caption say the same word ---------------
def test_the_readout_docks_title_and_its_caption_name_the_panel_alike_in_both_languages(qtbot, window):
    panel = show_dock(qtbot, window, "readout")
    dock = window.docks["readout"]
    assert dock.windowTitle() == "Readout" and panel.header.text().startswith("<b>③ Readout for 追</b>")
    window.menus.choose_language("zh")
    panel.refresh()
    assert dock.windowTitle() == "读出" and panel.header.text().startswith("<b>追 的 ③ 读出</b>")
    window.menus.choose_language("en")
    panel.refresh()
    assert dock.windowTitle() == "Readout" and panel.header.text().startswith("<b>③ Readout for 追</b>")
