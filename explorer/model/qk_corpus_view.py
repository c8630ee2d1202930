"""F24's corpus view, for the Query–key space panel: the session's real head (one opened from the Model view)
over many sentences, each run through the open model, off the GUI thread when large (``Background``).

The sentences are the panel's, not the session's (neither saved nor undone). They are checked and tokenized
at once, so a refusal changes nothing; the forward passes (``explorer.models.qk_corpus``) and the plane
(``explorer.core.qk_space.corpus_plane``) are the job. Another head opened, or the same head after an undo:
the same sentences are placed again for it.
"""
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from explorer.core.errors import ExplorerError
from explorer.core.qk_space import CorpusPlane, corpus_plane

from .background import LIVE_COST, Background


@dataclass(frozen=True, eq=False)
class Placed:
    """The sentences placed for one head: its q, k and weights per sentence and the plane of them all."""

    model_name: str
    head: object  # explorer.models.qk_corpus.CorpusHead
    plane: CorpusPlane


class QKCorpusView(QObject):
    """``place(text)`` or ``load(path)``; ``work`` (a Background) holds ``state`` and the ``Placed`` result;
    ``changed()`` when it or ``note`` changes."""

    changed = Signal()

    def __init__(self, model, parent=None):
        super().__init__(parent)
        self.model, self.ck = model, model.checkpoints
        self.work = Background(model, parent)
        self.work.changed.connect(self.changed)
        self.sentences = ()  # the sentences placed (asked for), one per line as given
        self.note = ""  # why the sentences cannot follow the session's head now (another model open, …)
        self._tokenized = None  # (the model they were tokenized with, ids and labels per sentence)
        model.changed.connect(self.follow)
        model.history_moved.connect(self.follow)
        self.ck.opened.connect(self.follow)

    def source(self):
        """(the session's HeadSource, None) while it is a head of the open model, else (None, why not)."""
        head = self.model.state.model_head
        if head is None:
            return None, ("The session is not a head of a real model: open one in the Model view (click a head), "
                          "then place sentences for it")
        if not self.ck.serves(head):
            return None, f"The session's model, {head.name}, is not open: open it in the Model view first"
        return head, None

    def place(self, text):
        """Place the sentences of ``text`` (one per line) for the session's head: None, or why not (nothing
        changes then)."""
        from explorer.models.qk_corpus import CorpusError, split_sentences, tokenize_sentences
        head, why = self.source()
        if head is None:
            return why
        try:
            sentences = split_sentences(text)
            tokenized = tokenize_sentences(self.ck.model, sentences)
        except (CorpusError, ExplorerError) as exc:
            return str(exc)
        self.sentences, self._tokenized, self.note = tuple(sentences), (self.ck.model, tokenized), ""
        self._ask(head)
        return None

    def load(self, path):
        """(the text of the file at ``path``, None) — placed — or (None, why not; nothing changes)."""
        from explorer.models.qk_corpus import CorpusError, read_sentences
        try:
            text = read_sentences(path)
        except CorpusError as exc:
            return None, str(exc)
        why = self.place(text)
        return (None, why) if why else (text, None)

    def follow(self, *_):
        """The session's head changed (another head opened, an undo, another model): place the same sentences
        for the head it is now."""
        if not self.sentences:
            return
        head, why = self.source()
        if head is None:
            return  # the last placement stays, named by its own head
        if self._tokenized[0] is not self.ck.model:
            from explorer.models.qk_corpus import tokenize_sentences
            try:
                self._tokenized = (self.ck.model, tokenize_sentences(self.ck.model, self.sentences))
            except ExplorerError as exc:
                self._set_note(f"The sentences do not fit {self.ck.model.name}: {exc}")
                return
        self._set_note("")
        self._ask(head)

    def _set_note(self, note):
        if note != self.note:
            self.note = note
            self.changed.emit()

    def _ask(self, head):
        from explorer.models import RunCancelled
        from explorer.models.qk_corpus import gather, pass_cost
        model, tokenized = self._tokenized
        layer, index, sentences, ck = head.layer, head.head, self.sentences, self.ck
        key = (id(model), layer, index, tuple(tuple(ids) for ids, _ in tokenized))
        cost = pass_cost(model.config, sum(len(ids) for ids, _ in tokenized))
        if ck.busy:  # another pass holds the model: wait for it on the worker, never on the GUI thread
            cost = max(cost, LIVE_COST)

        def job(cancelled):
            try:
                with ck.exclusive(cancelled):
                    found = gather(model, sentences, tokenized, layer, index, cancelled=cancelled)
            except RunCancelled:
                return None
            return Placed(model_name=model.name, head=found, plane=corpus_plane(found.queries, found.keys))

        self.work.ask(key, job, cost)

    @property
    def placed(self):
        """The newest ``Placed`` result, or None."""
        return self.work.result
