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


def test_a_refusal_wrapped_by_another_keeps_both_templates():
    """A settings check inside a session file: the session's refusal says where, the check's says why, and each
    stays a marked template (``message_of``), so the Qt layer can say both in the interface's language."""
    import json

    import pytest

    from explorer.core.errors import SessionError
    from explorer.core.session import session_from_json
    from explorer.core.translatable import message_of

    text = json.dumps({"format": "attention-explorer-session", "version": 6, "tokens": ["a", "b"],
                       "settings": {"temperature": 25.0},
                       "matrices": {"Q": [[1, 2], [3, 4]], "K": [[1, 2], [3, 4]], "V": [[1, 2], [3, 4]]}})
    with pytest.raises(SessionError) as caught:
        session_from_json(text, "mine.json")
    said = message_of(caught.value)
    assert said == "mine.json: settings.temperature is 25.0; it must lie in 0.05..20" == str(caught.value)
    assert said.template == "{where}: {why}" and said.template.context == "Session"
    why = said.arguments["why"]
    assert why.template == "{place} is {value}; it must lie {allowed}" and why.template.context == "SettingsCheck"
    assert why.arguments["allowed"].template == "in {low}..{high}"


def test_a_typed_number_refused_remembers_its_template():
    import pytest

    from explorer.core.translatable import message_of
    from explorer.widgets.number_text import parse_number

    with pytest.raises(ValueError) as caught:
        parse_number("1,2,3")
    said = message_of(caught.value)
    assert said.startswith("'1,2,3' is not a number (a comma") and said.template.context == "Numbers"
    assert said.arguments == {"text": "'1,2,3'"}
    assert message_of(ValueError("plain")) == "plain" and message_of(KeyError(1, 2)) == str(KeyError(1, 2))


def test_a_marked_text_goes_through_json_and_comes_back_marked():
    """``as_plain`` / ``from_plain``: a refusal made in another process keeps its context, template and arguments
    (each argument too, a marked one staying marked); plain text and numbers stay as they are."""
    import json

    from explorer.core.translatable import as_plain, from_plain

    inner = QT_TRANSLATE_NOOP("JSON", "Expecting value")
    said = QT_TRANSLATE_NOOP("Session", "{where}: {what} at line {line}").format(where="s.json", what=inner, line=3)
    back = from_plain(json.loads(json.dumps(as_plain(said))))
    assert back == "s.json: Expecting value at line 3" and isinstance(back, Said)
    assert back.template == said.template and back.template.context == "Session"
    assert back.arguments["line"] == 3 and back.arguments["where"] == "s.json"
    assert isinstance(back.arguments["what"], Template) and back.arguments["what"].context == "JSON"
    assert from_plain(as_plain("plain")) == "plain" and not isinstance(from_plain(as_plain("plain")), Template)
