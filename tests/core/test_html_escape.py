"""The rich texts' ``escape`` writes what the standard library's ``html.escape`` writes."""
import html

import pytest

from explorer.widgets.html_escape import escape


@pytest.mark.parametrize("text", ["", "plain", "a<b>&\"'", "猫 & 追 <i>红色</i>", "&amp; already", "'quoted'", "\u00a0→∞"])
def test_escape_is_html_escape(text):
    assert escape(text) == html.escape(text)
