"""Texts the core marks for translation (explorer/core/translatable.py): plain English strings to the core and its
tests, which remember their context, template and arguments for the Qt layer to translate."""
from explorer.core.block_stack import why_unavailable
from explorer.core.heads import sharing_name
from explorer.core.translatable import QT_TRANSLATE_NOOP, Said, Template


def test_a_marked_text_is_its_english_and_remembers_its_context():
    text = QT_TRANSLATE_NOOP("Heads", "multi-head attention")
    assert text == "multi-head attention" and isinstance(text, str) and isinstance(text, Template)
    assert text.context == "Heads"


def test_format_gives_the_english_and_remembers_how_it_was_made():
    said = QT_TRANSLATE_NOOP("Block", "W_o gives back {rows} columns, D = {D}").format(rows=3, D=4)
    assert said == "W_o gives back 3 columns, D = 4" and isinstance(said, Said)
    assert said.template == "W_o gives back {rows} columns, D = {D}" and said.template.context == "Block"
    assert said.arguments == {"rows": 3, "D": 4}
    assert type(said + "!") is str and said + "!" == "W_o gives back 3 columns, D = 4!"  # joined: plain English


def test_the_core_still_says_its_english():
    assert sharing_name(8, 2) == "grouped-query attention" and sharing_name(8, 8) == "multi-head attention"
    widths = {"L": 4, "D": 6, "D_o": 3}

    class Projected:
        source = "projected"
    said = why_unavailable(Projected, False, widths)
    assert said == ("W_o gives back 3 columns, but the residual stream X is D = 6 wide: x + Attn needs W_o to have "
                    "D = 6 rows (a session switched from direct mode has X = [Q | K | V] and W_o = I of V's width).")
    assert said.arguments == {"rows": 3, "D": 6}
