"""The Efficient attention and Transformer block panels at L = 4096: the longest GUI-thread block during an edit.

A projected session (L tokens of width D, ``heads`` heads, so the block has an X to work on) opens in the
window at 1600 × 1000 with both panels in front. With a 2-ms heartbeat QTimer running, one edit (an X cell,
then the temperature) is made and the run waits until both panels show what they made of it (or, for a panel
that does not compute at this size, until the window has drawn the edit and a second has passed). The longest
gap between heartbeats is how long the GUI thread could not answer. Where the Efficient panel still has a
Compute button, pressing it is measured the same way. ``--hidden``: both panels behind other tabs, what the
edit itself costs the GUI thread, for comparison.

``python -m benchmarks.panel_work`` prints one BENCH_JSON line.
"""
from __future__ import annotations

import argparse

import numpy as np

from benchmarks._gaps import longest_blocks
from benchmarks._util import emit, now, qapp, settle


def projected_session(length, width, heads, seed):
    from explorer.core.session import Session, Settings

    rng = np.random.default_rng(seed)
    mats = {"X": rng.standard_normal((length, width)),
            **{n: rng.standard_normal((width, width)) / np.sqrt(width) for n in ("Wq", "Wk", "Wv", "Wo")}}
    mats.update(Q=mats["X"] @ mats["Wq"].T, K=mats["X"] @ mats["Wk"].T, V=mats["X"] @ mats["Wv"].T)
    return Session(tokens=tuple(f"t{i}" for i in range(length)), matrices=mats,
                   settings=Settings(source="projected", heads=heads), title=f"projected L={length}")


def measure(length, width, heads, blocks, seed, heartbeat_ms=2, hidden=False):
    from explorer.main_window import MainWindow

    app = qapp()
    window = MainWindow(projected_session(length, width, heads, seed), persist_layout=False, recovery=False)
    window.resize(1600, 1000)
    window.show()
    settle(app)
    window.model.flush()
    for name in ("efficient", "block"):
        window.docks[name].show()
        window.docks[name].raise_()
    if hidden:  # the same window with both panels behind other tabs: the edit's own cost, for comparison
        for name in ("sqrt_d", "model_view"):
            window.docks[name].raise_()
    settle(app)
    eff, block = window.panels["efficient"], window.panels["block"]
    block.blocks.setValue(blocks)
    model = window.model
    live = hasattr(eff, "view") and not hidden  # the panels compute on a worker (after) or not (before, hidden)

    def panels_done():
        if not live:
            return True
        return eff.view.work.state != "computing" and block.view.work.state != "computing"

    settle(app)
    start = now()
    while not panels_done() and now() - start < 600:
        app.processEvents()
    window.grab()

    actions = [("X cell", lambda: model.set_cell("X", 1, 0, float(model.matrix("X")[1, 0]) + 0.5)),
               ("temperature", lambda: model.set_param("temperature", model.settings.temperature + 0.25))]
    if hasattr(eff, "compute"):
        actions.append(("Compute pressed", lambda: eff.compute.click()))
    out = longest_blocks(window, actions, panels_done, (0.2 if live else 1.0), heartbeat_ms)
    texts = {"efficient": eff.readout.text()[:160], "block": block.note.text()[:160] or "drawn"}
    window.model.undo_stack.setClean()
    window.close()
    return {"L": length, "D": width, "heads": heads, "blocks": blocks, "hidden": hidden, "live": live, "runs": out,
            "texts": texts}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--L", type=int, default=4096)
    p.add_argument("--D", type=int, default=64)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--blocks", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--hidden", action="store_true", help="both panels behind other tabs (the edit's own cost)")
    a = p.parse_args(argv)
    emit(measure(a.L, a.D, a.heads, a.blocks, a.seed, hidden=a.hidden))


if __name__ == "__main__":
    main()
