"""F8 split and merge, drawn with the current numbers: (L, D) → (H, L, d_h) → attention per head → concat.

The chapter: "把 D 维切成 H 份 … 每份 d_h = D/H 维,各自独立跑一遍注意力 … 最后把 H 份输出拼回 D 维再过一个
投影 … (B, L, D) → (B, H, L, d_h)". The arrays come from ``model.results`` (the split is core's
``split_heads``); ``explorer.widgets.split_merge_canvas`` lays them out and paints them.
"""
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout

from explorer.core.heads import split_heads
from explorer.core.plural import count
from explorer.i18n import translate
from explorer.model import LESSON, SETTINGS, STRUCTURE, VALUES
from explorer.widgets.html_escape import escape
from explorer.widgets.split_merge_canvas import SplitMergeCanvas, Stage

from .base import Panel
from .head_style import head_width, scale_text

MAX_NUMBERS_L = 8  # the numbers are printed while L ≤ 8 and every width ≤ 12
MAX_NUMBERS_D = 12


class SplitMergePanel(Panel):
    """F8: how Q is cut into heads, attended per head, and put back together (concat, then W_o if any)."""

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.canvas = SplitMergeCanvas(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.caption)
        layout.addWidget(self.canvas, 1)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        short = self.height() < 330  # a low dock: the drawing gets the room, the caption becomes its tooltip
        if self.caption.isVisibleTo(self) == short:
            self.caption.setVisible(not short)

    # ----- for tests -----------------------------------------------------------------------------
    def blocks(self):
        return self.canvas.blocks()

    def arrows(self):
        return self.canvas.arrows()

    def head_colours(self):
        return self.canvas.head_colours()

    def block_colours(self, label):
        return self.canvas.block_colours(label)

    def column_colours(self, label):
        return self.canvas.column_colours(label)

    def values(self, label):
        return self.canvas.values(label)

    @property
    def numbers_shown(self):
        return self.canvas.numbers_shown

    @property
    def has_wo(self):
        return self.canvas.has_wo

    # ----- model → drawing -----------------------------------------------------------------------
    def render_heading(self, has_wo=None):
        """The caption from the state (widths, heads, K/V heads, scale): it follows a new head count at once,
        before its results. ``has_wo``: whether the drawing has the W_o step (else: the session is projected)."""
        m = self.model
        H, dh, D = m.settings.heads, head_width(m), m.widths()[0]
        kv, has_wo = m.state.kv_heads, m.projected if has_wo is None else has_wo
        dv = H * (m.widths()[1] // kv)  # the heads' outputs side by side
        merge = (translate("SplitMerge", "concatenated back to (L, d_v)") if kv == H else translate(
            "SplitMerge", "concatenated side by side (L, H·d_v/H_kv = {dv})").format(dv=dv)) + (
            translate("SplitMerge", ", then projected by W_o") if has_wo else "")
        hide = translate("SplitMerge", " — outputs hidden until ③ is revealed") if m.revealed < 3 else ""
        kv_text = (translate("SplitMerge", "K and V the same way") if kv == H else
                   translate("SplitMerge", "K and V into H_kv = {kv}, each read by {each} query heads in turn").format(
                       kv=count(kv, 'K/V head'), n_kv=kv, each=H // kv))
        text = translate("SplitMerge", "<b>Split and merge</b>: (L, {w}) → (H, L, d_h) — Q's {w} = {D} columns are cut "
                                       "into H = {heads} of d_h = {dh} ({kv_text}); each head attends on its own with "
                                       "scale {scale}; the heads' outputs are {merge}.{hide}").format(
            w=q_width_name(has_wo), D=D, heads=count(H, 'head'), n_heads=H, dh=dh, kv_text=kv_text, scale=escape(scale_text(m.settings, dh)),
            merge=merge, hide=hide)
        self.caption.setText(text)
        self.canvas.setToolTip(text)

    def render(self, flags):
        r = self.model.results
        if r is None or not flags & (STRUCTURE | VALUES | SETTINGS | LESSON):
            return  # nothing drawn here depends on the selected row or head
        heads = r.heads
        H, dh = r.n_heads, r.d_head
        (L, D), dv = r.q.shape, heads.concat.shape[1]
        dvh = heads.head_outputs.shape[2]  # what one head mixes: V's width / H_kv
        kv = r.kv_heads
        out = heads.output
        has_wo = self.model.results.wo is not None
        widths = [D, dv] + ([out.shape[1]] if has_wo else [])
        small = L <= MAX_NUMBERS_L and max(widths) <= MAX_NUMBERS_D
        hidden = self.model.revealed < 3  # the outputs are stage ③ of the lesson
        scale = scale_text(self.model.settings, dh)
        w = q_width_name(has_wo)
        grouped = kv < H and not self.model.cross  # K/V heads of their own (cross-attention: K has other rows)
        colour = [r.kv_head(h) for h in range(H)] if grouped else list(range(H))  # as the Heads panel's
        stages = [
            Stage("matrix", "Q", (L, D), r.q, [colour[c // dh] for c in range(D)], "Q", f"(L={L}, {w}={D})"),
            Stage("arrow", "split_heads", lines=("split_heads", f"(L, {w}) → (H, L, d_h)"), code=True),
            Stage("stack", "Q heads", (H, L, dh), split_heads(r.q, H), title=translate("SplitMerge", "Q per head"),
                  shape_text=f"(H={H}, L={L}, d_h={dh})", colours=colour),
        ]
        if grouped:  # the H_kv heads K is cut into, each coloured as the query heads that read it
            stages.append(Stage("stack", "K/V heads", (kv, L, dh), split_heads(r.k, kv), title=translate("SplitMerge", "K per K/V head"),
                                shape_text=f"(H_kv={kv}, L={L}, d_h={dh})", note=_sharing(r, kv)))
        stages += [
            Stage("arrow", "attention", lines=(translate("SplitMerge", "attention"),
                                               translate("SplitMerge", "in each head"),
                                               translate("SplitMerge", "scale {scale}").format(scale=scale))),
            Stage("stack", "head outputs", (H, L, dvh), heads.head_outputs,
                  title=translate("SplitMerge", "head outputs"),
                  shape_text=f"(H={H}, L={L}, {'d_v/H' if kv == H else 'd_v/H_kv'}={dvh})", hidden=hidden,
                  colours=colour),
            Stage("arrow", "merge_heads", lines=("merge_heads", "(concat)"), code=True),
            Stage("matrix", "concat", (L, dv), heads.concat, [colour[c // dvh] for c in range(dv)], "concat",
                  f"(L={L}, {'d_v' if kv == H else 'H·d_v/H_kv'}={dv})",
                  note="" if has_wo else translate("SplitMerge", "concat = output (no W_o)"), hidden=hidden),
        ]
        if has_wo:
            d_out = out.shape[1]
            stages += [Stage("arrow", "W_o", lines=("· W_oᵀ", f"W_o: ({d_out}, {dv})")),
                       Stage("matrix", "output", out.shape, out, [None] * d_out, translate("SplitMerge", "output"),
                             f"(L={L}, D={d_out})", hidden=hidden)]
        self.canvas.set_data(self.model.query_tokens, H, stages, small, has_wo)
        self.render_heading(has_wo)  # what is drawn (the results'): the same as the state's once they come


def q_width_name(projected):
    """Q's width by its name: the model width D, or — projected, Q = X·W_qᵀ — the projected width d (X has D)."""
    return "d" if projected else "D"


def _sharing(results, kv, most=4):
    """Which query heads read each K/V head: "read by heads 1–4 | 5–8" (counted from 1)."""
    groups = [results.query_heads(g) for g in range(kv)]
    spans = [f"{g[0] + 1}–{g[-1] + 1}" if len(g) > 1 else f"{g[0] + 1}" for g in groups[:most]]
    return translate("SplitMerge", "read by heads {spans}").format(spans=" | ".join(spans) + (" | …" if kv > most else ""))
