"""F21: texts that stayed English in the 中文 interface — the JSON parser's complaint in a refused session, the
matrix editor's group names, menu texts and tooltips, the plots' axis titles. Expected Chinese written by hand."""
import pytest
from PySide6.QtWidgets import QLabel

from explorer import i18n
from explorer.core.errors import SessionError
from explorer.core.session import load_session


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_language("en")


@pytest.mark.parametrize("text, english, chinese", [
    ('{\n  "format": "attention-explorer-session",\n  version: 6\n}',
     "bad.json: is not valid JSON: Expecting property name enclosed in double quotes at line 3, column 3",
     "bad.json：不是有效的 JSON，第 3 行第 3 列：这里应是用双引号括起的字段名"),
    ('{"format": "attention-explorer-session" "version": 6}',
     "bad.json: is not valid JSON: Expecting ',' delimiter at line 1, column 41",
     "bad.json：不是有效的 JSON，第 1 行第 41 列：这里应是逗号 “,”"),
    ('{"tokens": ["猫", "追}',
     "bad.json: is not valid JSON: Unterminated string starting at line 1, column 18 (the file ends too early; is "
     "it truncated?)",
     "bad.json：不是有效的 JSON，第 1 行第 18 列：从这里开始的字符串没有结束（文件提前结束了；是不是不完整？）"),
    ('{"a": 1} {"b": 2}', "bad.json: is not valid JSON: Extra data at line 1, column 10",
     "bad.json：不是有效的 JSON，第 1 行第 10 列：这里多出了数据（JSON 值在此之前已经结束）"),
])
def test_a_session_the_json_parser_refuses_is_refused_in_chinese(window, tmp_path, text, english, chinese):
    bad = tmp_path / "bad.json"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(SessionError) as caught:
        load_session(bad)
    assert i18n.shown_error(caught.value) == english
    window.menus.choose_language("zh")
    assert i18n.shown_error(caught.value) == chinese
    window.menus.choose_language("en")
    assert i18n.shown_error(caught.value) == english


def test_a_complaint_not_in_the_table_keeps_the_parsers_words_in_a_chinese_sentence(window, monkeypatch):
    import json

    from explorer.core.session_json import parse

    def newer_parser(text, **kwargs):  # a message some other Python might say
        raise json.JSONDecodeError("Some complaint of a newer parser", text, 5)
    monkeypatch.setattr(json, "loads", newer_parser)
    with pytest.raises(SessionError) as caught:
        parse('{"a": 1}', "odd.json")
    window.menus.choose_language("zh")
    assert i18n.shown_error(caught.value) == "odd.json：不是有效的 JSON，第 1 行第 6 列：Some complaint of a newer parser"


def group_names(editor):
    """The names of the editor's ± groups, as shown (the label before each pair of buttons)."""
    tools = editor.tools
    return {name: tools.groups[name].findChild(QLabel).text() for name in ("tokens", "dims_qk", "dims_v", "dims_x")}


def test_the_editors_names_buttons_and_tips_are_chinese_then_english_again(window):
    editor = window.panels["editor"]
    english = group_names(editor)
    assert english == {"tokens": "token", "dims_qk": "d Q,K", "dims_v": "d V", "dims_x": "D"}
    window.menus.choose_language("zh")
    assert group_names(editor) == {"tokens": "词元", "dims_qk": "Q、K 维", "dims_v": "V 维", "dims_x": "X 维"}
    texts = {key: editor.actions[key].text() for key in ("add_token", "remove_token", "add_dim_qk", "remove_dim_qk",
                                                         "add_dim_v", "remove_dim_v", "add_dim_x", "remove_dim_x")}
    assert texts == {"add_token": "+ 词元", "remove_token": "− 词元", "add_dim_qk": "+ Q、K 维",
                     "remove_dim_qk": "− Q、K 维", "add_dim_v": "+ V 维", "remove_dim_v": "− V 维",
                     "add_dim_x": "+ X 维", "remove_dim_x": "− X 维"}
    assert editor.tools.buttons["add_dim_qk"].text() == "+"  # the buttons themselves stay + and −
    assert editor.views["Q"].verticalHeader().toolTip() == "双击一个词元可给它改名"
    assert editor.cell_slider.toolTip() == "拖动来改变选中的格子；每个阶段都随之实时更新"
    assert "双击词元可改名" in editor.hint.text() and "token" not in editor.hint.text()
    window.menus.choose_language("en")
    assert group_names(editor) == english and editor.actions["add_dim_qk"].text() == "+d Q,K"
    assert editor.views["Q"].verticalHeader().toolTip() == "Double-click a token to rename it"


def test_renaming_a_token_asks_in_chinese(window, monkeypatch):
    asked = []

    def ask(parent, title, label, text=""):
        asked.append((title, label, text))
        return "", False
    monkeypatch.setattr("explorer.panels.editor.panel.QInputDialog.getText", ask)
    window.menus.choose_language("zh")
    assert not window.panels["editor"].rename_token(1)
    assert asked == [("词元改名", "词元 1（追）的新名字：", "追")]
