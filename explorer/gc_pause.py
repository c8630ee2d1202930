"""Loading the libraries without garbage collection (issue 18: ~25 ms of start-up).

Importing NumPy, pyqtgraph and the explorer makes ~100 k objects that live as long as the app. With
collection on, ~120 collections ran meanwhile, each walking the young objects so far (~30 ms). Paused,
then frozen (``gc.freeze``: kept out of every later collection), they are walked by no collection at
all — neither at start-up nor in the full collections that would otherwise pause an edit or a drag.
What the imports left unreachable (~30 k small objects) stays: it adds no measurable memory.
"""
import gc
from contextlib import contextmanager


@contextmanager
def paused_collection():
    """No garbage collection inside the block; what exists after it is frozen (collected as before after it)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_on:
            gc.enable()
