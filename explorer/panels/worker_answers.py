"""Part of a panel whose view computes on a worker (``explorer.model.background.Background``): it asks the view
while it renders, draws an answer that comes at once in the same render, and one that comes later when it
arrives — at once if the panel is in view and its results are readable, else when it is shown again (an
answer that comes behind a tab may be of tokens the session no longer has)."""
from explorer.model import VALUES


class WorkerAnswers:
    """Mixed into a ``Panel``: ``ask_view(ask)`` from ``render``; connect the view's ``changed`` to ``arrived``;
    ``show_answer()`` draws the view's state ("computing…", a refusal, or its result)."""

    _asking = False  # True while ``ask_view`` asks (the answer that comes at once is drawn there)

    def ask_view(self, ask):
        self._asking = True
        try:
            ask()
        finally:
            self._asking = False
        self.show_answer()

    def arrived(self):
        if self._asking:
            return
        if not (self.isVisible() and self._on_screen) or self.waiting():
            self._stale |= VALUES
            return
        self.show_answer()

    def show_answer(self):
        raise NotImplementedError
