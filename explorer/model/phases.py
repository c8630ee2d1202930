"""What the results of the model are at every moment: one value, changed only through ``TRANSITIONS``.

=============  ===============================================================  =========
phase          the results …                                                   readable
=============  ===============================================================  =========
CURRENT        are the state's (edits of this turn may still be scheduled)     yes
COMPUTING      are an earlier state's; the worker computes newer ones          yes
REWRITING      are being rewritten in their own buffers (too big to copy)      no
LOADING        are another session's; the loaded session's are on the way      no
STALE          are an earlier state's; the last recompute failed               yes
BROKEN         were half rewritten when the last recompute failed              no
UNLOADED       are another session's; the loaded session's recompute failed     no
=============  ===============================================================  =========

Events: SUBMIT (a whole recompute given to the worker, from copies), REWRITE (a recompute into the
results' own buffers, here or on the worker), LOAD (a large session handed to the worker), DONE
(the newest request's results arrived), DONE_OLDER (an older request's results were accepted on the
way), FAIL, COMPUTED (a whole recompute succeeded on this thread).
"""
from enum import Enum


class Phase(Enum):
    CURRENT = "current"
    COMPUTING = "computing"
    REWRITING = "rewriting"
    LOADING = "loading"
    STALE = "stale"
    BROKEN = "broken"
    UNLOADED = "unloaded"


P = Phase
_ALL = tuple(Phase)
UNREADABLE = frozenset({P.REWRITING, P.LOADING, P.BROKEN, P.UNLOADED})
WORKING = frozenset({P.COMPUTING, P.REWRITING, P.LOADING})
FAILED = frozenset({P.STALE, P.BROKEN, P.UNLOADED})

# TRANSITIONS[event][phase] → the next phase. A loading session stays "loading" (never shown with
# another session's numbers) and unreadable buffers stay unreadable until the newest request is done.
TRANSITIONS = {
    "SUBMIT": {P.CURRENT: P.COMPUTING, P.COMPUTING: P.COMPUTING, P.REWRITING: P.REWRITING,
               P.LOADING: P.LOADING, P.STALE: P.COMPUTING, P.BROKEN: P.REWRITING,
               P.UNLOADED: P.LOADING},
    "REWRITE": {P.CURRENT: P.REWRITING, P.COMPUTING: P.REWRITING, P.REWRITING: P.REWRITING,
                P.LOADING: P.LOADING, P.STALE: P.REWRITING, P.BROKEN: P.REWRITING,
                P.UNLOADED: P.LOADING},
    "LOAD": {phase: P.LOADING for phase in _ALL},
    "DONE": {phase: P.CURRENT for phase in _ALL},
    "DONE_OLDER": {phase: phase for phase in _ALL},
    "FAIL": {P.CURRENT: P.STALE, P.COMPUTING: P.STALE, P.REWRITING: P.BROKEN, P.LOADING: P.UNLOADED,
             P.STALE: P.STALE, P.BROKEN: P.BROKEN, P.UNLOADED: P.UNLOADED},
    "COMPUTED": {phase: P.CURRENT for phase in _ALL},
}
