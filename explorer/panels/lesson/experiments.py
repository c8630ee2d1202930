"""The lesson's four guided experiments and its live checks, written with the current numbers."""
from explorer.widgets.html_escape import escape

from explorer.core.lesson import darkest_cols_in_row
from explorer.core.plural import count
from explorer.core.presets import demo_session
from explorer.core.readout import row_readout
from explorer.i18n import translate
from explorer.model import ALL_STAGES

from .texts import CAT, CHASE, DOT, NOT_DEMO, RED, WARN
from .wording import columns_text, mark, names, tiny, vector, weight_html


class ExperimentTexts:
    """Part of LessonPanel: renders the experiment cards' live numbers and the two checks."""

    def _not_demo(self, state):
        """The warning of a card whose numbers or settings are not the chapter's demo ("" when they are)."""
        if state == "demo":
            return ""
        swapped = translate("Lesson", " (the K rows of 猫 and 红色 are swapped: experiment ④)") if (
            state == "k_swapped") else ""
        return f"<span style='color:{WARN}'>⚠ {translate('Lesson', NOT_DEMO)}{swapped}.</span><br>"

    def _render_cards(self):
        m = self.model
        r, h = m.results, self._head()
        state = self._demo_state()
        tokens = m.tokens
        demo_tokens = tokens == demo_session().tokens
        w = r.heads.weights[h]
        _, mask, _ = self._stage_view(2)

        def weights_of(row):
            return " · ".join(f"{escape(t)} {x}" for t, x in zip(tokens, weight_html(w[row])))

        c1, c2, c3, c4 = self.cards
        shown = "".join(s for s, i in zip("①②③", range(1, 4)) if m.revealed >= i) or "none"
        sums = ""
        if m.revealed >= 2 and self._checks is not None:
            sums = (f" {mark(self._checks.rows_sum_to_one)} every row of ② sums to 1 "
                    f"(max deviation {tiny(self._checks.max_row_sum_deviation)}).")
        c1.live.setText(f"Stages shown: {shown}.{sums}")
        warn = self._not_demo(state)
        if not demo_tokens or m.revealed < ALL_STAGES:
            why = ("These tokens are not the demo's 「猫 追 红色 激光点」." if not demo_tokens else
                   "The numbers appear once ③ is revealed.")
            for card in (c2, c3, c4):
                card.live.setText(f"{warn if card is not c4 or state is None else ''}<i>{why}</i>")
        else:
            c2.live.setText(warn + self._chase_text(r, h))
            cols = darkest_cols_in_row(w, DOT, mask)
            red = weight_html([w[DOT, RED]], among=w[DOT])[0]
            if not cols:
                verdict = f"{mark(False)} the row of 激光点 is fully masked"
            elif RED in cols:
                others = [c for c in cols if c != RED]
                tie = f", tied with {names(tokens, others)}" if others else ""
                verdict = f"{mark(True)} the largest in its row{tie}"
            else:
                verb = "are" if len(cols) > 1 else "is"
                verdict = f"{mark(False)} the largest {verb} now {names(tokens, cols)}"
            c3.live.setText(f"{warn}激光点 → 红色 <b>{red}</b>: {verdict}.<br>Row of 激光点: {weights_of(DOT)}")
            k_now = {"demo": "K as in the demo", "k_swapped": "K rows of 猫 and 红色 <b>swapped</b>"}.get(
                state, "Not the demo's numbers or settings")
            hardest = names(tokens, darkest_cols_in_row(w, CHASE, mask))
            head = f" (head {h + 1})" if r.n_heads > 1 else ""
            c4.live.setText(f"{k_now}: 追 looks hardest at <b>{hardest}</b>{head}.<br>"
                            f"Row of 追: {weights_of(CHASE)}")
        self.swap_button.setText("Swap them back" if state == "k_swapped" else "Swap K rows of 猫 and 红色")

    def _chase_text(self, r, h):
        """Card ②: the weights of 追 and O(追) as a mix of the value rows — with several heads, the selected
        head's weights times its own slice of V, giving that head's part of the output."""
        tokens = self.model.tokens
        ro = row_readout(r.heads, r.v, CHASE, h)
        texts = weight_html(ro.weights)
        cat, dot = texts[CAT], texts[DOT]
        if r.n_heads == 1:
            mix = " + ".join(f"{t}·v({escape(tok)})" for tok, t in zip(tokens, texts))
            return (f"追 → 猫 <b>{cat}</b>, 激光点 <b>{dot}</b>.<br>"
                    f"O(追) = {mix} = {vector(ro.output)}")
        n = h + 1
        mix = " + ".join(f"{t}·v<sub>{n}</sub>({escape(tok)})" for tok, t in zip(tokens, texts))
        cols = columns_text(ro.columns)
        return (f"head {n} of {r.n_heads}: 追 → 猫 <b>{cat}</b>, 激光点 <b>{dot}</b>.<br>"
                f"head {n}: O<sub>{n}</sub>(追) = {mix} = {vector(ro.output)}<br>"
                f"<span style='color:#4a5360'>v<sub>{n}</sub> = head {n}'s slice V[:, {cols}]; its output is "
                f"O[追, {cols}] (the heads are concatenated).</span>")

    def _render_checks(self):
        m, c = self.model, self._checks
        if c is None:
            return
        heads = m.results.n_heads
        where = f" in every head ({heads})" if heads > 1 else ""
        if m.revealed >= 2:
            self.sum_check.setText(f"{mark(c.rows_sum_to_one)} every row of the weights sums to 1{where} "
                                   f"(max deviation {tiny(c.max_row_sum_deviation)})")
        else:
            self.sum_check.setText("<i>Does every row of the weights sum to 1? Shown once ② is revealed — "
                                   "guess first.</i>")
        if m.revealed >= 3:
            of_v = "its head's slice of V" if heads > 1 else "V's rows"
            sample = f", {c.rows_checked:,} of {count(c.n_rows, 'row')} sampled" if c.rows_checked < c.n_rows else ""
            self.hull_check.setText(f"{mark(c.outputs_in_hull)} every output row lies in the convex hull of "
                                    f"{of_v} (worst distance {tiny(c.worst_hull_distance)}{sample})")
        else:
            self.hull_check.setText("<i>Does every output row stay inside the convex hull of V? Shown once ③ is "
                                    "revealed.</i>")
        if c.excluded_rows:
            names = ", ".join(escape(m.tokens[i]) for i in c.excluded_rows[:8] if i < len(m.tokens))
            more = f" and {len(c.excluded_rows) - 8} more" if len(c.excluded_rows) > 8 else ""
            self.excluded_note.setText(f"Left out: {names}{more} — fully masked, no key to attend to "
                                       f"(weights 0, output 0).")
        else:
            self.excluded_note.setText("No row is fully masked: every row is checked.")
