"""The sentences of the FlashAttention panel: what a step did, what the end shows, what was held and moved.
Only words around numbers the core has made (explorer.core.online_softmax, explorer.core.flash_accounting)."""
import math

import numpy as np

from PySide6.QtCore import QT_TRANSLATE_NOOP

from explorer.core.plural import count
from explorer.i18n import translate
from explorer.widgets.html_escape import escape
from explorer.widgets.number_text import format_count, format_number

HEADING = QT_TRANSLATE_NOOP("Flash", "<b>FlashAttention</b> (Dao et al. 2022, Algorithm 1): S is made one B<sub>r</sub> × B<sub>c</sub> tile at "
           "a time; each query row keeps a running max m, a running sum ℓ and its output so far, rescaled by "
           "exp(m<sub>old</sub> − m<sub>new</sub>) when the max rises — softmax(S)·V exactly, without ever "
           "holding the L × L matrix.")
OK, BAD = "#1a7f37", "#b00020"
TABLE_ROWS = ((QT_TRANSLATE_NOOP("Flash", "m old"),
               QT_TRANSLATE_NOOP("Flash", "The running max before this tile (−∞: no key seen yet)")),
              (QT_TRANSLATE_NOOP("Flash", "m̃ tile"), QT_TRANSLATE_NOOP("Flash", "m̃ = the largest score of this row in this tile")),
              (QT_TRANSLATE_NOOP("Flash", "m new"), "m_new = max(m_old, m̃)"),
              (QT_TRANSLATE_NOOP("Flash", "rescale"),
               QT_TRANSLATE_NOOP("Flash", "e^(m_old − m_new): what ℓ and Õ so far are multiplied by: 1 when the max "
                                          "stays, below 1 when this tile raised it (0 at the first tile: nothing to "
                                          "rescale)")),
              (QT_TRANSLATE_NOOP("Flash", "ℓ old"),
               QT_TRANSLATE_NOOP("Flash", "The running sum before this tile: Σ e^(s − m_old) over the keys seen")),
              (QT_TRANSLATE_NOOP("Flash", "ℓ new"), "ℓ_new = e^(m_old − m_new)·ℓ_old + Σ_tile e^(s − m_new)"))


def num(v, significant=4):
    """A number as the panel prints it: a true minus sign, −∞ for minus infinity."""
    if v == -math.inf:
        return "−∞"
    return format_number(v, significant).replace("-", "−")


def span(tokens, lo, hi):
    """Tokens lo … hi − 1 named shortly: "猫", "猫–追", "t0–t7"."""
    names = [escape(str(t)) for t in tokens[lo:hi]]
    return names[0] if len(names) == 1 else f"{names[0]}–{names[-1]}"


def block_text(run, n_blocks, query_tokens, n_skipped_total):
    """Which rows the stepper follows, and the causal tiles skipped in it."""
    r0, r1 = run.rows
    text = translate("Flash", "Query block {block} of {blocks}: rows {rows}. The stepper follows this block; every "
                              "block runs the same steps on its own rows.").format(
        block=run.block + 1, blocks=n_blocks, rows=span(query_tokens, r0, r1))
    if run.skipped:
        tiles = ", ".join(str(j + 1) for j in run.skipped)
        text += translate("Flash", " <i>Causal mask: key {tile_word_en} {tiles} of this block lie wholly above the "
                                   "diagonal (every cell masked) — skipped, never computed</i> ({skipped} skipped in "
                                   "the whole head).").format(
            tile_word_en="tiles" if len(run.skipped) > 1 else "tile", tiles=tiles,
            skipped=count(n_skipped_total, 'tile'), n_skipped=n_skipped_total)
    return text


def step_text(step, n_steps, n_tiles, query_tokens, tokens):
    """What step ``step`` did: the tile it computed, and where the max rose (and so the sum was rescaled)."""
    (r0, r1), (c0, c1) = step.rows, step.cols
    rose = [i for i in range(r1 - r0) if step.m_new[i] > step.m_old[i] and np.isfinite(step.m_old[i])]
    first = [i for i in range(r1 - r0) if not np.isfinite(step.m_old[i]) and np.isfinite(step.m_new[i])]
    text = translate("Flash", "<b>Step {step} of {steps}</b> (key tile {tile} of {tiles}): S<sub>ij</sub> = "
                              "Q<sub>i</sub>·K<sub>j</sub>ᵀ·scale for rows {rows} × keys {keys} ({height} × {width} = "
                              "{cells}). ").format(
        step=step.number, steps=n_steps, tile=step.tile + 1, tiles=n_tiles, rows=span(query_tokens, r0, r1),
        keys=span(tokens, c0, c1), height=r1 - r0, width=c1 - c0, cells=count((r1 - r0) * (c1 - c0), 'cell'),
        n_cells=(r1 - r0) * (c1 - c0))
    names = [escape(str(query_tokens[r0 + i])) for i in range(r1 - r0)]
    if rose:
        factors = ", ".join(f"{names[i]} × {num(step.rescale[i], 3)}" for i in rose[:4])
        more = translate("Flash", " and {more} more").format(more=len(rose) - 4) if len(rose) > 4 else ""
        text += translate("Flash", "The max rises in {rows}: their ℓ and Õ so far are rescaled ({factors}{more}). "
                          ).format(rows=count(len(rose), 'row'), n_rows=len(rose), factors=factors, more=more)
    if first:
        text += translate("Flash", "{rows} {see_en} their first keys: m starts here. ").format(
            rows=count(len(first), 'row'), n_rows=len(first), see_en="sees" if len(first) == 1 else "see")
    if not rose and not first:
        text += translate("Flash", "No row's max rises: the sums go on with factor 1. ")
    text += translate("Flash", "O = Õ / ℓ is the softmax-weighted mean of the values seen so far.")
    return text


