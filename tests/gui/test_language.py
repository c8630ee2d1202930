"""F21: the interface in English or 中文 — switched live from View ▸ Language, remembered, following the system
locale, chosen with --lang; menus, docks and the Controls panel all follow, and switching back restores them."""
import re
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QLocale, QTranslator
from PySide6.QtWidgets import QComboBox

from explorer import app, i18n
from explorer.core.settings_schema import SCHEMA
from tests.gui.panel_helpers import show_dock

CJK = re.compile(r"[\u3400-\u9fff]")
TOOLS = Path(__file__).resolve().parents[2] / "tools"
# Menu items that are names or formulas in Chinese too: their text may stay as it is
SAME_IN_CHINESE = {"English", "中文", "+ token", "− token", "Q…", "K…", "V…"}


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_language("en")


def menu_items(window):
    """(path, action) of every menu and item of the menu bar, in order (no separators)."""
    found = []

    def walk(menu, path):
        for action in menu.actions():
            if action.isSeparator():
                continue
            found.append((path + (action.objectName() or str(len(found)),), action))
            if action.menu() is not None:
                walk(action.menu(), found[-1][0])
    walk(window.menuBar(), ())
    return found


def texts(window):
    """Every text the language changes that these tests look at."""
    controls = window.panels["controls"]
    return {"menus": [(a.text(), a.statusTip()) for _, a in menu_items(window)],
            "docks": {name: dock.windowTitle() for name, dock in window.docks.items()},
            "controls": [controls.form.labelForField(f).text() for f, _ in controls._rows],
            "choices": [controls.source.itemText(i) for i in range(controls.source.count())],
            "causal": controls.causal.text(),
            "toolbar": [a.text() for a in window.panels["editor"].actions.values()],
            "tables": [window.panels["editor"].titles[name].text() for name in "QKV"],
            "axes": [(h.plot.getAxis("left").labelText, h.plot.getAxis("top").labelText, h.colorbar.axis.labelText)
                     for h in (window.panels[name].heatmap for name in ("scores", "weights", "output"))]}


def test_switching_to_chinese_translates_every_menu_item_and_dock_then_back_restores_them(window):
    english = texts(window)
    assert len(english["menus"]) > 60
    window.actions["language_zh"].trigger()
    assert i18n.current_language() == "zh" and window.actions["language_zh"].isChecked()
    chinese = texts(window)
    for (en_text, en_tip), (zh_text, zh_tip) in zip(english["menus"], chinese["menus"]):
        if en_text in SAME_IN_CHINESE:
            continue
        assert zh_text != en_text and CJK.search(zh_text), (en_text, zh_text)
        if en_tip and en_tip != en_text:  # every explanation in the status bar is translated too
            assert zh_tip != en_tip and CJK.search(zh_tip), (en_tip, zh_tip)
    for name, title in chinese["docks"].items():
        assert title != english["docks"][name] and CJK.search(title), name
    assert chinese["docks"]["scores"] == "① 分数  S = QKᵀ·scale"  # the ① and the formula kept
    assert "注意力" in chinese["docks"]["lines"] and "KV 缓存" in chinese["docks"]["generation"]
    assert "我在找什么" in chinese["tables"][0] and "找到我后能带走什么" in chinese["tables"][2]  # the chapter's words
    assert "+ 查询" in chinese["toolbar"] and "随机" in chinese["toolbar"]
    assert chinese["axes"] == [("查询", "键", "分数"), ("查询", "键", "权重"), ("查询", "维度", "值")]
    window.actions["language_en"].trigger()
    assert i18n.current_language() == "en" and texts(window) == english


def test_the_welcome_in_the_status_bar_follows_a_switch_while_it_is_shown(window):
    bar = window.statusBar()
    bar.showMessage("Edit any number in Q, K or V — every stage recomputes live. Hover a cell to see how it was made.")
    window.actions["language_zh"].trigger()
    assert bar.currentMessage() == "改动 Q、K、V 中任何一个数——每一步都实时重新计算。鼠标停在格子上可看它是怎么算出来的。"
    bar.showMessage("Saved")  # another message since: a switch leaves it
    window.actions["language_en"].trigger()
    assert bar.currentMessage() == "Saved"


