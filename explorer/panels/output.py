"""③ Output: O = A · V — row i is a convex combination of the value rows, mixed by row i of A."""
from explorer.widgets.number_text import format_number
from explorer.i18n import translate

from .heatmap_panel import HeatmapPanel, nice_symmetric_levels


class OutputPanel(HeatmapPanel):
    stage = 3
    cmap = "diverging"
    colorbar_label = "value"
    col_title = "dimension"

    _cols = ()  # the column labels d0, d1, … (one tuple per width: the heatmap skips labels it has)

    def draw(self):
        r = self.model.results
        o = r.heads.output
        if len(self._cols) != o.shape[1]:
            self._cols = tuple(f"d{j}" for j in range(o.shape[1]))
        cols = self._cols
        self.heatmap.set_matrix(o, row_labels=self.model.query_tokens, col_labels=cols, levels=nice_symmetric_levels(o),
                                flagged_rows=r.heads.masked_rows, finite=True)

    def heading(self):
        n = self.model.settings.heads
        heads = translate("Heatmap", ", {n} heads side by side").format(n=n) if n > 1 else ""
        if self.model.projected:  # projected mode has W_o
            return f"<b>③ O = concat(A·V)·W_oᵀ</b>{heads}" + translate(
                "Heatmap", ": each head mixes the rows of V by its weights, then W_o mixes the heads")
        return f"<b>③ O = A · V</b>{heads}" + translate("Heatmap", ": each row mixes the rows of V by its weights")

    def tooltip(self, row, col):
        r, qtok = self.model.results, self.model.query_tokens
        how = (f"= Σ_c concat[{qtok[row]}, c] · W_o[{col}, c]" if r.wo is not None
               else f"= Σ_j A[{qtok[row]}, j] · V[j, d{col}]")
        return f"O[{qtok[row]}, d{col}] = {format_number(r.heads.output[row, col])}\n{how}"
