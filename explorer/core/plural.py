"""Counted nouns in messages: "1 token", "4,096 tokens", "1 head" — never "1 tokens"."""


def count(n, noun, plural=None):
    """``n`` and ``noun``, plural unless ``n`` is 1 (``plural`` when not ``noun + "s"``); thousands
    grouped: count(1, "token") → "1 token", count(4096, "token") → "4,096 tokens"."""
    word = noun if n == 1 else (plural or f"{noun}s")
    return f"{n:,} {word}"


def noun(n, singular, plural=None):
    """The noun alone, for ``n`` of them: noun(1, "column") → "column", noun(2, "column") → "columns"."""
    return singular if n == 1 else (plural or f"{singular}s")
