"""① Edit → pixels, the default window, side by side with a minimal pyqtgraph reference and matplotlib.

One process, one L, a Q cell of the shown head edited each repeat. Each repeat times, in a balanced
order (``balanced_orders``; with the events left by the previous side processed, untimed, before each):

* app — ``table.setData(index, text)`` on the editor's Q table model (what the delegate does when a
  person types a number and presses Enter) → ``model.flush()`` (the 0-ms recompute timer) →
  ``processEvents()`` (the app redraws what changed and paints) → the pixels;
* reference — the same work written plainly: the edited row of the head's scores, its softmax and
  the head's columns of that output row (what the app recomputes for a Q cell; ``--reference full``
  recomputes every head instead) + ``ImageItem.setImage`` for the three heatmaps the app shows
  (scores and weights of the head, the output), each in a bare pyqtgraph plot of the same size and
  place in a plain 1600×1000 window, + ``processEvents()`` + the pixels;
* matplotlib — the same NumPy + ``AxesImage.set_data``/``set_clim`` for the same heatmaps placed
  alike + ``canvas.draw()`` (the Qt backend's canvas on the real screen, Agg offscreen) + the pixels.

"The pixels": with ``--screen`` (the default of ``benchmarks.run`` where Xvfb exists) the three
windows sit side by side on a real X server and the pixels over each side's weights heatmap are read
back from the server (``QScreen.grabWindow``), which answers only once everything drawn before is
on screen — what a person sees, no more painted than Qt paints by itself. Offscreen (``--offscreen``
in the run) there is no screen, and ``grab()`` of the same rectangle repaints it instead; the old
measure, ``grab()`` of the *whole* window (which repaints every widget every time), is kept as the
"whole-window grab" column.

``python -m benchmarks.edit_pixels --L 512 [--screen]`` prints one BENCH_JSON line.
"""
from __future__ import annotations

import argparse

import numpy as np

from benchmarks._util import (build_window, emit, median, now, on_screen, place_on_screen, qapp,
                              run_standalone_on_screen, screen_pixels, settle)

SHOWN = ("scores", "weights", "output")  # the heatmap panels of the default layout


def reference_stages(q, k, v, heads):
    """Scores, softmax and output for every head, as plainly as NumPy says it."""
    length, width = q.shape
    d_h = width // heads
    qh = q.reshape(length, heads, d_h).transpose(1, 0, 2)
    kt = k.reshape(length, heads, d_h).transpose(1, 2, 0)
    vh = v.reshape(length, heads, -1).transpose(1, 0, 2)
    s = np.matmul(qh, kt)
    s *= 1.0 / np.sqrt(d_h)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    o = np.matmul(w, vh).transpose(1, 0, 2).reshape(length, -1)
    return s, w, o


def reference_row(q, k, v, s, w, o, heads, row, head):
    """What a Q cell of ``head`` changes, recomputed plainly: row ``row`` of that head's scores and
    weights, and the head's columns of output row ``row`` (in place in ``s``, ``w``, ``o``)."""
    d_h = q.shape[1] // heads
    cols = slice(head * d_h, (head + 1) * d_h)
    srow = k[:, cols] @ q[row, cols]
    srow *= 1.0 / np.sqrt(d_h)
    wrow = np.exp(srow - srow.max())
    wrow /= wrow.sum()
    s[head, row], w[head, row] = srow, wrow
    o[row, cols] = wrow @ v[:, cols]


def shown_images(s, w, o, head):
    """(image, levels) of the three heatmaps, levels as the app chooses them (symmetric, or 0..1)."""
    ls, lo = float(np.abs(s[head]).max()), float(np.abs(o).max())
    return [(s[head], (-ls, ls)), (w[head], (0.0, 1.0)), (o, (-lo, lo))]


