"""What an edit of the model returns: True when done, a falsy ``Refusal`` carrying the reason when not."""


class Refusal:
    """A refused edit: false in a test (``if not model.set_cell(...)``), ``reason`` says why."""

    __slots__ = ("reason",)

    def __init__(self, reason):
        self.reason = str(reason)

    def __bool__(self):
        return False

    def __repr__(self):
        return f"Refusal({self.reason!r})"


class Transaction:
    """The edits made inside ``model.transaction(text)``: one undo step, or none at all."""

    def __init__(self, text, before, selection):
        self.text = text
        self.before = before  # the state to go back to if any edit inside is refused
        self.selection = selection  # and the selection (an edit inside may have moved it with its token)
        self.copied = set()  # matrices already copied, so cell writes never reach ``before``
        self.refusal = None  # the Refusal that rolled the transaction back, if any

    @property
    def ok(self):
        return self.refusal is None

    def __bool__(self):
        return self.ok
