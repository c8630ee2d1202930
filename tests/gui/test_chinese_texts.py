"""F21: texts that stayed English in the 中文 interface — the JSON parser's complaint in a refused session, the
matrix editor's group names, menu texts and tooltips, the plots' axis titles. Expected Chinese written by hand."""
import pytest
from PySide6.QtWidgets import QLabel

from explorer import i18n
from explorer.core.errors import SessionError
from explorer.core.session import load_session
from tests.gui.panel_helpers import show_dock


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


def plot_texts(window, qtbot):
    """The axis titles, colour-bar titles, legends and line labels of the plots that said English in 中文."""
    generation, flash, model_view, rope = (show_dock(qtbot, window, name)
                                           for name in ("generation", "flash", "model_view", "rope"))
    costs = generation.costs
    costs.measure.setCurrentIndex(0)  # multiply-adds per step: the left axis says multiply-adds
    qtbot.waitUntil(lambda: bool(costs.summary.text()), timeout=5000)
    item = costs.plot.getPlotItem()
    return {"cost axes": (item.getAxis("bottom").labelText, item.getAxis("left").labelText),
            "cost legend": [label.text for _, label in costs.legend.items],
            "cost label": costs.cost_label.text(),
            "measures": [costs.measure.itemText(i) for i in range(costs.measure.count())],
            "flash bar": flash.o_tilde.colorbar.axis.labelText,
            "model bar": model_view.rows.colorbar.axis.labelText,
            "rope limits": [line.label.format for line in rope.limit_lines],
            "speeds": [generation.speed.itemText(i) for i in range(generation.speed.count())]}


def test_the_plots_titles_legends_and_labels_are_chinese_then_english_again(qtbot, window):
    english = plot_texts(window, qtbot)
    assert english["cost axes"] == ("t (tokens decoded)", "multiply-adds") and english["flash bar"] == "Õ (unnormalised)"
    assert english["speeds"][1] == "2 tokens/s"
    window.menus.choose_language("zh")
    assert plot_texts(window, qtbot) == {
        "cost axes": ("t（已解码的词元数）", "乘加次数"),
        "cost legend": ["有 K/V 缓存", "没有缓存：每一步都重算 K、V 和注意力"],
        "cost label": "代价：",
        "measures": ["每步的乘加次数", "累计的乘加次数", "每步读取的字节数", "累计读取的字节数"],
        "flash bar": "Õ（未归一化）",
        "model bar": "权重",
        "rope limits": ["以上保持不变", "以下 ÷ factor"],
        "speeds": ["每秒 1 个词元", "每秒 2 个词元", "每秒 5 个词元", "每秒 10 个词元"]}
    summary = window.panels["generation"].costs.summary.text()
    # the demo: one head, d = d_v = 3 → 2·3 numbers a token, 12 bytes in float16, 24 in float32, 48 at L = 4
    assert summary.startswith("K/V 缓存：float16 下每个词元 12 字节（float32 下 24 字节），L = 4 时共 48 字节（这个会话只有一层")
    assert "解码全部 4 个词元：" in summary and "bytes" not in summary
    window.menus.choose_language("en")
    assert plot_texts(window, qtbot) == english
    assert window.panels["generation"].costs.summary.text().startswith("K/V cache: 12 bytes per token in float16")


def test_why_rope_cannot_be_on_is_said_in_chinese(qtbot, window):
    """The demo's heads are d_h = 3 wide, odd: the RoPE panel says why (the settings' own check) in 中文."""
    rope = show_dock(qtbot, window, "rope")
    assert rope.problem_label.text().startswith("rope needs an even d_h, but each head")
    window.menus.choose_language("zh")
    rope.refresh()
    assert rope.problem_label.text().startswith("rope 需要偶数的 d_h，但每个头的 Q/K 宽度 d_h = 3 是奇数（Q/K 宽度 3 分给 1 个头）")
    assert window.model.rope_problem().startswith("rope 需要偶数的 d_h")


