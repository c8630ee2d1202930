"""The JSON parser's complaints as translatable texts (F21): its usual messages, in its own English words, marked
for translation; any other message stays the parser's words. The line and column are said around them."""
from __future__ import annotations

from .translatable import QT_TRANSLATE_NOOP

# json.JSONDecodeError.msg (a trailing " at" dropped: the line and column follow) → the same words, marked
PARSER_WORDS = {str(words): words for words in (
    QT_TRANSLATE_NOOP("JSON", "Expecting value"),
    QT_TRANSLATE_NOOP("JSON", "Expecting property name enclosed in double quotes"),
    QT_TRANSLATE_NOOP("JSON", "Expecting ':' delimiter"),
    QT_TRANSLATE_NOOP("JSON", "Expecting ',' delimiter"),
    QT_TRANSLATE_NOOP("JSON", "Unterminated string starting"),
    QT_TRANSLATE_NOOP("JSON", "Invalid control character"),
    QT_TRANSLATE_NOOP("JSON", "Invalid \\escape"),
    QT_TRANSLATE_NOOP("JSON", "Invalid \\uXXXX escape"),
    QT_TRANSLATE_NOOP("JSON", "Extra data"),
    QT_TRANSLATE_NOOP("JSON", "Illegal trailing comma before end of object"),  # Python 3.13 and later
    QT_TRANSLATE_NOOP("JSON", "Illegal trailing comma before end of array"),
)}


def parser_words(message: str) -> str:
    """``json.JSONDecodeError.msg`` without its trailing " at": a marked text when it is one of the parser's
    usual messages, else the parser's words as they are."""
    words = message.removesuffix(" at")  # "Unterminated string starting at": the line and column follow
    return PARSER_WORDS.get(words, words)
