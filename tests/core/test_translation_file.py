"""The 中文 translation file (F21), read as XML without Qt: every text translated, placeholders kept, and the
settings' labels and choices (translated by their English text on the panel side) all there."""
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from explorer.core.settings_schema import SETTINGS

TS = Path(__file__).resolve().parents[2] / "explorer" / "resources" / "i18n" / "explorer_zh_CN.ts"
CJK = re.compile(r"[\u3400-\u9fff]")


def messages():
    """(context, source, translation element) of every message of the .ts."""
    root = ET.parse(TS).getroot()
    return [(c.findtext("name") or "", m.findtext("source"), m.find("translation"))
            for c in root.iter("context") for m in c.iter("message")]


def test_every_message_is_translated_and_none_is_left_over():
    found = messages()
    assert len(found) > 150
    for context, source, translation in found:
        assert translation.get("type") not in ("unfinished", "obsolete", "vanished"), (context, source)
        assert (translation.text or "").strip(), (context, source)


def test_translations_keep_the_placeholders_and_at_most_one_accelerator():
    """Every placeholder of the source is in the translation, with two exceptions Chinese grammar needs
    (tools/update_translations.py): a count in English words ``{x}`` ("4 tokens") may be given by its bare number
    ``{n_x}``, which the code passes beside it; an English-only word ``{…_en}`` (a plural ending) may be left out.
    The translation has no other placeholder."""
    for context, source, translation in messages():
        said = translation.text
        asked, given = set(re.findall(r"\{(\w+)\}", source)), set(re.findall(r"\{(\w+)\}", said))
        for name in asked - given:
            assert name.endswith("_en") or f"n_{name}" in given, (context, source, name)
        for name in given - asked:
            assert name.startswith("n_") and name[2:] in asked, (context, source, name)
        said, source = (re.sub(r"&\w+;", "", text) for text in (said, source))  # (&lt; &nbsp; are no accelerators)
        assert said.count("&") <= 1 and ("&" in said) == ("&" in source), (context, source, said)


def test_placeholders_say_what_they_hold():
    """A translator reads ``{newest_version}``, ``{most_objects}``: never a name told from another by a number
    (``{version2}``, ``{axis2}``), which says nothing of what it holds."""
    for context, source, _ in messages():
        numbered = [name for name in re.findall(r"\{(\w+)\}", source) if name[-1].isdigit()]
        assert not numbered, (context, source, numbered)


def test_most_translations_are_chinese():
    """All but the texts that are proper names or formulas in Chinese too, and the joins of other texts
    ("{where}: {why}": no word outside the placeholders, the colon written full-width)."""
    same = {(c, s) for c, s, t in messages()
            if not CJK.search(t.text) and re.search(r"[A-Za-z]", re.sub(r"\{\w+\}", "", s))}
    names = {("Settings", "llama3 — Llama 3.1 / 3.2"), ("Controls", "Q, K, V"), ("Lesson", ", "),
             ("Documents", "CSV (*.csv);;NumPy (*.npy)")}  # (Q、K、V; the 、 of a list; file types' own names)
    assert same <= names, same


def test_every_setting_label_and_choice_has_a_translation():
    sources = {s for c, s, _ in messages() if c == "Settings"}
    for setting in SETTINGS:
        assert setting.label in sources, setting.name
        for _, label in setting.choices:
            assert label in sources, (setting.name, label)


def test_a_token_is_called_one_thing():
    """词元 throughout, never the English word beside it in one sentence and 词元 in the next (the interface said
    both): a placeholder ({token}), a field or file name (query_tokens, tokenizer.json) is no word."""
    word = re.compile(r"(?<![\w{./-])token(?![\w}.])")
    for context, source, translation in messages():
        assert not word.search(translation.text), (context, source, translation.text)
