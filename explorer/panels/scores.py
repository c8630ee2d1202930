"""① Scores: S = QKᵀ · scale, one dot product per (query, key) pair, on a diverging map centred at 0."""
from explorer.widgets.number_text import format_number

from explorer.core.pipeline import slopes_for
from explorer.i18n import translate

from .head_style import head_width, scale_symbol
from .heatmap_panel import HeatmapPanel, nice_symmetric_levels


class ScoresPanel(HeatmapPanel):
    cmap = "diverging"
    colorbar_label = "score"
    draws_shown_head = True

    def draw(self):
        r, h = self.source(), self.head()
        s = r.heads.scores[h]
        masked = self.masked()
        self.heatmap.set_matrix(s, row_labels=self.model.query_tokens, col_labels=self.model.tokens,
                                levels=nice_symmetric_levels(extent=r.score_range(h)), masked=masked,
                                flagged_rows=r.heads.masked_rows, finite=True,  # the core refuses non-finite
                                overview=r.overview("scores", h))

    def heading(self):
        s = self.model.settings
        scale = scale_symbol(s, head_width(self.model))
        slopes = slopes_for(s)  # the core's, as the results have them
        if slopes is not None:
            scale += f" − {format_number(slopes[self.head()])}·|i − j|"  # ALiBi's bias, before the temperature
        temp = "" if s.temperature == 1 else f" / T (T = {format_number(s.temperature)})"
        return f"<b>① S = Q Kᵀ · {scale}</b>{temp}{self.head_note()}" + translate("Heatmap", ": one dot product per cell")

    def tooltip(self, row, col):
        r = self.source()
        dot, scale, temp, masked, score = r.score_parts(self.head(), row, col)
        q, k = self.model.query_tokens[row], self.model.tokens[col]
        lines = [translate("Heatmap", "score[{q} → {k}]").format(q=q, k=k),
                 f"q({q}) · k({k}) = {format_number(dot)}",
                 translate("Heatmap", "× scale {scale}").format(scale=format_number(scale))]
        bias = r.bias(self.head(), row, col)
        if bias is not None:
            lines.append(translate("Heatmap", "+ ALiBi bias −m·|i − j| = {bias}").format(bias=format_number(bias)))
        if temp != 1:
            lines.append(translate("Heatmap", "÷ temperature {t}").format(t=format_number(temp)))
        lines.append(f"= {format_number(score)}")
        if masked:
            lines.append(translate("Heatmap", "masked: set to −∞ before the softmax (the key is in the future)"))
        return "\n".join(lines)
