"""The Sensitivity, A/B diff and Generation panels at their largest size: the longest GUI-thread block during an edit.

A direct session (L tokens, one head of width ``d``; the Generation panel's causal mask off, so it computes full
causal attention of its own) opens in the window at 1600 × 1000 with one panel in front (A marked first for the
A/B diff). With a 2-ms heartbeat QTimer running, one Q cell is edited and the run waits until the panel shows what
it made of it (for a panel that does not compute on a worker, until the window has drawn the edit and a second has
passed). The longest gap between heartbeats is how long the GUI thread could not answer. ``--hidden``: the panel
behind another tab, what the edit itself costs the GUI thread, for comparison.

``python -m benchmarks.view_work --panel sensitivity --L 2048`` prints one BENCH_JSON line.
"""
from __future__ import annotations

import argparse

import numpy as np

from benchmarks._gaps import longest_blocks
from benchmarks._util import emit, now, qapp, settle

PANELS = ("sensitivity", "ab_diff", "generation")


def direct_session(length, width, heads, seed):
    from explorer.core.session import Session, Settings

    rng = np.random.default_rng(seed)
    mats = {n: rng.standard_normal((length, width)) for n in "QKV"}
    return Session(tokens=tuple(f"t{i}" for i in range(length)), matrices=mats,
                   settings=Settings(heads=heads, causal=False), title=f"direct L={length}")


def works(panel):
    """The panel's Background objects (none before it had one): its view's, or for the A/B diff the comparison's."""
    owner = panel.model.comparison if type(panel).__name__ == "ABDiffPanel" else getattr(panel, "view", None)
    found = [getattr(owner, name, None) for name in ("work", "check")]
    return [w for w in found if w is not None and hasattr(w, "state")]


def measure(name, length, width, heads, seed, heartbeat_ms=2, hidden=False):
    from explorer.main_window import MainWindow

    app = qapp()
    window = MainWindow(direct_session(length, width, heads, seed), persist_layout=False, recovery=False)
    window.resize(1600, 1000)
    window.show()
    settle(app)
    window.model.flush()
    model = window.model
    panel = window.panels[name]
    window.docks[name].show()
    window.docks[name].raise_()
    if name == "ab_diff":
        model.comparison.mark()
    if hidden:
        window.docks["model_view" if name == "generation" else "qk_space"].raise_()
    settle(app)
    background = works(panel) and not hidden

    asked = {}  # Background → its key before the edit: done once it has asked for the edited state, and has it

    def done():
        return all(w.state != "computing" and w.key != asked.get(w) for w in works(panel)) if background else True

    start = now()
    while not done() and now() - start < 600:
        app.processEvents()
    window.grab()

    def before_each():
        asked.clear()
        asked.update({w: w.key for w in works(panel)})

    actions = [("Q cell", lambda: model.set_cell("Q", 1, 0, float(model.matrix("Q")[1, 0]) + 0.5)),
               ("temperature", lambda: model.set_param("temperature", model.settings.temperature + 0.25))]
    out = longest_blocks(window, actions, done, (0.2 if background else 1.0), heartbeat_ms, before_each)
    text = {"sensitivity": lambda: panel.summary.text(), "ab_diff": lambda: panel.summary.text(),
            "generation": lambda: panel.equivalence.text()}[name]()[:160]
    window.model.undo_stack.setClean()
    window.close()
    return {"panel": name, "L": length, "d": width, "heads": heads, "hidden": hidden, "background": bool(background),
            "runs": out, "text": text}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--panel", choices=PANELS, required=True)
    p.add_argument("--L", type=int, default=2048)
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--heads", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--hidden", action="store_true", help="the panel behind another tab (the edit's own cost)")
    a = p.parse_args(argv)
    emit(measure(a.panel, a.L, a.d, a.heads, a.seed, hidden=a.hidden))


if __name__ == "__main__":
    main()
