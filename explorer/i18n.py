"""The interface's language (F21): English (the source texts) or 中文 (explorer/resources/i18n/explorer_zh_CN.qm,
compiled with pyside6-lrelease from the .ts beside it; tools/update_translations.py refreshes both).

The language is, in order: ``--lang``, the one chosen in View ▸ Language (remembered), the system locale's
(zh… → 中文, anything else → English). Switching installs the translator; Qt then sends every widget a
LanguageChange, on which the window and its panels set their texts again (a panel: the texts it kept with
``Panel.keep_text``, then a full redraw, since ``render`` writes the rest). Texts made by the Qt-free core are
marked there (explorer/core/translatable.py) and translated here when shown (``in_language``).
"""
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QLibraryInfo, QLocale, QTranslator

from explorer.core.translatable import message_of
from explorer.settings_store import qsettings

LANGUAGES = {"en": "English", "zh": "中文"}  # each named in its own language, in the menu too
I18N_DIR = Path(__file__).resolve().parent / "resources" / "i18n"
QM_FILES = {"zh": I18N_DIR / "explorer_zh_CN.qm"}
QT_QM = {"zh": "qtbase_zh_CN"}  # Qt's own texts: dialog buttons (Save, Discard, Cancel), file dialogs, key names
SETTING = "ui/language"  # QSettings key: the language chosen in View ▸ Language

_state = {"language": "en", "translators": []}


def translate(context, text):
    """``text`` in the interface's language (pyside6-lupdate finds the literal arguments of these calls)."""
    return QCoreApplication.translate(context, text)


def in_language(text):
    """A text from the core (explorer/core/translatable.py) in the interface's language: a marked Template
    translated, a Said's template translated and filled with its arguments (each shown too); other text as is."""
    template = getattr(text, "template", None)
    if template is not None:
        arguments = {name: in_language(value) for name, value in text.arguments.items()}
        return translate(template.context, str(template)).format(**arguments)
    context = getattr(text, "context", None)
    return translate(context, str(text)) if context is not None else text


def shown_error(error):
    """An ExplorerError's message in the interface's language (``str(error)`` would lose its template)."""
    return in_language(message_of(error))


def language_of(locale_name):
    """The interface language for a locale's name: "zh" for zh, zh_CN, zh_TW…; "en" for every other."""
    return "zh" if str(locale_name).lower().replace("-", "_").split("_")[0] == "zh" else "en"


def system_language():
    return language_of(QLocale.system().name())


def saved_language():
    """The language chosen in View ▸ Language on an earlier run, or None."""
    value = qsettings().value(SETTING, "")
    return value if value in LANGUAGES else None


def remember_language(language):
    settings = qsettings()
    settings.setValue(SETTING, language)
    settings.sync()


def starting_language(asked=None):
    """``asked`` (--lang), else the remembered choice, else the system locale's."""
    return asked or saved_language() or system_language()


def current_language():
    return _state["language"]


def set_language(language):
    """Translate the interface into ``language`` ("en" or "zh") now; every widget is told at once.
    False (and English) when its translation cannot be loaded."""
    app = QCoreApplication.instance()
    for old in _state["translators"]:
        app.removeTranslator(old)
    _state["translators"], _state["language"] = [], "en"
    ok = True
    if language in QM_FILES:
        ours = QTranslator(app)
        ok = ours.load(str(QM_FILES[language]))
        if ok:
            qt = QTranslator(app)
            if qt.load(QT_QM[language], QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
                app.installTranslator(qt)
                _state["translators"].append(qt)
            app.installTranslator(ours)
            _state["translators"].append(ours)
            _state["language"] = language
    # (installing posts LanguageChange; deliver it now, so the texts have changed when this returns)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.LanguageChange)
    return ok
