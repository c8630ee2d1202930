"""The lesson's ① ② ③ in words: what to do next, each step's guess or verdict, and what row ③ mixes."""
from explorer.widgets.html_escape import escape

import numpy as np

from explorer.core.lesson import darkest_cols_in_row, distinguishing_decimals, judge_guess, top_contributors
from explorer.core.plural import count
from explorer.core.readout import row_readout
from explorer.widgets.number_text import format_fixed, format_weight

from .texts import STEPS
from .wording import columns_text, mark, names, weight_html


class StepTexts:
    """Part of LessonPanel: renders the steps' instruction and statuses from the model's lesson state."""

    def _render_steps(self):
        m = self.model
        tokens, row = m.query_tokens, m.settings.selected_row  # the rows: the queries
        nxt = m.revealed + 1
        if nxt <= 2:
            panel = STEPS[nxt - 1][3]
            guess = self._guess(nxt)
            if guess:
                _, _, labels = self._stage_view(nxt)
                self.instruction.setText(
                    f"Your guess for {'①②③'[nxt - 1]}: <b>{escape(labels[guess[1]])}</b> in the row of "
                    f"<b>{escape(tokens[guess[0]])}</b>. Press <b>Reveal {'①②③'[nxt - 1]}</b> to check.")
            else:
                self.instruction.setText(
                    f"Click the cell you expect to be darkest in the row of <b>{escape(tokens[row])}</b> in the "
                    f"<b>{panel}</b> panel, then press <b>Reveal {'①②③'[nxt - 1]}</b>.")
        elif nxt == 3:
            self.instruction.setText(
                f"Which values will the row of <b>{escape(tokens[row])}</b> mix? Predict the rows of V with the "
                f"largest weights in ② — think, then press <b>Reveal ③</b>.")
        else:
            self.instruction.setText(f"All three stages are shown. <b>{self._start_label()}</b> hides them again, "
                                     f"so you can guess before each reveal.")
        for step in self.steps:
            shown = m.revealed >= step.stage
            step.reveal_button.setEnabled(m.revealed == step.stage - 1)
            step.reveal_button.setText(f"{'①②③'[step.stage - 1]} shown" if shown else
                                       f"Reveal {'①②③'[step.stage - 1]}")
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
        panel = STEPS[stage - 1][3]
        matrix, mask, labels = self._stage_view(stage)
        if m.revealed < stage:
            if guess:
                return f"Your guess: {escape(tokens[guess[0]])} → <b>{escape(labels[guess[1]])}</b>"
            return f"<i>Hidden. Guess first: click a cell in the {panel} panel.</i>"
        if guess is None:
            row = m.settings.selected_row
            cols = darkest_cols_in_row(matrix, row, mask)
            if not cols:
                return f"Shown. The row of {escape(tokens[row])} is fully masked: no key to look at."
            each = " each" if len(cols) > 1 else ""
            value = self._values(stage, matrix[row], [matrix[row, cols[0]]])[0]
            return f"Shown. Darkest in the row of {escape(tokens[row])}: <b>{names(labels, cols)}</b> ({value}{each})."
        frozen = self._verdicts.get(stage)
        if frozen is None or frozen.guess != tuple(m.guesses.get(stage, ())):
            return self._verdict_text(stage, guess)  # no reveal seen (the panel came later): judge now
        same = frozen.matrix.shape == matrix.shape and np.array_equal(frozen.matrix, matrix) and (
            (frozen.mask is None and mask is None) or (frozen.mask is not None and mask is not None
                                                       and np.array_equal(frozen.mask, mask)))
        if same:
            return frozen.text
        return (f"{frozen.text}<br><i style='color:#4a5360'>Judged on the numbers you revealed; they have changed "
                f"since. Start again to guess anew.</i>")

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
            return f"{mark(False)} the row of {who} is fully masked: no key to look at, every weight is 0."
        allowed = matrix[v.row] if mask is None else matrix[v.row][np.asarray(mask[v.row], dtype=bool)]
        mine, top = self._values(stage, allowed, [v.guessed_value, v.true_value])
        dark = names(labels, v.tied_cols)
        each = " each" if len(v.tied_cols) > 1 else ""
        if v.correct:
            tie = f" — tied with {names(labels, [c for c in v.tied_cols if c != v.guessed_col])}" \
                if len(v.tied_cols) > 1 else ""
            return f"{mark(True)} right: <b>{picked}</b> ({mine}){tie}, in the row of {who}."
        verb = "are" if len(v.tied_cols) > 1 else "is"
        yours = "masked" if v.guessed_masked else mine
        return (f"{mark(False)} the darkest in the row of {who} {verb} <b>{dark}</b> ({top}{each}), "
                f"you picked <b>{picked}</b> ({yours}).")

    def _mix_status(self):
        """Stage ③: before the reveal, the question (which values will the row mix?); after, the answer."""
        m = self.model
        r, h = m.results, self._head()
        row = m.settings.selected_row
        who = escape(m.query_tokens[row])
        if m.revealed < 3:
            return (f"<i>Hidden. Which rows of V will the row of {who} mix? The ones with the largest weights "
                    f"in ② — think, then reveal.</i>")
        _, mask, _ = self._stage_view(2)
        w = r.heads.weights[h]
        mix = top_contributors(w, row, mask)
        if mix.masked:
            return f"Shown. The row of {who} is fully masked: it mixes nothing, its output is 0."
        texts = weight_html([x for _, x in mix.keys], among=w[row])
        parts = [f"<b>v({escape(m.tokens[j])})</b> {t}" for (j, _), t in zip(mix.keys, texts)]
        said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        rest = ""
        if mix.rest:
            rest = f"; the other {count(mix.rest, 'key')} hold {escape(format_weight(mix.rest_weight))}"
        head = ""
        if r.n_heads > 1:
            ro = row_readout(r.heads, r.v, row, h)
            head = f" Head {h + 1} of {r.n_heads}: its weights mix its slice V[:, {columns_text(ro.columns)}]."
        most = "mostly " if mix.rest else ""
        return f"Shown. The row of {who} mixes {most}{said}{rest}.{head}"

