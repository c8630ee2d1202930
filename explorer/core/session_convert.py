"""Read a session file in another process and hand it back in the binary form (no Qt).

``python -m explorer.core.session_convert SOURCE TARGET.aesz``: ``load_session(SOURCE)`` (every
check of the format) then ``save_session(TARGET)``. The window runs this for a large JSON session:
``json.loads`` of 130 MB holds the GIL ~1.3 s (the whole read ~2.5 s), which on any thread of the
window's process would freeze it; the binary form it gets back reads in a fraction of that, mostly
outside the GIL. Exit status 0, or 2 with the SessionError's message (which names SOURCE's file) as
the last line on stderr.
"""
from __future__ import annotations

import sys

from .errors import SessionError
from .session import load_session, save_session

FAILED = 2


def main(argv=None) -> int:
    source, target = (sys.argv[1:] if argv is None else argv)
    try:
        save_session(load_session(source), target)
    except SessionError as exc:
        sys.stderr.write(str(exc).replace("\n", " ") + "\n")
        return FAILED
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
