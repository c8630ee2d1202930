"""Texts the core shows a person, marked for translation without Qt (F21).

Core never imports Qt, yet some of its texts reach the screen (a refusal, a caption). They are written as
``QT_TRANSLATE_NOOP("Context", "English with {names}").format(names=…)``: pyside6-lupdate finds these calls
by their name, as it finds Qt's own marker, so the English is collected into the .ts; at run time the call
returns a ``Template`` and ``format`` a ``Said`` — both plain ``str`` holding the English, so the core and
its tests read them as before, and each remembers its context, template and arguments so that the Qt layer
(``explorer.i18n.shown``) can translate the template and fill it again in the interface's language.
(A Said joined to other text becomes a plain str, shown as it is: mark whole sentences.)
"""


class Template(str):
    """An English text (a format template) and the context it is translated in."""

    def __new__(cls, context, text):
        made = super().__new__(cls, text)
        made.context = context
        return made

    def format(self, *args, **kwargs):
        return Said(self, kwargs)


class Said(str):
    """A Template filled with its arguments: the English text, remembering how it was made."""

    def __new__(cls, template, arguments):
        made = super().__new__(cls, str.format(template, **arguments))
        made.template, made.arguments = template, arguments
        return made


def QT_TRANSLATE_NOOP(context, text):  # noqa: N802 (the name lupdate looks for)
    """``text`` marked for translation in ``context`` (see the module's docstring)."""
    return Template(context, text)


def message_of(error):
    """An exception's message as it was raised, still remembering its template when it was marked
    (``str(error)`` and f-strings would give the bare English)."""
    return error.args[0] if len(error.args) == 1 and isinstance(error.args[0], str) else str(error)


def as_plain(text):
    """A text as JSON values (a Said's context, template and arguments, each argument so too), for another
    process to say it in its interface's language (``from_plain``)."""
    template = getattr(text, "template", None)
    if template is not None:
        return {"context": template.context, "template": str(template),
                "arguments": {name: as_plain(value) for name, value in text.arguments.items()}}
    context = getattr(text, "context", None)
    if context is not None:
        return {"context": context, "text": str(text)}
    return text if isinstance(text, (str, int, float, bool)) or text is None else str(text)


def from_plain(value):
    """The text ``as_plain`` gave: a Said or Template again, remembering how it was made."""
    if isinstance(value, dict) and "template" in value:
        return Template(value["context"], value["template"]).format(
            **{name: from_plain(v) for name, v in value.get("arguments", {}).items()})
    if isinstance(value, dict) and "text" in value:
        return Template(value["context"], value["text"])
    return value
