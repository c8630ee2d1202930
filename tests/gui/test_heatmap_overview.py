"""A previous-token pattern at L = 2048 in a small heatmap: its one-cell diagonal stays on screen."""
import numpy as np

from explorer.core.pooling import overview
from explorer.core.recompute import recompute
from explorer.core.session import Settings
from explorer.widgets.heatmap import Heatmap

L = 2048


def test_recompute_makes_the_overviews_of_a_large_session():
    rng = np.random.default_rng(0)
    mats = {n: rng.standard_normal((L, 4)) for n in "QKV"}
    r = recompute(mats, Settings(heads=2, causal=True), summarise=[1])
    assert set(r.overviews) == {("scores", 1), ("weights", 1)}  # the shown head's, made with the results
    for h in range(2):  # the other head's when first asked
        np.testing.assert_array_equal(r.overview("weights", h), overview(r.heads.weights[h]))  # ≥ 0: max
        np.testing.assert_array_equal(r.overview("scores", h), overview(r.heads.scores[h]))
    small = recompute({n: m[:100] for n, m in mats.items()}, Settings(heads=2))
    assert small.overview("weights", 0) is None  # fits a screen: drawn cell by cell


def test_a_one_cell_diagonal_survives_a_small_heatmap(qtbot):
    w = np.eye(L, k=-1)  # a previous-token head: weight 1 on the token before
    heat = Heatmap(cmap="sequential")
    qtbot.addWidget(heat)
    heat.resize(500, 500)
    heat.show()
    qtbot.waitExposed(heat)
    labels = [f"t{i}" for i in range(L)]
    heat.set_matrix(w, row_labels=labels, col_labels=labels, levels=(0.0, 1.0), finite=True, overview=overview(w))
    image = heat.image_item.image
    assert image.shape[0] <= L / 2  # drawn at about screen size (two cells a pixel at most)
    assert (image[1:].max(axis=1) == 1).all()  # every row of the picture holds the bright diagonal
    heat.set_matrix(w, row_labels=labels, col_labels=labels, levels=(0.0, 1.0), finite=True)  # no overview
    sampled = heat.image_item.image
    assert sampled.max() == 0  # sampling every k-th cell misses the diagonal entirely