def check_text(at_end, block_difference, whole, whole_difference, n_steps, head_words):
    """At the last step: O equals ③ (the block, and the whole head with the same update); before it, what to
    expect."""
    if not at_end:
        return translate("Flash", "After step {steps}, O = Õ / ℓ will be this block's rows of {head} — step to the end "
                                  "(or press Play).").format(steps=n_steps, head=head_words)
    good = max(block_difference, whole_difference) <= 1e-12
    colour, mark = (OK, "✓") if good else (BAD, "✗")
    skipped = translate("Flash", ", {skipped} skipped").format(skipped=whole.tiles_skipped) if whole.tiles_skipped else ""
    return f"<span style='color:{colour}'>{mark}</span> " + translate(
        "Flash", "<b>O = Õ / ℓ equals {head}</b> for this block: max |difference| {block_difference}. Every block of "
                 "the head with the same update ({computed} computed{skipped}): max |difference| from {head} "
                 "{whole_difference} — the same numbers up to rounding, not an approximation.").format(
        head=head_words, block_difference=f"{block_difference:.1e}", computed=count(whole.tiles_computed, 'tile'),
        n_computed=whole.tiles_computed, skipped=skipped, whole_difference=f"{whole_difference:.1e}")


def memory_text(whole, n_queries, n_keys, on_chip):
    """The tiles' cells against the L_q × L_k matrix never held."""
    full = n_queries * n_keys
    share = 100.0 * whole.largest_tile / full
    return translate("Flash", "<b>Memory</b>: the largest S tile held at once has {cells}; the whole S or A would "
                              "have L<sub>q</sub>·L<sub>k</sub> = {full} ({share} %) — never held. On chip per step "
                              "(Q<sub>i</sub>, K<sub>j</sub>, V<sub>j</sub>, S<sub>ij</sub>, O<sub>i</sub>, ℓ, m): "
                              "{on_chip} numbers.").format(
        cells=count(whole.largest_tile, 'cell'), n_cells=format_count(whole.largest_tile), full=format_count(full),
        share=f"{share:.3g}", on_chip=format_count(on_chip))


def hbm_text(h, sram_words):
    """Theorem 2's HBM accesses for this head, labelled as the paper's model."""
    rectangle = "" if h.n_queries == h.n_keys else translate("Flash", " (L<sub>q</sub>·L<sub>k</sub> in place of N²)")
    text = translate("Flash", "<b>HBM reads + writes, the paper's model</b> (Theorem 2, Θ without constants — not a "
                              "measurement), N = {n}{rectangle}, d = d<sub>h</sub> = {d}, M = {m} numbers ({sram}): "
                              "standard attention N·d + N² ≈ {standard}; FlashAttention N²·d²/M ≈ {flash}").format(
        n=format_count(max(h.n_queries, h.n_keys)), rectangle=rectangle, d=h.d, m=format_count(h.sram),
        sram=escape(sram_words), standard=format_count(h.standard), flash=num(h.flash, 3))
    if h.in_range:
        b_r, b_c = h.paper_tiles
        return text + translate("Flash", " — {ratio}× fewer. Algorithm 1 would take B<sub>c</sub> = ⌈M/4d⌉ = {b_c}, "
                                         "B<sub>r</sub> = min(B<sub>c</sub>, d) = {b_r}.").format(
            ratio=f"{h.standard / h.flash:.3g}", b_c=b_c, b_r=b_r)
    if h.sram > max(h.n_queries, h.n_keys) * h.d:
        return text + translate("Flash", ". Here N·d &lt; M: the whole head fits on chip, so either way Q, K, V are "
                                         "read once; the theorem speaks for d ≤ M ≤ N·d.")
    return text + translate("Flash", ". Here d &gt; M: not even one row fits on chip; the theorem speaks for "
                                     "d ≤ M ≤ N·d.")
