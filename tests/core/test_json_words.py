"""The JSON parser's complaints in a refused session (F21): its usual messages are marked for translation
(explorer/core/json_words.py), the line and column said beside them; an unknown message stays its own words."""
import pytest

from explorer.core.errors import SessionError
from explorer.core.json_words import PARSER_WORDS, parser_words
from explorer.core.session_json import parse
from explorer.core.translatable import Template, message_of


def refusal(text):
    with pytest.raises(SessionError) as caught:
        parse(text, "s.json")
    return message_of(caught.value)


# text, the parser's words (as Python's json says them, " at" dropped), line, column — positions counted by hand
@pytest.mark.parametrize("text, words, line, column", [
    ('{"a": }', "Expecting value", 1, 7),
    ("{a: 1}", "Expecting property name enclosed in double quotes", 1, 2),
    ('{\n  "a" 1}', "Expecting ':' delimiter", 2, 7),
    ("[1 2]", "Expecting ',' delimiter", 1, 4),
    ('{"a": "xyz}', "Unterminated string starting", 1, 7),
    ('{"a": "x\ty"}', "Invalid control character", 1, 9),
    ('{"a": "\\q"}', "Invalid \\escape", 1, 8),
    ('{"a": "\\u12"}', "Invalid \\uXXXX escape", 1, 9),
    ('{"a": 1} 2', "Extra data", 1, 10),
])
def test_the_parsers_usual_words_are_marked_and_the_place_kept(text, words, line, column):
    said = refusal(text)
    what = said.arguments["what"]
    assert what == words and isinstance(what, Template) and what.context == "JSON"
    assert (said.arguments["lineno"], said.arguments["colno"]) == (line, column)
    assert said.startswith(f"s.json: is not valid JSON: {words} at line {line}, column {column}")


def test_every_entry_of_the_table_is_marked_in_its_own_words():
    assert len(PARSER_WORDS) >= 9
    for words, marked in PARSER_WORDS.items():
        assert marked == words and isinstance(marked, Template) and marked.context == "JSON"
        assert not words.endswith(" at")


def test_a_message_not_in_the_table_stays_the_parsers_words():
    words = parser_words("Invalid \\escape: 'q' at")  # the pure-Python scanner's longer form
    assert words == "Invalid \\escape: 'q'" and not isinstance(words, Template)
    assert parser_words("Unterminated string starting at") == "Unterminated string starting"
    assert isinstance(parser_words("Expecting value"), Template)


def test_a_refusal_from_the_converting_process_keeps_its_marks(tmp_path):
    """A large JSON session is read in another process (explorer.core.session_convert): its refusal comes back
    on stderr as marked JSON, and is the same marked text again (so the window can say it in 中文)."""
    import subprocess
    import sys

    from explorer.core.session_convert import FAILED, read_refusal

    bad = tmp_path / "big.json"
    bad.write_text('{"format": "attention-explorer-session",\n "version": 6,,}', encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "explorer.core.session_convert", str(bad), str(tmp_path / "b.aesz")],
                          capture_output=True, text=True)
    assert done.returncode == FAILED
    said = read_refusal(done.stderr.strip().splitlines()[-1])
    assert said == "big.json: is not valid JSON: Expecting property name enclosed in double quotes at line 2, column 15"
    assert said.template.context == "Session" and said.arguments["lineno"] == 2
    what = said.arguments["what"]
    assert isinstance(what, Template) and what.context == "JSON"
    assert read_refusal("a line written some other way") == "a line written some other way"
    assert read_refusal("MARKED {not json") == "MARKED {not json"
