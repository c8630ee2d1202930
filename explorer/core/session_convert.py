"""Read a session file in another process and hand it back in the binary form (no Qt).

``python -m explorer.core.session_convert SOURCE TARGET.aesz``: ``load_session(SOURCE)`` (every
check of the format) then ``save_session(TARGET)``. The window runs this for a large JSON session:
``json.loads`` of 130 MB holds the GIL ~1.3 s (the whole read ~2.5 s), which on any thread of the
window's process would freeze it; the binary form it gets back reads in a fraction of that, mostly
outside the GIL. Exit status 0, or 2 with the SessionError's message (which names SOURCE's file) as
the last line on stderr, as ``MARKED`` and its marked text as JSON (``translatable.as_plain``: the window
says it in its language). As soon as the file is parsed, before its matrices are checked, one line on
stdout gives its shape, ``OUTLINE heads queries keys head`` (nothing if its settings cannot be a
session's): the window makes the shown head's memory ready meanwhile (``spare_buffers``).
"""
from __future__ import annotations

import sys

from .errors import SessionError
from .session import load_session, save_session
from .spare_buffers import outline_shape
from .translatable import as_plain, from_plain, message_of

FAILED = 2
OUTLINE = "OUTLINE"
MARKED = "MARKED"


def _say_outline(n_queries, n_keys, settings):
    shape = outline_shape(n_queries, n_keys, settings)
    if shape is not None:
        sys.stdout.write(f"{OUTLINE} {' '.join(str(n) for n in shape)}\n")
        sys.stdout.flush()


def read_outline(line):
    """(heads, queries, keys, head) from a line this process wrote, or None."""
    words = line.split()
    if len(words) == 5 and words[0] == OUTLINE and all(w.isdigit() for w in words[1:]):
        return tuple(int(w) for w in words[1:])
    return None


def read_refusal(line):
    """The message of the last line this process wrote on stderr: its marked text again, or the line."""
    if line.startswith(MARKED + " "):
        import json  # (this module loads with the window, which starts without json)

        try:
            return from_plain(json.loads(line[len(MARKED) + 1:]))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            pass
    return line


def main(argv=None) -> int:
    source, target = (sys.argv[1:] if argv is None else argv)
    try:
        save_session(load_session(source, on_outline=_say_outline), target)
    except SessionError as exc:
        import json

        sys.stderr.write(f"{MARKED} {json.dumps(as_plain(message_of(exc)))}\n")
        return FAILED
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