def test_the_controls_panel_follows_the_language(window):
    controls = window.panels["controls"]
    english = texts(window)
    window.menus.choose_language("zh")
    labels = texts(window)["controls"]
    assert "温度" in labels and "缩放" in labels and "掩码" in labels
    assert controls.causal.text().startswith("因果掩码")
    direct = dict(SCHEMA["source"].choices)["direct"]
    assert controls.source.itemText(controls.source.findData("direct")) == "直接编辑 Q、K、V" != direct
    assert controls.head.itemText(0) == "头 1"
    window.menus.choose_language("en")
    assert texts(window) == english and controls.head.itemText(0) == "head 1"


def test_a_panel_built_after_the_switch_is_built_in_chinese(window):
    window.menus.choose_language("zh")
    assert not window.panels.is_built("rope")
    window.docks["rope"].show()
    window.docks["rope"].raise_()
    rope = window.panels["rope"]
    combos = rope.findChildren(QComboBox)
    style = next(c for c in combos if c.findData("interleaved") >= 0)
    assert style.itemText(style.findData("interleaved")) == "交错 — GPT-J / RoFormer"


def test_the_choice_is_remembered_and_wins_over_the_system_locale(window, monkeypatch):
    monkeypatch.setattr(i18n.QLocale, "system", staticmethod(lambda: QLocale("en_US")))
    assert i18n.starting_language() == "en" and i18n.saved_language() is None
    window.actions["language_zh"].trigger()
    assert i18n.saved_language() == "zh" and i18n.starting_language() == "zh"
    assert i18n.starting_language("en") == "en"  # --lang for this run wins


@pytest.mark.parametrize("name, language", [("zh_CN", "zh"), ("zh_TW", "zh"), ("en_US", "en"), ("de_DE", "en"),
                                            ("C", "en")])
def test_the_system_locale_decides_when_nothing_was_chosen(home, monkeypatch, name, language):
    monkeypatch.setattr(i18n.QLocale, "system", staticmethod(lambda: QLocale(name)))
    assert i18n.system_language() == language and i18n.starting_language() == language


def test_lang_on_the_command_line(home):
    assert app.build_parser().parse_args(["--lang", "zh"]).lang == "zh"
    assert app.build_parser().parse_args([]).lang is None
    with pytest.raises(SystemExit):
        app.build_parser().parse_args(["--lang", "fr"])


def test_lang_zh_with_screenshot_pictures_the_chinese_window(qapp, home, monkeypatch, tmp_path):
    seen = {}

    def picture(app_, window, path, problem=None):
        seen["menus"] = [a.text() for a in window.menuBar().actions()]
        seen["scores"] = window.docks["scores"].windowTitle()
        return 0
    monkeypatch.setattr(app, "take_screenshot", picture)
    # the app's style is application-wide and stays: later tests measuring text would see it
    monkeypatch.setattr("explorer.style.apply_style", lambda app_: None)
    assert app.main(["--lang", "zh", "--screenshot", str(tmp_path / "shot.png")]) == 0
    assert seen == {"menus": ["文件(&F)", "编辑(&E)", "视图(&V)", "帮助(&H)"], "scores": "① 分数  S = QKᵀ·scale"}


def test_the_compiled_qm_gives_every_translation_of_the_ts(qapp):
    """The committed .qm is the committed .ts compiled (tools/update_translations.py --compile after an edit)."""
    translator = QTranslator()
    assert translator.load(str(i18n.QM_FILES["zh"]))
    root = ET.parse(i18n.I18N_DIR / "explorer_zh_CN.ts").getroot()
    for context in root.iter("context"):
        name = context.findtext("name")
        for message in context.iter("message"):
            assert translator.translate(name, message.findtext("source")) == message.findtext("translation"), (
                name, message.findtext("source"))


