"""The lesson's ① ② ③ in words: what to do next, each step's guess or verdict, and what row ③ mixes."""
from explorer.widgets.html_escape import escape

import numpy as np

from explorer.core.lesson import darkest_cols_in_row, distinguishing_decimals, judge_guess, top_contributors
from explorer.core.plural import count
from explorer.core.readout import row_readout
from explorer.widgets.number_text import format_fixed, format_weight

from explorer.i18n import translate

from .texts import STEPS
from .wording import columns_text, mark, names, weight_html


class StepTexts:
    """Part of LessonPanel: renders the steps' instruction and statuses from the model's lesson state."""

    def _render_steps(self):
        m = self.model
        tokens, row = m.query_tokens, m.settings.selected_row  # the rows: the queries
        nxt = m.revealed + 1
        if nxt <= 2:
            panel = translate("Lesson", STEPS[nxt - 1][3])
            guess = self._guess(nxt)
            if guess:
                _, _, labels = self._stage_view(nxt)
                self.instruction.setText(translate(
                    "Lesson", "Your guess for {stage}: <b>{key}</b> in the row of <b>{row}</b>. Press <b>Reveal "
                              "{stage}</b> to check.").format(
                    stage='①②③'[nxt - 1], key=escape(labels[guess[1]]), row=escape(tokens[guess[0]])))
            else:
                self.instruction.setText(translate(
                    "Lesson", "Click the cell you expect to be darkest in the row of <b>{row}</b> in the <b>{panel}</b> "
                              "panel, then press <b>Reveal {stage}</b>.").format(
                    row=escape(tokens[row]), panel=panel, stage='①②③'[nxt - 1]))
        elif nxt == 3:
            self.instruction.setText(translate(
                "Lesson", "Which values will the row of <b>{row}</b> mix? Predict the rows of V with the largest "
                          "weights in ② — think, then press <b>Reveal ③</b>.").format(row=escape(tokens[row])))
        else:
            self.instruction.setText(translate("Lesson", "All three stages are shown. <b>{start}</b> hides them again, "
                                                         "so you can guess before each reveal.").format(
                start=self._start_label()))
        for step in self.steps:
            shown = m.revealed >= step.stage
            step.reveal_button.setEnabled(m.revealed == step.stage - 1)
            step.reveal_button.setText(
                (translate("Lesson", "{stage} shown") if shown else translate("Lesson", "Reveal {stage}")).format(
                    stage='①②③'[step.stage - 1]))
            if step.property("current") != (step.stage == nxt):  # the next stage to reveal is outlined
                step.setProperty("current", step.stage == nxt)
                step.style().unpolish(step)
                step.style().polish(step)
            step.status.setText(self._step_status(step.stage))

    def _step_status(self, stage):
        m = self.model
        tokens = m.query_tokens
        if stage == 3:
            return self._mix_status()
        guess = self._guess(stage)
        panel = translate("Lesson", STEPS[stage - 1][3])
        matrix, mask, labels = self._stage_view(stage)
        if m.revealed < stage:
            if guess:
                return translate("Lesson", "Your guess: {row} → <b>{key}</b>").format(
                    row=escape(tokens[guess[0]]), key=escape(labels[guess[1]]))
            return "<i>" + translate("Lesson", "Hidden. Guess first: click a cell in the {panel} panel.").format(
                panel=panel) + "</i>"
        if guess is None:
            row = m.settings.selected_row
            cols = darkest_cols_in_row(matrix, row, mask)
            if not cols:
                return translate("Lesson", "Shown. The row of {row} is fully masked: no key to look at.").format(
                    row=escape(tokens[row]))
            each = translate("Lesson", " each") if len(cols) > 1 else ""
            value = self._values(stage, matrix[row], [matrix[row, cols[0]]])[0]
            return translate("Lesson", "Shown. Darkest in the row of {row}: <b>{keys}</b> ({value}{each}).").format(
                row=escape(tokens[row]), keys=names(labels, cols), value=value, each=each)
        frozen = self._verdicts.get(stage)
        if frozen is None or frozen.guess != tuple(m.guesses.get(stage, ())):
            return self._verdict_text(stage, guess)  # no reveal seen (the panel came later): judge now
        same = frozen.matrix.shape == matrix.shape and np.array_equal(frozen.matrix, matrix) and (
            (frozen.mask is None and mask is None) or (frozen.mask is not None and mask is not None
                                                       and np.array_equal(frozen.mask, mask)))
        if same:
            return frozen.text
        return (f"{frozen.text}<br><i style='color:#4a5360'>" + translate(
            "Lesson", "Judged on the numbers you revealed; they have changed since. Start again to guess anew.")
            + "</i>")

    def _values(self, stage, row_values, picked):
        """Texts for ``picked`` numbers of a row: weights with 2 decimals (more if the row needs them to tell
        different numbers apart), scores as the heatmap prints them."""
        if stage == 2:
            return weight_html(picked, among=row_values)
        d = distinguishing_decimals(row_values)
        return [format_fixed(x, d) for x in picked]

    def _verdict_text(self, stage, guess):
        """Judge the guess against what stage ``stage`` shows now (called when the stage is revealed)."""
        tokens = self.model.query_tokens
        matrix, mask, labels = self._stage_view(stage)
        v = judge_guess(matrix, guess, mask)
        who = escape(tokens[v.row])
        picked = escape(labels[v.guessed_col])
        if v.true_col is None:
            return f"{mark(False)} " + translate("Lesson", "the row of {row} is fully masked: no key to look at, every "
                                                           "weight is 0.").format(row=who)
        allowed = matrix[v.row] if mask is None else matrix[v.row][np.asarray(mask[v.row], dtype=bool)]
        mine, top = self._values(stage, allowed, [v.guessed_value, v.true_value])
        dark = names(labels, v.tied_cols)
        each = translate("Lesson", " each") if len(v.tied_cols) > 1 else ""
        if v.correct:
            tie = translate("Lesson", " — tied with {keys}").format(
                keys=names(labels, [c for c in v.tied_cols if c != v.guessed_col])) if len(v.tied_cols) > 1 else ""
            return f"{mark(True)} " + translate("Lesson", "right: <b>{key}</b> ({value}){tie}, in the row of {row}."
                                                ).format(key=picked, value=mine, tie=tie, row=who)
        yours = translate("Lesson", "masked") if v.guessed_masked else mine
        wrong = (translate("Lesson", "the darkest in the row of {row} are <b>{keys}</b> ({value}{each}), you picked "
                                     "<b>{key}</b> ({yours}).") if len(v.tied_cols) > 1 else
                 translate("Lesson", "the darkest in the row of {row} is <b>{keys}</b> ({value}{each}), you picked "
                                     "<b>{key}</b> ({yours})."))
        return f"{mark(False)} " + wrong.format(row=who, keys=dark, value=top, each=each, key=picked, yours=yours)

    def _mix_status(self):
        """Stage ③: before the reveal, the question (which values will the row mix?); after, the answer."""
        m = self.model
        r, h = m.results, self._head()
        row = m.settings.selected_row
        who = escape(m.query_tokens[row])
        if m.revealed < 3:
            return "<i>" + translate("Lesson", "Hidden. Which rows of V will the row of {row} mix? The ones with the "
                                               "largest weights in ② — think, then reveal.").format(row=who) + "</i>"
        _, mask, _ = self._stage_view(2)
        w = r.heads.weights[h]
        mix = top_contributors(w, row, mask)
        if mix.masked:
            return translate("Lesson", "Shown. The row of {row} is fully masked: it mixes nothing, its output is 0."
                             ).format(row=who)
        texts = weight_html([x for _, x in mix.keys], among=w[row])
        parts = [f"<b>v({escape(m.tokens[j])})</b> {t}" for (j, _), t in zip(mix.keys, texts)]
        said = parts[0] if len(parts) == 1 else (translate("Lesson", ", ").join(parts[:-1])
                                                 + translate("Lesson", " and ") + parts[-1])
        rest = ""
        if mix.rest:
            rest = translate("Lesson", "; the other {keys} hold {weight}").format(
                keys=count(mix.rest, 'key'), n_keys=mix.rest, weight=escape(format_weight(mix.rest_weight)))
        head = ""
        if r.n_heads > 1:
            ro = row_readout(r.heads, r.v, row, h)
            head = translate("Lesson", " Head {head} of {heads}: its weights mix its slice V[:, {cols}].").format(
                head=h + 1, heads=r.n_heads, cols=columns_text(ro.columns))
        if mix.rest:
            return translate("Lesson", "Shown. The row of {row} mixes mostly {said}{rest}.{head}").format(
                row=who, said=said, rest=rest, head=head)
        return translate("Lesson", "Shown. The row of {row} mixes {said}{rest}.{head}").format(
            row=who, said=said, rest=rest, head=head)

