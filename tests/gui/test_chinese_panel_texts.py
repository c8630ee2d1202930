"""F21: panel texts that stayed English in 中文 — words built inside f-strings (lupdate never saw them), and
sentences a panel drew before the switch and did not draw again. Expected Chinese written by hand."""
from types import SimpleNamespace

import pytest

from explorer import i18n
from explorer.panels.model_view.next_tokens import table


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_language("en")


def entry(label, token_id, before, after):
    return SimpleNamespace(label=label, token_id=token_id, before=before, after=after, change=after - before)


def test_the_next_token_tables_column_titles_are_chinese(qapp):
    change = SimpleNamespace(before_top=[entry("·the", 1, 0.5, 0.25)], after_top=[entry("·cat", 2, 0.125, 0.5)])
    assert "before any edit" in table(change, False) and "with the edited head" in table(change, False)
    i18n.set_language("zh")
    html = table(change, False)
    assert "编辑之前" in html and "用编辑过的头" in html
    assert "before any edit" not in html and "with the edited head" not in html
