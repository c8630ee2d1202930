"""What the model says next (F25): the likeliest next tokens before any edit and with the session's
edited head, side by side, each with its change; which later heads changed most. Renders the model's
``flow_back`` (explorer/model/flow_back.py), which runs the passes; nothing here computes."""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout

from explorer.model.flow_back import CLOSED, FAILED, LOST, MISFIT, NONE, READY, STOPPED, WAITING
from explorer.widgets.html_escape import escape
from explorer.widgets.number_text import format_change
from explorer.widgets.palette import BAD, BLUE, MUTED, VERMILLION, WEIGHT_BLUE
from explorer.i18n import in_language, translate

EIGHTHS = " ▏▎▍▌▋▊▉█"
BAR_CELLS = 4  # a probability of 1 fills this many characters
LONGEST = 14  # characters of a token's label shown
SHOWN_HEADS = 4
TEXT_WIDTH = 260  # the view's narrowest, for its sentences when there is no table


def percent(p):
    """A probability as a person reads it, as rich text: "41.2%", "0.03%", "&lt;0.01%"."""
    if p >= 0.0995:
        return f"{100 * p:.1f}%"
    if p >= 0.0001:
        return f"{100 * p:.2f}%"
    return "&lt;0.01%"  # (rich text)


SAME_POINTS = 0.005  # a change below this many percentage points reads "±0": float32's own noise is ~0.001


def points(change):
    """A change of probability in percentage points, in the changes' one format (two significant digits, three
    from 10 up, as ``percent`` writes those): "+12.3", "−0.4", "+0.059", "±0" — never larger than it is."""
    value = 100 * change
    if abs(value) < SAME_POINTS:
        return "±0"
    return format_change(value, 3 if abs(value) >= 9.95 else 2)