@pytest.mark.skipif(not (Path(sys.executable).parent / "pyside6-lupdate").exists(), reason="no pyside6-lupdate")
def test_the_ts_holds_every_text_the_code_translates(qapp, tmp_path, monkeypatch):
    """lupdate over the code finds nothing the committed .ts lacks (a new text: run tools/update_translations.py
    and translate it)."""
    monkeypatch.syspath_prepend(str(TOOLS))
    import update_translations

    committed = i18n.I18N_DIR / "explorer_zh_CN.ts"
    fresh = tmp_path / "fresh.ts"
    shutil.copy(committed, fresh)
    update_translations.update(fresh)

    def sources(path):
        root = ET.parse(path).getroot()
        return {(c.findtext("name"), m.findtext("source")): m.find("translation").get("type")
                for c in root.iter("context") for m in c.iter("message")}
    found = sources(fresh)
    assert set(found) == set(sources(committed))
    assert not [key for key, kind in found.items() if kind], "untranslated texts"


# ----- the panels' own texts, the undo names, the status bar, the core's marked texts --------------------
def caption_of(panel, name):
    """The caption (or headline text) of panel ``name`` that the language changes."""
    return {"readout": lambda: panel.header.text(),
            "lesson": lambda: panel.instruction.text() + " | " + panel.show_all_button.text(),
            "lines": lambda: panel.caption.text(),
            "heads": lambda: panel.caption.summary.text(),
            "rope": lambda: panel.rope_box.text(),
            "generation": lambda: panel.caption.text(),
            "model_view": lambda: panel.generate_button.text(),
            "sqrt_d": lambda: panel.hint.text(),
            "positions": lambda: panel.caption.text(),
            "block": lambda: panel.note.text(),
            "efficient": lambda: panel.caption.text(),
            "flash": lambda: panel.heading.text(),
            "qk_space": lambda: panel.caption.text(),
            "sensitivity": lambda: panel.caption.text() + " | " + panel.summary.text(),
            "ab_diff": lambda: panel.caption.text() + " | " + panel.mark_button.text(),
            "split_merge": lambda: panel.caption.text()}[name]()


# written by hand from the translations in explorer_zh_CN.ts, for the demo session (猫 追 红色 激光点, row 追)
CHINESE_CAPTIONS = {
    "readout": "<b>追 的 ③ 读出</b>",
    "lesson": "全部显示",
    "lines": "每条线：一个查询（左）关注一个键（右）",
    "heads": "<b>多头</b>：H = 1 × d_h = 3",
    "rope": "在流水线中启用 RoPE",
    "generation": "<b>生成 · KV 缓存</b>",
    "model_view": "生成",
    "sqrt_d": "拖动 d。",
    "positions": "<b>正弦位置编码</b>",
    "block": "这个会话直接编辑 Q、K、V，没有 X",
    "efficient": "每个词元只看最近的邻居",
    "flash": "从不存下 L × L 的矩阵",
    "qk_space": "查询落在它最看重的那些键附近",
    "sensitivity": "微调 ε</b>：经过 softmax 带动了什么",
    "ab_diff": "（B 是现在的状态） | 标记为 A",
    "split_merge": "Q 的 D = 3 列被切成 H = 1 份，每份 d_h = 3 维（K 和 V 也这样切）",
}


def show_panel(qtbot, window, name):
    panel = show_dock(qtbot, window, name)
    qtbot.waitUntil(lambda: bool(caption_of(panel, name)), timeout=5000)
    return panel


@pytest.mark.parametrize("name", sorted(CHINESE_CAPTIONS))
def test_each_panel_caption_is_chinese_in_chinese_and_english_again_after(qtbot, window, name):
    panel = show_panel(qtbot, window, name)
    english = caption_of(panel, name)
    assert CHINESE_CAPTIONS[name] not in english  # (English captions quote the tokens and the chapter's Chinese)
    window.menus.choose_language("zh")
    panel.refresh()
    chinese = caption_of(panel, name)
    assert CHINESE_CAPTIONS[name] in chinese, chinese
    window.menus.choose_language("en")
    panel.refresh()
    assert caption_of(panel, name) == english


