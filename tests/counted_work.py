"""Counting the work ``load_session`` does, instead of timing it (tests never assert on wall-clock time).

Inside ``counting_session_work()`` the names ``open``, ``json`` and ``re`` that
``explorer.core.session`` looks up are stand-ins that count: files opened, read calls and bytes read,
``json.loads`` calls (the parser, which costs time and memory per value), and the longest pattern
handed to the ``re`` module (a pattern built from a file's text costs time per character: a refused
3 MB number literal once took 3–4 s to compile). The time each load takes is measured, for people,
by ``benchmarks/hostile_files.py``.
"""
import builtins
import contextlib
import json
import re
from dataclasses import dataclass

from explorer.core import session_json, session_prescan, session_read

LONGEST_PATTERN = 1_000  # a pattern may hold one refused number literal (at most 100 characters), escaped


@dataclass
class Work:
    opened: int = 0
    reads: int = 0
    bytes_read: int = 0
    parses: int = 0
    longest_pattern: int = 0

    def assert_bounded(self, file_size, loads=1):
        """At most ``loads`` loads' worth: one open, one read of at most the file, one parse, short patterns, each."""
        assert self.opened <= loads, f"opened the file {self.opened} times"
        assert self.reads <= loads, f"read it in {self.reads} calls"
        assert self.bytes_read <= loads * file_size, f"read {self.bytes_read:,} bytes of a {file_size:,}-byte file"
        assert self.parses <= loads, f"parsed it {self.parses} times"
        assert self.longest_pattern <= LONGEST_PATTERN, f"built a regular expression of {self.longest_pattern:,} characters"


class _Module:
    """A module as the session code sees it, with some of its functions replaced by counting ones."""

    def __init__(self, module, **replaced):
        self._module, self._replaced = module, replaced

    def __getattr__(self, name):
        return self._replaced[name] if name in self._replaced else getattr(self._module, name)


class _File:
    def __init__(self, f, work):
        self._f, self._work = f, work

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()

    def read(self, *args):
        data = self._f.read(*args)
        self._work.reads += 1
        self._work.bytes_read += len(data)
        return data

    def __getattr__(self, name):
        return getattr(self._f, name)


@contextlib.contextmanager
def counting_session_work():
    """Yields a ``Work`` that counts what the session reader (``explorer.core.session_*``) does until the block ends."""
    work = Work()

    def counting_open(*args, **kwargs):
        work.opened += 1
        return _File(builtins.open(*args, **kwargs), work)

    def counting_loads(*args, **kwargs):
        work.parses += 1
        return json.loads(*args, **kwargs)

    def pattern_counted(name):
        def call(pattern, *args, **kwargs):
            size = len(pattern.pattern) if isinstance(pattern, re.Pattern) else len(pattern)
            work.longest_pattern = max(work.longest_pattern, size)
            return getattr(re, name)(pattern, *args, **kwargs)
        return call

    patterns = {name: pattern_counted(name) for name in
                ("compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split")}
    # the session reader in parts: session_read opens and reads, session_json parses and locates,
    # session_prescan counts the raw bytes
    saved = [(module, name, getattr(module, name)) for module in (session_json, session_prescan)
             for name in ("json", "re") if hasattr(module, name)]
    session_read.open = counting_open  # shadows the builtin for the module's code only
    for module, name, real in saved:
        setattr(module, name, _Module(json, loads=counting_loads) if name == "json" else _Module(re, **patterns))
    try:
        yield work
    finally:
        del session_read.open
        for module, name, real in saved:
            setattr(module, name, real)