def bar(p):
    """A probability as a bar of block characters, in eighths of a character."""
    eighths = int(round(p * BAR_CELLS * 8))
    return "█" * (eighths // 8) + (EIGHTHS[eighths % 8] if eighths % 8 else "")


def token_cell(entry, colour=None):
    """The token's label (spaces as ·, as elsewhere), long ones cut with an ellipsis."""
    style = f" style='padding-right:4px;{f'color:{colour}' if colour else ''}'"
    text = entry.label if len(entry.label) <= LONGEST else entry.label[:LONGEST - 1] + "…"
    return f"<td{style}>{escape(text)}</td>"


def table(change, stale):
    """Two ranked lists side by side: before the edit, and with the edited head (with each token's change)."""
    ink = MUTED if stale else None
    before, after = translate("ModelView", "before any edit"), translate("ModelView", "with the edited head")
    head = (f"<tr style='color:{MUTED}'><th align=left colspan=3>{before}</th>"
            f"<th width=6></th><th align=left colspan=4>{after}</th></tr>")
    rows = []
    for b, a in zip(change.before_top, change.after_top):
        delta = a.change
        tint = MUTED if stale or 100 * abs(delta) < SAME_POINTS else (BLUE if delta > 0 else VERMILLION)
        rows.append(
            f"<tr>{token_cell(b, ink)}"
            f"<td align=right>{percent(b.before)}</td>"
            f"<td style='color:{MUTED if stale else WEIGHT_BLUE}'>{bar(b.before)}</td><td></td>"
            f"{token_cell(a, ink)}<td align=right>{percent(a.after)}</td>"
            f"<td style='color:{MUTED if stale else WEIGHT_BLUE}'>{bar(a.after)}</td>"
            f"<td align=right style='color:{tint}'>{points(delta)}</td></tr>")
    return f"<table cellspacing=0 cellpadding=1>{head}{''.join(rows)}</table>"


def favourite(change):
    """What became of the unedited model's likeliest next token, when it lost its place."""
    first = change.before_top[0]
    if first.token_id == change.after_top[0].token_id:
        return ""
    return translate("ModelView", "; “{token}” {before} → {after}").format(
        token=escape(first.label), before=percent(first.before), after=f"<b>{percent(first.after)}</b>")


def share(c):
    """A share of weight that moved, with the digits it needs: "0.42", "0.003" (never a changed head's "0.00")."""
    return f"{c:.2f}" if c >= 0.01 else f"{c:.3f}"


def later_heads(change, source):
    """Which heads after the edited one changed most, counted from 1 as the window counts."""
    if source.layer + 1 >= change.layers:
        return translate("ModelView", "No layer comes after layer {layer}: the edit changes the output only through "
                                      "the rest of this layer's block.").format(layer=source.layer + 1)
    moved = [(layer, head, c) for layer, head, c in change.later_heads if c >= 0.001][:SHOWN_HEADS]
    if not moved:
        return translate("ModelView", "The heads of the later layers attend as before.")
    names = ", ".join(translate("ModelView", "layer {layer} head {head}").format(layer=layer + 1, head=head + 1)
                      + f" <b>{share(c)}</b>" for layer, head, c in moved)
    return translate("ModelView", "Later heads that changed most: {names}.").format(names=names)


def closed(source, open_model):
    """Why a session's head shows no numbers while its model is not the open one (``open_model``: the open
    explorer.models.Model, or None), and what opens it; the folders only when the names alike do not tell."""
    said = escape(in_language(source.describe()))
    if open_model is None:
        return translate("ModelView", "The session is {head} (from {folder}). Open {name} to see what its edits change "
                                      "in what it says next.").format(head=said, folder=escape(str(source.folder)),
                                                                      name=escape(source.name))
    if open_model.name != source.name:
        where, other = said, escape(open_model.name)
    else:
        from_ = translate("ModelView", "{what} from {folder}")
        where = from_.format(what=said, folder=escape(str(source.folder)))
        other = from_.format(what=escape(open_model.name), folder=escape(str(open_model.folder)))
    return translate("ModelView", "The session is {where}, which is not the open model now ({other} is): open {name} "
                                  "again to see what its edits change.").format(where=where, other=other,
                                                                                name=escape(source.name))


class NextTokensView(QFrame):
    """The next-token comparison for the session's model head, or why there is none. ``open_folder(folder)``
    opens the session's model when asked (the button of a session whose model is not open)."""

    def __init__(self, flow, parent=None, open_folder=None):
        super().__init__(parent)
        self.flow = flow
        self.open_folder = open_folder
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = QLabel(self)
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.action = QPushButton(translate("ModelView", "Cancel"), self)
        self.action.clicked.connect(self._act)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.numbers = QLabel(self)
        self.numbers.setTextFormat(Qt.TextFormat.RichText)
        self.numbers.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.later = QLabel(self)
        self.later.setWordWrap(True)
        self.later.setToolTip(translate("ModelView", "Each number: the share of each row's attention weight that "
                                                     "moved in that head, on average over the rows"))
        self.offer = QPushButton(self)  # "Open tiny-induction": the session's model, while another (or none) is open
        self.offer.clicked.connect(lambda: self.open_folder(self.flow.home()))
        self.offer.setVisible(False)
        for label in (self.status, self.later):  # wrapped text follows the table's width, never widens it
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(TEXT_WIDTH)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.action)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(3)  # the whole comparison fits a low dock (1024 × 640) once scrolled to
        layout.addLayout(top)
        layout.addWidget(self.status)
        offering = QHBoxLayout()
        offering.addWidget(self.offer)
        offering.addStretch(1)
        layout.addLayout(offering)
        layout.addWidget(self.numbers)
        layout.addWidget(self.later)
        layout.addStretch(1)  # a tall dock leaves its room below, not between the lines
        flow.changed.connect(self.render)
        flow.progress.connect(self._progress)
        self.render()

    def showEvent(self, event):
        super().showEvent(event)
        self.flow.watch(True)

    def hideEvent(self, event):
        super().hideEvent(event)
        self.flow.watch(False)

    def _act(self):
        if self.flow.state == WAITING:
            self.flow.cancel()
        else:
            self.flow.rerun()

    def _progress(self, text):
        if text and self.flow.state == WAITING:
            self.status.setText(self._running(text))

    def _running(self, progress=""):
        source = self.flow.source
        where = f" — {escape(progress)}" if progress else ""
        before = translate("ModelView", " The numbers below are from before the last edit.") if (
            self.flow.result is not None) else ""
        return translate("ModelView", "Running {name} with the edited layer {layer} head {head}…{where}.{before}").format(
            name=escape(source.name), layer=source.layer + 1, head=source.head + 1, where=where, before=before)

    def render(self):
        flow, source = self.flow, self.flow.source
        state, result = flow.state, flow.result
        after = translate("ModelView", " after “{token}”").format(token=escape(result.last_token)) if (
            result is not None and state != NONE) else ""
        self.title.setText("<b>" + translate("ModelView", "What the model says next{after}").format(after=after) + "</b>")
        self.action.setVisible(state in (WAITING, STOPPED, FAILED))
        self.action.setText(translate("ModelView", "Cancel") if state == WAITING else translate("ModelView", "Run again"))
        self.action.setToolTip(translate("ModelView", "Stop the forward pass with the edited head (at its next layer)")
                               if state == WAITING else
                               translate("ModelView", "Run the forward pass with the edited head again"))
        offer = state == CLOSED and self.open_folder is not None
        self.offer.setVisible(offer)
        if offer:
            self.offer.setText(translate("ModelView", "Open {title}").format(title=source.name))
            self.offer.setToolTip(translate("ModelView", "Open {folder} in the Model view").format(folder=source.folder))
        shown = result is not None and state in (READY, WAITING, STOPPED)
        self.numbers.setVisible(shown)
        self.later.setVisible(shown)
        if shown:
            stale = state != READY
            self.numbers.setText(table(result, stale))
            self.later.setText(later_heads(result, source))
        if state == NONE:
            self.status.setText(translate("ModelView", "The session is not a head of a real model, so there is no model "
                                                       "for its edits to flow back into. Click a head above: then every "
                                                       "edit of its numbers runs through the rest of the model, and here "
                                                       "you see what it says next change."))
        elif state == CLOSED:
            self.status.setText(closed(source, flow.ck.model))
        elif state == LOST:
            self.status.setText(translate("ModelView", "This session came from {head} at {folder}, which {why}. Its "
                                                       "numbers are all here to edit; only what the model says next "
                                                       "cannot be shown.").format(
                head=escape(in_language(source.describe())), folder=escape(str(source.folder)),
                why=escape(in_language(flow.reason))))
        elif state == MISFIT:
            unsaved = (translate("ModelView", " Saved like this, the file would not remember the head: it keeps one "
                                              "only while the tokens are the model's text's.")
                       if flow.model.state.saved_head() is None else "")
            self.status.setText(translate("ModelView", "The session was {head}, but it cannot stand in for that head "
                                                       "now: {why}.{unsaved}").format(
                head=escape(in_language(source.describe())), why=escape(in_language(flow.reason)), unsaved=unsaved))
        elif state == WAITING:
            self.status.setText(self._running())
        elif state == STOPPED:
            self.status.setText(translate("ModelView", "Stopped.") + (
                translate("ModelView", " The numbers below are from before the last edit.") if shown else ""))
        elif state == FAILED:
            self.status.setText(f"<span style='color:{BAD}'>{escape(in_language(flow.reason))}</span>")
        else:  # who is speaking is in the tooltip: the line stays short above the table
            self.status.setText(translate("ModelView", "{moved} of the probability moved{favourite}.").format(
                moved=f"<b>{percent(result.moved)}</b>", favourite=favourite(result)))
        self.status.setToolTip(translate("ModelView", "{name} with its layer {layer} head {head} as the session has it "
                                                      "now, against the model before any edit").format(
            name=source.name, layer=source.layer + 1, head=source.head + 1) if state == READY else "")
