"""F21: panel texts that stayed English in 中文 — words built inside f-strings (lupdate never saw them), and
sentences a panel drew before the switch and did not draw again. Expected Chinese written by hand."""
from types import SimpleNamespace

import pytest

from explorer import i18n
from explorer.panels.efficient import EfficientPanel
from explorer.panels.flash import FlashAttentionPanel
from explorer.panels.model_view.next_tokens import table
from tests.gui.panel_helpers import show_panel


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
