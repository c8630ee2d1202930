"""Loading the libraries without garbage collection at start-up (issue 18: ~25 ms).

Importing NumPy, pyqtgraph and the explorer makes ~100 k objects that live as long as the app. With
collection on, ~120 collections ran meanwhile, each walking the young objects so far (~30 ms). Paused,
then frozen (``gc.freeze``: kept out of every later collection), they are walked by no collection at
all — neither at start-up nor in the full collections that would otherwise pause an edit or a drag.
What the imports left unreachable (~30 k small objects) stays: it adds no measurable memory.

Only at a start-up, where the libraries are first loaded: in a process that already ran (tests, a
script that loaded NumPy and pyqtgraph first), freezing would keep whatever garbage was waiting to be
collected — a model and its threads, say — for good, so nothing is paused or frozen there.
"""
import gc
import sys
from contextlib import contextmanager

LIBRARIES = ("numpy", "pyqtgraph")  # loaded by the block at a start-up, already there otherwise


@contextmanager
def paused_collection():
    """At a start-up (the libraries not loaded yet, collection on): no garbage collection inside the
    block, and what exists after it is frozen; collection then goes on as before. Elsewhere: nothing."""
    if not gc.isenabled() or any(name in sys.modules for name in LIBRARIES):
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()
