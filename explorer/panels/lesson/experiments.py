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
        shown = "".join(s for s, i in zip("①②③", range(1, 4)) if m.revealed >= i) or translate("Lesson", "none")
        sums = ""
        if m.revealed >= 2 and self._checks is not None:
            sums = translate("Lesson", " {mark} every row of ② sums to 1 (max deviation {deviation}).").format(
                mark=mark(self._checks.rows_sum_to_one), deviation=tiny(self._checks.max_row_sum_deviation))
        c1.live.setText(translate("Lesson", "Stages shown: {shown}.").format(shown=shown) + sums)
        warn = self._not_demo(state)
        if not demo_tokens or m.revealed < ALL_STAGES:
            why = (translate("Lesson", "These tokens are not the demo's 「猫 追 红色 激光点」.") if not demo_tokens else
                   translate("Lesson", "The numbers appear once ③ is revealed."))
            for card in (c2, c3, c4):
                card.live.setText(f"{warn if card is not c4 or state is None else ''}<i>{why}</i>")
        else:
            c2.live.setText(warn + self._chase_text(r, h))
            cols = darkest_cols_in_row(w, DOT, mask)
            red = weight_html([w[DOT, RED]], among=w[DOT])[0]
            if not cols:
                verdict = translate("Lesson", "{mark} the row of 激光点 is fully masked").format(mark=mark(False))
            elif RED in cols:
                others = [c for c in cols if c != RED]
                verdict = (translate("Lesson", "{mark} the largest in its row, tied with {others}") if others else
                           translate("Lesson", "{mark} the largest in its row")).format(
                    mark=mark(True), others=names(tokens, others) if others else "")
            else:
                verdict = (translate("Lesson", "{mark} the largest are now {names}") if len(cols) > 1 else
                           translate("Lesson", "{mark} the largest is now {names}")).format(
                    mark=mark(False), names=names(tokens, cols))
            c3.live.setText(warn + translate("Lesson", "激光点 → 红色 <b>{red}</b>: {verdict}.<br>Row of 激光点: "
                                                       "{weights}").format(red=red, verdict=verdict,
                                                                           weights=weights_of(DOT)))
            k_now = {"demo": translate("Lesson", "K as in the demo"),
                     "k_swapped": translate("Lesson", "K rows of 猫 and 红色 <b>swapped</b>")}.get(
                state, translate("Lesson", "Not the demo's numbers or settings"))
            hardest = names(tokens, darkest_cols_in_row(w, CHASE, mask))
            head = translate("Lesson", " (head {head})").format(head=h + 1) if r.n_heads > 1 else ""
            c4.live.setText(translate("Lesson", "{k_now}: 追 looks hardest at <b>{hardest}</b>{head}.<br>"
                                                "Row of 追: {weights}").format(k_now=k_now, hardest=hardest, head=head,
                                                                              weights=weights_of(CHASE)))
        self.swap_button.setText(translate("Lesson", "Swap them back") if state == "k_swapped"
                                 else translate("Lesson", "Swap K rows of 猫 and 红色"))

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
        return translate("Lesson", "head {n} of {heads}: 追 → 猫 <b>{cat}</b>, 激光点 <b>{dot}</b>.<br>"
                                   "head {n}: O<sub>{n}</sub>(追) = {mix} = {output}<br>"
                                   "<span style='color:#4a5360'>v<sub>{n}</sub> = head {n}'s slice V[:, {cols}]; its "
                                   "output is O[追, {cols}] (the heads are concatenated).</span>").format(
            n=n, heads=r.n_heads, cat=cat, dot=dot, mix=mix, output=vector(ro.output), cols=cols)

    def _render_checks(self):
        m, c = self.model, self._checks
        if c is None:
            return
        heads = m.results.n_heads
        where = translate("Lesson", " in every head ({heads})").format(heads=heads) if heads > 1 else ""
        if m.revealed >= 2:
            self.sum_check.setText(translate("Lesson", "{mark} every row of the weights sums to 1{where} (max deviation "
                                                       "{deviation})").format(
                mark=mark(c.rows_sum_to_one), where=where, deviation=tiny(c.max_row_sum_deviation)))
        else:
            self.sum_check.setText(translate("Lesson", "<i>Does every row of the weights sum to 1? Shown once ② is "
                                                       "revealed — guess first.</i>"))
        if m.revealed >= 3:
            of_v = translate("Lesson", "its head's slice of V") if heads > 1 else translate("Lesson", "V's rows")
            sample = translate("Lesson", ", {checked} of {rows} sampled").format(
                checked=f"{c.rows_checked:,}", rows=count(c.n_rows, 'row'), n_rows=c.n_rows) \
                if c.rows_checked < c.n_rows else ""
            self.hull_check.setText(translate("Lesson", "{mark} every output row lies in the convex hull of {of_v} "
                                                        "(worst distance {distance}{sample})").format(
                mark=mark(c.outputs_in_hull), of_v=of_v, distance=tiny(c.worst_hull_distance), sample=sample))
        else:
            self.hull_check.setText(translate("Lesson", "<i>Does every output row stay inside the convex hull of V? "
                                                        "Shown once ③ is revealed.</i>"))
        if c.excluded_rows:
            names = ", ".join(escape(m.tokens[i]) for i in c.excluded_rows[:8] if i < len(m.tokens))
            more = (translate("Lesson", " and {more} more").format(more=len(c.excluded_rows) - 8)
                    if len(c.excluded_rows) > 8 else "")
            self.excluded_note.setText(translate("Lesson", "Left out: {names}{more} — fully masked, no key to attend "
                                                           "to (weights 0, output 0).").format(names=names, more=more))
        else:
            self.excluded_note.setText(translate("Lesson", "No row is fully masked: every row is checked."))