def balanced_orders(n):
    """Orders of ``n`` sides in which every side comes first equally often and follows every other
    side equally often (a Williams design). A plain rotation of one order keeps each side's
    predecessor fixed: the app then always ran just after matplotlib's full-window Agg draw, which
    leaves the caches cold, and the reference always just after the app."""
    first = [0]
    for k in range(1, n):
        first.append((k + 1) // 2 if k % 2 else n - k // 2)
    rows = [[(i + j) % n for j in first] for i in range(n)]
    return rows if n % 2 == 0 else rows + [row[::-1] for row in rows]


def heatmap_rects(window):
    """Where the app's visible heatmaps sit in the window: {panel: (x, y, w, h)}."""
    from PySide6.QtCore import QPoint

    rects = {}
    for name in SHOWN:
        hm = window.panels[name].heatmap
        if hm.viewport().visibleRegion().isEmpty():  # a dock behind another's tab, or closed
            continue
        p = hm.mapTo(window, QPoint(0, 0))
        rects[name] = (p.x(), p.y(), hm.width(), hm.height())
    return rects


class PyqtgraphReference:
    """A plain 1600×1000 window with one pyqtgraph plot + ImageItem per heatmap, where the app has it."""

    def __init__(self, window, rects):
        import pyqtgraph as pg
        from PySide6.QtWidgets import QWidget

        self.widget = QWidget()
        self.widget.resize(window.size())
        self.images = []
        for name, (x, y, w, h) in rects.items():
            view = pg.GraphicsLayoutWidget(self.widget)
            view.setGeometry(x, y, w, h)
            plot = view.addPlot()
            plot.getViewBox().invertY(True)
            image = pg.ImageItem(axisOrder="row-major")
            image.setLookupTable(window.panels[name].heatmap._lut)  # the same colour map
            plot.addItem(image)
            self.images.append((SHOWN.index(name), image, plot))
        place_on_screen(self.widget, 1)
        self.widget.show()

    def draw(self, shown, app, rect):
        for i, image, plot in self.images:
            values, levels = shown[i]
            first = image.image is None
            image.setImage(values, autoLevels=False, levels=levels)
            if first:
                plot.autoRange(padding=0)
        app.processEvents()
        return screen_pixels(app, self.widget, rect)


class MatplotlibReference:
    """A 1600×1000 Agg figure with one ``imshow`` per heatmap, where the app has it."""

    def __init__(self, window, rects):
        import matplotlib
        from matplotlib.figure import Figure

        width, height = window.width(), window.height()
        self.figure = Figure(figsize=(width / 100, height / 100), dpi=100)
        if on_screen():  # the Qt backend's canvas, a window on the screen like the others
            from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg

            self.canvas = FigureCanvasQTAgg(self.figure)
            self.canvas.resize(window.size())
            place_on_screen(self.canvas, 2)
            self.canvas.show()
        else:
            matplotlib.use("Agg")
            from matplotlib.backends.backend_agg import FigureCanvasAgg

            self.canvas = FigureCanvasAgg(self.figure)
        self.images = []
        pad = 30  # room for the tick labels inside the app's rectangle
        for name, (x, y, w, h) in rects.items():
            ax = self.figure.add_axes([(x + pad) / width, 1 - (y + h - pad) / height,
                                       (w - 2 * pad) / width, (h - 2 * pad) / height])
            cmap = "RdBu_r" if name != "weights" else "Blues"
            image = ax.imshow(np.zeros((2, 2)), cmap=cmap, interpolation="nearest", aspect="auto")
            self.images.append((SHOWN.index(name), image))

    def draw(self, shown, app, rect):
        for i, image in self.images:
            values, levels = shown[i]
            image.set_data(values)
            image.set_extent((-0.5, values.shape[1] - 0.5, values.shape[0] - 0.5, -0.5))
            image.set_clim(*levels)
        self.canvas.draw()
        if not on_screen():
            return self.canvas.buffer_rgba()
        app.processEvents()  # the canvas's paintEvent copies the Agg buffer to the window
        return screen_pixels(app, self.canvas, rect)


def measure(length, dim, heads, repeats, warmup, seed, with_mpl=True, reference="row"):
    app = qapp()
    window = build_window(length, dim, heads, seed)
    place_on_screen(window, 0)
    window.show()
    settle(app)
    window.grab()
    model = window.model
    table = window.panels["editor"].tables["Q"]
    rects = heatmap_rects(window)
    if "weights" not in rects:
        raise RuntimeError("the weights heatmap is not visible in the default layout")
    read = rects["weights"]  # the pixels read back, on every side: the weights heatmap
    head = model.settings.selected_head
    ref = PyqtgraphReference(window, rects)
    mpl = None
    if with_mpl:
        try:
            mpl = MatplotlibReference(window, rects)
        except ImportError:
            mpl = None
    q, k, v = (np.array(model.matrix(n)) for n in "QKV")
    s, w, o = reference_stages(q, k, v, heads)
    settle(app)
    shots = {}

    def app_step(row, col, value):
        t0 = now()
        if not table.setData(table.index(row, col), repr(value)):
            raise RuntimeError("the editor refused the edit")
        model.flush()
        app.processEvents()
        shots["app"] = screen_pixels(app, window, read)
        return now() - t0

    def stages(row, col, value):
        q[row, col] = value
        if reference == "row":
            reference_row(q, k, v, s, w, o, heads, row, col // (dim // heads))
            return shown_images(s, w, o, head)
        return shown_images(*reference_stages(q, k, v, heads), head)

    def ref_step(row, col, value):
        t0 = now()
        shots["reference"] = ref.draw(stages(row, col, value), app, read)
        return now() - t0

    def mpl_step(row, col, value):
        t0 = now()
        shots["matplotlib"] = mpl.draw(stages(row, col, value), app, read)
        return now() - t0

    def idle_step(row, col, value):
        """No edit: ``grab()`` of the whole app window, which repaints every widget (the old measure's paint)."""
        t0 = now()
        window.grab()
        return now() - t0

    steps = [("app", app_step), ("reference", ref_step), ("whole-window grab", idle_step)]
    steps += [("matplotlib", mpl_step)] if mpl else []
    times = {name: [] for name, _ in steps}
    orders = balanced_orders(len(steps))
    for r in range(warmup + repeats):
        row, col = r % length, r % (dim // heads)  # a cell of head 0, the head the panels show
        value = round(float(model.matrix("Q")[row, col]) + 0.5, 6)
        for name, step in (steps[i] for i in orders[r % len(orders)]):
            settle(app, 2)  # what the previous side left to do is not this side's time
            t = step(row, col, value)
            if r >= warmup:
                times[name].append(t)

    # The app really showed the edit: the scores heatmap holds the model's latest scores.
    shown = window.panels["scores"].heatmap.image_array()
    ok = bool(np.allclose(shown, model.results.heads.scores[head]) and np.array_equal(model.matrix("Q"), q)
              and np.allclose(model.results.heads.weights[head], w[head]))
    result = {"L": length, "d": dim, "heads": heads, "repeats": repeats, "visible_heatmaps": list(rects),
              "consistent": ok, "screen": on_screen(), "reference_work": reference,
              "read_back": {"w": read[2], "h": read[3]},
              "shot_sizes": {k: [img.width(), img.height()] for k, img in shots.items() if hasattr(img, "width")}}
    for name, ts in times.items():
        result[name] = {"median_ms": 1000 * median(ts), "min_ms": 1000 * min(ts),
                        "all_ms": [round(1000 * t, 2) for t in ts]}
    return result


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--L", type=int, default=512)
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-mpl", action="store_true")
    p.add_argument("--reference", choices=("row", "full"), default="row",
                   help="the references recompute the edited row (as the app does for a Q cell) or every head")
    p.add_argument("--screen", action="store_true", help="run on a private Xvfb, pixels read back from the screen")
    a = p.parse_args(argv)
    emit(measure(a.L, a.d, a.heads, a.repeats, a.warmup, a.seed, with_mpl=not a.no_mpl, reference=a.reference))


if __name__ == "__main__":
    run_standalone_on_screen(main)
