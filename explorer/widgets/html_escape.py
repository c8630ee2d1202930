"""``escape`` for the rich texts of labels and tooltips: ``html.escape`` without importing ``html``.

Importing ``html`` loads ``html.entities`` (a table of 2 231 named entities, for ``unescape``) and
compiles its patterns: ~1.5 ms of the Readout's first build at start-up, for five replacements.
"""
from PySide6.QtGui import Qt

_TABLE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"})


def escape(text: str) -> str:
    """``text`` with & < > " ' written as HTML entities, as ``html.escape(text)`` writes them."""
    return str(text).translate(_TABLE)


def plain_tooltip(text: str) -> str:
    """A plain tooltip ``text`` as Qt will show it as written: where Qt would take it for rich text (a token
    such as ``<s>`` before its first line break looks like a tag, and vanishes), escaped, its lines kept."""
    return f"<p style='white-space:pre-wrap'>{escape(text)}</p>" if text and Qt.mightBeRichText(text) else text