def test_the_query_key_space_sentences_follow_the_language(qtbot, window):
    panel = show_panel(qtbot, window, "qk_space")
    window.menus.choose_language("zh")
    assert [panel.points_from.itemText(i) for i in range(2)] == ["这个会话", "多个句子"]
    box = panel.sentences
    assert (box.place_button.text(), box.edit_button.text(), box.colour_by.itemText(0)) == ("放置", "句子", "颜色：位置")
    assert panel.legend._texts()[0] == "位置 0"
    window.menus.choose_language("en")
    assert (panel.points_from.itemText(1), box.place_button.text()) == ("many sentences", "Place")


def test_the_a_b_diff_says_a_and_b_minus_a_in_chinese(qtbot, window):
    panel = show_panel(qtbot, window, "ab_diff")
    window.menus.choose_language("zh")
    window.actions["mark_a"].trigger()
    assert window.statusBar().currentMessage().startswith("已把现在的状态标记为 A")
    window.model.set_cell("Q", 1, 1, 1.5)  # (an edit: B − A is drawn, the caption names A)
    qtbot.waitUntil(lambda: panel.caption.text().startswith("<b>A/B 对比</b>：A 是 "), timeout=5000)
    assert "时的状态；B 是现在的状态" in panel.caption.text()
    window.menus.choose_language("en")


def test_a_panel_shown_after_the_switch_builds_its_captions_in_chinese(qtbot, window):
    window.menus.choose_language("zh")
    panel = show_panel(qtbot, window, "flash")
    assert panel.play.text() == "▶ 播放" and panel.previous.text() == "◀ 上一步"
    assert caption_of(panel, "flash").startswith("<b>FlashAttention</b>（Dao 等 2022，算法 1）")


def test_the_undo_action_names_the_edit_in_chinese_and_in_english_after_the_switch_back(window):
    window.menus.choose_language("zh")
    assert window.model.set_cell("Q", 0, 0, 1.5)
    assert window.actions["undo"].text() == "撤销(&U) 编辑 Q[猫, d0]"
    assert window.model.set_param("temperature", 2.0)
    assert window.actions["undo"].text() == "撤销(&U) 把温度设为 2"
    window.menus.choose_language("en")
    assert window.model.set_cell("Q", 0, 1, 1.0)
    assert window.actions["undo"].text() == "&Undo Edit Q[猫, d1]"


def test_a_refusal_in_the_status_bar_is_chinese(window):
    window.menus.choose_language("zh")
    before = window.model.matrix("Q").copy()
    assert not window.model.set_block("Q", 0, 0, np.ones((9, 9)))
    assert window.statusBar().currentMessage() == "Q：从第 0 行、d0 列开始的 9×9 块放不进 4×3 的矩阵"
    assert np.array_equal(window.model.matrix("Q"), before)  # nothing changed
    window.menus.choose_language("en")
    assert not window.model.set_block("Q", 0, 0, np.ones((9, 9)))
    assert window.statusBar().currentMessage() == "Q: a 9×9 block at row 0, column d0 does not fit in the 4×3 matrix"


def test_a_core_text_is_shown_in_the_interface_language(window):
    """The core marks its texts without Qt (core/translatable.py); the Qt layer translates them when shown."""
    from explorer.core.heads import sharing_name

    said = sharing_name(4, 1)
    assert said == "multi-query attention" and i18n.in_language(said) == "multi-query attention"
    window.menus.choose_language("zh")
    assert i18n.in_language(said) == "多查询注意力"
    assert i18n.in_language("not marked") == "not marked"


def test_every_message_of_the_ts_is_translated_and_its_braces_are_sound():
    """No message left unfinished or empty; every translation formats (no stray brace) like its source."""
    class Anything(dict):
        def __missing__(self, key):
            return "x"

    root = ET.parse(i18n.I18N_DIR / "explorer_zh_CN.ts").getroot()
    messages = [(c.findtext("name"), m) for c in root.iter("context") for m in c.iter("message")]
    assert len(messages) > 700
    for context, message in messages:
        source, node = message.findtext("source"), message.find("translation")
        assert node.get("type") is None and node.text, (context, source)
        if "{" in source:
            node.text.format_map(Anything())  # raises on an unbalanced or malformed placeholder


# ----- what a person meets most: a cell's hover, a refused value, a file the core refuses --------------------
ENGLISH_WORD = re.compile(r"[A-Za-z]{3,}")