def test_a_large_json_session_read_in_another_process_is_refused_in_chinese(qtbot, window, background, warnings,
                                                                             tmp_path):
    """A large JSON session is parsed in another process (session_opener): its refusal still comes in 中文."""
    bad = tmp_path / "big.json"
    bad.write_text('{"format": "attention-explorer-session",\n "version": 6,,}' + " " * 200, encoding="utf-8")
    window.menus.choose_language("zh")
    title = window.model.title
    assert window.documents.open(str(bad), ask=False, remember=False)  # read in the background
    qtbot.waitUntil(lambda: bool(warnings), timeout=20_000)
    assert warnings == [("无法打开会话", "big.json：不是有效的 JSON，第 2 行第 15 列：这里应是用双引号括起的字段名")]
    assert window.model.title == title


def test_the_file_dialogs_titles_and_filters_are_chinese(window, monkeypatch, tmp_path):
    from PySide6.QtWidgets import QFileDialog

    asked = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        lambda parent, title, folder="", filters="", *a, **k: asked.append((title, filters)) or ("", ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda parent, title, start="", filters="", *a, **k: asked.append((title, filters)) or ("", ""))
    window.menus.choose_language("zh")
    documents = window.documents
    window.model.undo_stack.setClean()
    assert not documents.open_dialog()
    assert not documents.save_as()
    assert not documents.import_matrix("Q")
    assert not documents.import_qkv()
    assert not documents.export_script()
    assert not documents.export_window()
    assert asked == [
        ("打开会话", "Attention Explorer 会话 (*.json *.aesz);;Attention Explorer 会话，JSON (*.json);;"
                    "Attention Explorer 会话，二进制 (*.aesz);;所有文件 (*)"),
        ("会话另存为", "Attention Explorer 会话，JSON (*.json);;Attention Explorer 会话，二进制 (*.aesz)"),
        ("把矩阵导入 Q", "矩阵 (*.npy *.npz *.csv *.tsv *.txt);;所有文件 (*)"),
        ("从一个 .npz 导入 Q、K 和 V", "NumPy 压缩包 (*.npz);;所有文件 (*)"),
        ("把会话导出为 Python 脚本", "Python 脚本 (*.py)"),
        ("导出窗口", "PNG 图像 (*.png);;SVG 矢量图 (*.svg)")]


def test_a_name_typed_without_a_suffix_gets_the_chinese_filters_suffix(window, monkeypatch, tmp_path):
    from PySide6.QtWidgets import QFileDialog

    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda parent, title, start="", filters="", *a, **k: (str(tmp_path / "mine"),
                                                                               filters.split(";;")[1]))
    window.menus.choose_language("zh")
    assert window.documents.ask_save_path("t", "x.json", "Attention Explorer session, JSON (*.json);;"
                                          "Attention Explorer session, binary (*.aesz)") == str(tmp_path / "mine.aesz")


def test_a_folder_that_is_no_checkpoint_is_refused_in_chinese(qtbot, window, tmp_path):
    """The model view's refusals of a folder (explorer/models marks them): 中文 in 中文, the folder kept."""
    panel = show_dock(qtbot, window, "model_view")
    empty = tmp_path / "empty"
    empty.mkdir()
    window.menus.choose_language("zh")
    panel.open_model(str(tmp_path / "nowhere"))
    assert panel.status.text() == (f"<span style='color:#b00020'>{tmp_path / 'nowhere'}：不是文件夹（检查点是一个含有 "
                                   "config.json、model.safetensors 和 tokenizer.json 的文件夹）</span>")
    panel.open_model(str(empty))
    assert panel.status.text() == (f"<span style='color:#b00020'>{empty}：没有 config.json（Hugging Face 的检查点文件夹里"
                                   "有 config.json、model.safetensors 和 tokenizer.json）</span>")


def test_the_readouts_axis_titles_are_chinese_then_english_again(qtbot, window):
    """The plane's title when V has one dimension (three heads of the demo) said English in 中文."""
    readout = show_dock(qtbot, window, "readout")
    window.model.set_param("heads", 3)
    window.model.flush()
    readout.refresh()
    titles = lambda: (readout.bars.titles, readout.plane.titles)  # noqa: E731
    assert titles() == ({"x": "output dimension", "y": "share  w·v"}, {"x": "d0 (V has one dimension: a line)", "y": ""})
    window.menus.choose_language("zh")
    readout.refresh()
    assert titles() == ({"x": "输出维度", "y": "份额  w·v"}, {"x": "d0（V 只有一维：一条直线）", "y": ""})
    window.menus.choose_language("en")
    readout.refresh()
    assert titles()[1]["x"] == "d0 (V has one dimension: a line)"
