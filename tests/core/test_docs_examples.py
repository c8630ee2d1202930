"""Every ```json block of the docs that names the session format is a complete session that loads.

Fragments and examples of refused files belong in ```text blocks; this keeps the documented
examples from drifting away from what the reader accepts (as docs/session-format.md once did).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from explorer.core.errors import SessionError
from explorer.core.session import FORMAT_NAME, session_from_json

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```json[ \t]*\n(.*?)^```", re.DOTALL | re.MULTILINE)


def session_blocks() -> list[tuple[str, int, str]]:
    """(file relative to the repository, line of the opening fence, text) of each such block."""
    blocks = []
    for path in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]:
        text = path.read_text("utf-8")
        for match in BLOCK.finditer(text):
            if FORMAT_NAME in match.group(1):
                line = text.count("\n", 0, match.start()) + 1
                blocks.append((str(path.relative_to(ROOT)), line, match.group(1)))
    return blocks


def test_the_format_doc_has_session_examples():
    assert sum(name == "docs/session-format.md" for name, _, _ in session_blocks()) >= 2


@pytest.mark.parametrize("name, line, text", session_blocks(),
                         ids=[f"{name}:{line}" for name, line, _ in session_blocks()])
def test_each_session_example_loads(name, line, text):
    try:
        session_from_json(text, where=f"{name}, the json block at line {line}")
    except SessionError as e:
        pytest.fail(str(e))


def test_the_format_doc_has_a_table_row_for_every_field():
    """Every field the reader accepts (top level, settings, model_head, matrices) has its row in a table."""
    from explorer.core.session_data import MODEL_HEAD_FIELDS
    from explorer.core.session_limits import MATRIX_AXES, TOP_FIELDS
    from explorer.core.session_settings import SETTINGS_FIELDS

    text = (ROOT / "docs" / "session-format.md").read_text("utf-8")
    rows = re.findall(r"^\| ([^|]*) \|", text, re.MULTILINE)
    documented = {name for row in rows for name in re.findall(r"`(\w+)`", row)}
    fields = set(TOP_FIELDS) | set(SETTINGS_FIELDS) | set(MODEL_HEAD_FIELDS) | set(MATRIX_AXES)
    assert fields - documented == set()
