"""The Model view's thumbnails on a real screen (issue 16): a GPT-2-small-sized checkpoint (12 layers ×
12 heads, random weights) run on ~1,024 tokens in the app's window; from the moment the forward pass
returns on the worker until the 144 thumbnails' pixels are on the screen (read back from the X server).

    python -m benchmarks.model_view --screen [--L 1024] [--repeats 3]

Printed per run: forward pass (worker), pooling the thumbnails (worker), the hand-over to the GUI
thread, and the pixels over the grid changed on the screen — the last two counted from the pass's end.
Goal: the thumbnails on screen ≤ 0.5 s after the forward pass ends.
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._util import emit, on_screen, qapp, run_standalone_on_screen, screen_pixels  # noqa: E402
from benchmarks.model_forward import make_checkpoint  # noqa: E402


def text_of(tokenizer, length):
    """Words from the tokenizer's vocabulary until the text is ``length`` − 1 tokens (the model adds none)."""
    words = [w.lstrip("Ġ") for w in tokenizer.get_vocab() if w.startswith("Ġ") and w[1:].isalpha()][:40]
    text, n = "", 0
    i = 0
    while n < length - 1:
        candidate = (text + " " + words[i % len(words)]).strip()
        if len(tokenizer.encode(candidate).ids) > length - 1:
            break
        text, n, i = candidate, len(tokenizer.encode(candidate).ids), i + 1
    return text


def _stamped(fn, times, key):
    """``fn`` that notes in ``times[key]`` when it returns (on whichever thread ran it)."""
    def stamped(*args, **kwargs):
        out = fn(*args, **kwargs)
        times[key] = time.perf_counter()
        return out
    return stamped


def measure(length, repeats):
    from explorer.main_window import MainWindow
    from explorer.core.presets import random_session

    app = qapp()
    window = MainWindow(random_session(8, 16, 0), persist_layout=False, recovery=False)
    window.resize(1600, 1000)
    window.show()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "gpt2-small-random"
        make_checkpoint(folder)
        window.open_model()  # the view first shows with the embedded model, then takes the folder
        ck = window.model.checkpoints
        deadline = time.perf_counter() + 30
        while (ck.model is None or ck.busy) and time.perf_counter() < deadline:
            app.processEvents()
        window.panels["model_view"].open_model(str(folder))
        while (ck.model is None or ck.model.config.layers != 12) and time.perf_counter() < deadline:
            app.processEvents()
        panel = window.panels["model_view"]
        model = ck.model
        ended = {}
        import explorer.model.checkpoints as cp
        real_run, real_max_pool = model.run, cp.max_pool
        model.run = _stamped(real_run, ended, "t")              # the forward pass returned
        cp.max_pool = _stamped(real_max_pool, ended, "pooled")   # the thumbnails are pooled
        got = {}
        ck.ran.connect(lambda: got.setdefault("ran", time.perf_counter()))
        ck.failed.connect(lambda reason: got.setdefault("failed", reason))
        texts = [text_of(model.tokenizer, length), text_of(model.tokenizer, length - 1)]
        rows = []
        for r in range(repeats):
            grid = panel.grid
            app.processEvents()
            rect = (0, 0, grid.width(), grid.height())
            before = screen_pixels(app, grid, rect).toImage()
            ended.clear()
            got.clear()
            t0 = time.perf_counter()
            ck.run(texts[r % 2])
            while "ran" not in got:
                app.processEvents()
                time.sleep(0.001)
                if "failed" in got:
                    raise SystemExit(f"the run failed: {got['failed']}")
            while True:
                app.processEvents()
                now = screen_pixels(app, grid, rect).toImage()
                if now != before:
                    shown = time.perf_counter()
                    break
            tokens = len(ck.latest.run.tokens)
            rows.append({"tokens": tokens, "forward_s": ended["t"] - t0, "pool_ms": (ended["pooled"] - ended["t"]) * 1e3,
                         "handed_ms": (got["ran"] - ended["t"]) * 1e3, "on_screen_ms": (shown - ended["t"]) * 1e3})
        cp.max_pool = real_max_pool
        model.run = real_run
    window.model.shutdown()
    window.close()
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--L", type=int, default=1024)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)
    rows = measure(args.L, args.repeats)
    where = "real screen (Xvfb, pixels read back)" if on_screen() else "offscreen (grab() of the grid)"
    print(f"Model view, 12 layers × 12 heads, {where}:")
    for row in rows:
        print(f"  {row['tokens']} tokens: forward {row['forward_s']:.2f} s; after it ends: thumbnails pooled "
              f"{row['pool_ms']:.0f} ms, handed to the GUI {row['handed_ms']:.0f} ms, on screen "
              f"{row['on_screen_ms']:.0f} ms (goal ≤ 500 ms)")
    med = float(np.median([r["on_screen_ms"] for r in rows]))
    print(f"median: thumbnails on screen {med:.0f} ms after the forward pass ends")
    emit({"part": "model_view", "rows": rows, "on_screen_ms": med})


if __name__ == "__main__":
    run_standalone_on_screen(main)
