"""② Weights: A = softmax(S) row by row — each query's budget, non-negative, summing to 1."""
import numpy as np

from explorer.core.lines import alignment
from explorer.widgets.number_text import format_number
from explorer.widgets.palette import BAD
from explorer.i18n import translate

from .heatmap_panel import HeatmapPanel


def row_sum_notes(sums, masked_rows):
    """"Σ=1.000" beside each row ("masked" beside a fully masked one), each different sum formatted once: at
    L = 1024 the rows share a handful of sums, and formatting every one took ~0.5 ms of each draw."""
    values, which = np.unique(sums, return_inverse=True)
    texts = [f"Σ={s:.3f}" for s in values.tolist()]
    masked = translate("Heatmap", "masked")
    return [masked if m else texts[i] for i, m in zip(which.tolist(), masked_rows.tolist())]


class WeightsPanel(HeatmapPanel):
    stage = 2
    draws_shown_head = True
    cmap = "sequential"
    colorbar_label = "weight"
    masked_text = "0"

    def draw(self):
        r, h = self.source(), self.head()
        w = r.heads.weights[h]
        masked = self.masked()
        sums = r.row_sums(h)
        notes = None if self.hidden() else row_sum_notes(sums, r.heads.masked_rows)  # "does each row sum to 1?"
        self.heatmap.set_matrix(w, row_labels=self.model.query_tokens, col_labels=self.model.tokens, levels=(0.0, 1.0),
                                masked=masked, row_notes=notes, flagged_rows=r.heads.masked_rows, finite=True,
                                overview=r.overview("weights", h))
        warn = ""
        if r.heads.masked_rows.any():
            rows = ", ".join(t for t, m in zip(self.model.query_tokens, r.heads.masked_rows) if m)
            warn = f"<br><span style='color:{BAD}'>⚠ " + translate(
                "Heatmap", "fully masked: {rows} — no key to attend to, weights 0").format(rows=rows) + "</span>"
        aligned = self.model.cross and not self.hidden()
        self.heatmap.set_marks(alignment(w, None if masked is None else ~masked) if aligned else [])
        also = translate("Heatmap", "; ○ marks each query's strongest key (the alignment)") if aligned else ""
        self._notes = also + warn

    def heading(self):
        return f"<b>② A = softmax(S)</b>{self.head_note()}" + translate("Heatmap", ": each row sums to 1")

    def tooltip(self, row, col):
        r, q, k = self.source(), self.model.query_tokens[row], self.model.tokens[col]
        dot, scale, temp, masked, score = r.score_parts(self.head(), row, col)
        weight = r.heads.weights[self.head(), row, col]
        if masked:
            return translate("Heatmap", "weight[{q} → {k}] = 0\nmasked: the score was set to −∞").format(q=q, k=k)
        return translate("Heatmap", "weight[{q} → {k}] = {weight}\n= exp(S) / Σ exp(S over the row of {q}), "
                                    "S = {score}").format(q=q, k=k, weight=format_number(weight),
                                                          score=format_number(score))