def english_words(text, allowed=("softmax", "exp", "ALiBi")):
    """The English words (three letters or more) of ``text``, but for the chapter's own symbols."""
    return [w for w in ENGLISH_WORD.findall(text) if w not in allowed]


def test_a_cell_hover_says_how_the_cell_was_made_in_chinese_then_english_again(window):
    hovers = {name: window.panels[name].heatmap.tooltip_provider for name in ("scores", "weights", "output")}
    english = {name: hover(1, 0) for name, hover in hovers.items()}  # the row of 追, the key 猫
    assert english["scores"].startswith("score[追 → 猫]\nq(追) · k(猫) = 4\n× scale 0.5774")
    window.menus.choose_language("zh")
    chinese = {name: hover(1, 0) for name, hover in hovers.items()}
    # (written by hand from the .ts: q(追)·k(猫) = 2·2 = 4, scaled by 1/√3)
    assert chinese["scores"] == "分数[追 → 猫]\nq(追) · k(猫) = 4\n× 缩放 0.5774\n= 2.309"
    assert chinese["weights"].startswith("权重[追 → 猫] = 0.4548\n= exp(S) / Σ exp(追 这一行的 S)")
    assert chinese["output"] == english["output"]  # O[追, d0] = Σ_j A[追, j] · V[j, d0]: symbols only
    for name in ("scores", "weights"):
        assert not english_words(chinese[name]), chinese[name]
    window.menus.choose_language("en")
    assert {name: hover(1, 0) for name, hover in hovers.items()} == english


def test_a_value_typed_into_a_cell_is_refused_in_chinese(window):
    editor = window.panels["editor"]
    table = editor.views["Q"].model()
    before = window.model.matrix("Q").copy()
    window.menus.choose_language("zh")
    assert not table.setData(table.index(0, 0), "abc")
    assert window.statusBar().currentMessage() == "Q：格子 [猫, d0]：'abc' 不是数字"
    assert not table.setData(table.index(1, 2), "1e9")
    assert window.statusBar().currentMessage() == "Q：格子 [追, d2]：'1e9' 的绝对值大于 1e6"
    assert np.array_equal(window.model.matrix("Q"), before)  # nothing changed
    window.menus.choose_language("en")
    assert not table.setData(table.index(0, 0), "abc")
    assert window.statusBar().currentMessage() == "Q: Row 猫, column d0: 'abc' is not a number"


def test_the_cores_refusals_of_files_and_settings_are_chinese(window, tmp_path):
    """Session files, matrix files and settings are checked in the Qt-free core; their messages are marked there
    and come out in the interface's language, the English coming back with it."""
    from explorer.core.errors import MatrixFileError, SessionError
    from explorer.core.matrix_io import load_matrix
    from explorer.core.session import load_session
    from explorer.core.settings_schema import check_value

    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "attention-explorer-session", "version": 6, "tokens": ["a", "b"], "matrices": '
                   '{"Q": [[1, 2], [3]], "K": [[1, 2], [3, 4]], "V": [[1, 2], [3, 4]]}}', encoding="utf-8")
    errors = []
    for attempt, kind in ((lambda: load_session(bad), SessionError), (lambda: check_value("temperature", 25.0), ValueError),
                          (lambda: load_matrix(tmp_path / "none.npy"), MatrixFileError)):
        with pytest.raises(kind) as caught:
            attempt()
        errors.append(caught.value)
    english = [i18n.shown_error(e) for e in errors]
    assert english == ["bad.json: matrices.Q row 1 has 1 numbers but row 0 has 2",
                       "settings.temperature is 25.0; it must lie in 0.05..20", "none.npy: no such file"]
    window.menus.choose_language("zh")
    assert [i18n.shown_error(e) for e in errors] == ["bad.json：matrices.Q 第 1 行有 1 个数，但第 0 行有 2 个",
                                                     "settings.temperature 是 25.0；它必须在 0.05..20 之间",
                                                     "none.npy：没有这个文件"]
    window.menus.choose_language("en")
    assert [i18n.shown_error(e) for e in errors] == english == [str(e) for e in errors]


def test_opening_a_bad_session_file_says_why_in_chinese(window, tmp_path, monkeypatch):
    bad = tmp_path / "empty.json"
    bad.write_text("", encoding="utf-8")
    said = []
    monkeypatch.setattr(window.documents, "error", lambda title, text: said.append((title, text)))
    window.menus.choose_language("zh")
    title = window.model.title
    assert not window.documents.open(str(bad), ask=False, remember=False)
    assert said == [("无法打开会话", "empty.json：是空的")] and window.model.title == title


def test_the_heads_split_merge_and_lesson_cards_speak_chinese_then_english_again(qtbot, window):
    heads, split, lesson = (show_panel(qtbot, window, name) for name in ("heads", "split_merge", "lesson"))

    def said():
        return (heads.tooltip(0, 1, 0), split.caption.text(), lesson.cards[3].live.text(), lesson.sum_check.text())
    english = said()
    assert english[0].startswith("head 1: weight[追 → 猫] = ")
    window.menus.choose_language("zh")
    hover, caption, card, check = said()
    assert hover.startswith("头 1：权重[追 → 猫] = ") and hover.endswith("单击即在分数、权重和输出面板中显示这个头")
    assert caption.startswith("<b>拆分与合并</b>：(L, D) → (H, L, d_h) —— Q 的 D = 3 列被切成 H = 1 份")
    assert card.startswith("K 与示例相同：追 最看重 <b>猫") and "追 这一行：" in card
    assert "权重的每一行之和都为 1" in check
    for text in (hover, caption, card, check):
        assert not english_words(re.sub(r"<[^>]*>", "", text).replace("concat", "")), text
    window.menus.choose_language("en")
    assert said() == english


def test_a_model_heads_status_names_it_in_chinese(window):
    from explorer.models.flow_back import HeadSource
    from explorer.panels.model_view.next_tokens import closed

    source = HeadSource(folder=Path("/models/gpt2"), name="gpt2", ids=(1, 2), layer=1, head=0, logits=None, hidden=8)
    english = closed(source, None)
    assert english.startswith("The session is layer 2 head 1 of gpt2 (from /models/gpt2). Open gpt2")
    window.menus.choose_language("zh")
    assert closed(source, None) == ("这个会话是 gpt2 的第 2 层第 1 个头（来自 /models/gpt2）。打开 gpt2，就能看到这些编辑"
                                    "怎样改变它接下来说的话。")
    window.menus.choose_language("en")
    assert closed(source, None) == english


def test_the_heads_control_says_why_only_divisors_of_d_are_offered_in_both_languages(window):
    # the demo: d = 3 and d_v = 3, so H is 1 or 3 (2 does not divide 3): the control says it, not only offers it
    heads = window.panels["controls"].heads
    assert [heads.itemData(i) for i in range(heads.count())] == [1, 3]
    tip = heads.toolTip()
    assert "divide d = 3 and d_v = 3" in tip and tip.endswith(": 1, 3")
    window.menus.choose_language("zh")
    tip = heads.toolTip()
    assert "整除 d = 3 和 d_v = 3" in tip and tip.endswith("：1, 3")
    window.menus.choose_language("en")
    assert heads.toolTip().endswith(": 1, 3") and "divide" in heads.toolTip()


def accelerators(menu):
    """(menu title, the letter after & of each item) for ``menu`` and each menu in it."""
    letters, found = [], []
    for action in menu.actions():
        text = action.text().replace("&&", "")
        if "&" in text:
            letters.append(text[text.index("&") + 1].lower())
        if action.menu() is not None:
            found += accelerators(action.menu())
    return [(menu.title(), letters)] + found


def test_no_two_items_of_a_menu_share_an_accelerator_in_either_language(window):
    """The walkthrough pressed View ▸ L: "Reset layout" and "Language" both answered to it (the key only moved
    the highlight)."""
    for language in ("en", "zh", "en"):
        window.actions[f"language_{language}"].trigger()
        for top in window.menuBar().actions():
            for title, letters in accelerators(top.menu()):
                assert len(letters) == len(set(letters)), (language, title, letters)
