"""Refresh the 中文 translation (F21): collect every translatable text into
explorer/resources/i18n/explorer_zh_CN.ts with pyside6-lupdate, then compile it to the .qm the app loads.

    .venv/bin/python tools/update_translations.py            # update the .ts, compile the .qm
    .venv/bin/python tools/update_translations.py --compile  # only compile (after translating in the .ts)

New texts arrive in the .ts as unfinished: translate them (Qt Linguist, or by hand), then compile.
Besides the ``translate("Context", "…")`` and ``QT_TRANSLATE_NOOP`` calls in the code, the texts of two
tables are collected here: the settings' labels and choices (explorer/core/settings_schema.py: core has
no Qt; context "Settings") and the docks' titles (explorer/main_window.py DOCKS; context "Docks"); and the
literal (context, text) of the panels' ``keep_text(setter, "Context", "…")`` and ``kept_label("Context", "…")``
(explorer/panels/base.py), which lupdate does not know.

Placeholders: a translation keeps every ``{name}`` of its source, except that a count in English words ``{x}``
("4 tokens", from explorer.core.plural.count) may be written with its bare number ``{n_x}`` (the code passes it
beside ``x``: "{n_x} 个词元"), and an English-only word ``{…_en}`` (a plural ending, an article) may be left out
(tests/core/test_translation_file.py checks this).
"""
import ast
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TS = ROOT / "explorer" / "resources" / "i18n" / "explorer_zh_CN.ts"
QM = TS.with_suffix(".qm")
BIN = Path(sys.executable).parent


def table_sources():
    """(context, text) of the table texts the code translates by their English text."""
    sys.path.insert(0, str(ROOT))
    from explorer.core.settings_schema import SETTINGS
    from explorer.main_window import DOCKS

    texts = []
    for s in SETTINGS:
        texts.append(("Settings", s.label))
        texts.extend(("Settings", label) for _, label in s.choices)
        if s.why:
            texts.append(("Settings", s.why))
    texts.extend(("Docks", spec.title) for spec in DOCKS)
    for path in source_files():
        texts.extend(kept_texts(Path(path).read_text(encoding="utf-8")))
    return list(dict.fromkeys(texts))


def kept_texts(source):
    """(context, text) of every ``keep_text(setter, context, text)`` and ``kept_label(context, text)`` call
    whose context and text are literals."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            args = {"keep_text": node.args[1:3], "kept_label": node.args[0:2]}.get(node.func.attr)
            if args and len(args) == 2 and all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                               for a in args):
                found.append((args[0].value, args[1].value))
    return found


def source_files():
    return sorted(str(p) for p in (ROOT / "explorer").rglob("*.py"))


def lupdate(ts, extra_file):
    """Run pyside6-lupdate over the explorer's code and ``extra_file`` into ``ts``."""
    subprocess.run([str(BIN / "pyside6-lupdate"), *source_files(), extra_file, "-ts", str(ts),
                    "-locations", "none", "-no-obsolete", "-target-language", "zh_CN"],
                   check=True, capture_output=True)


def write_table_file(path):
    """The table texts as QT_TRANSLATE_NOOP calls, for lupdate to find."""
    lines = [f"QT_TRANSLATE_NOOP({context!r}, {text!r})" for context, text in table_sources()]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def update(ts=TS):
    with tempfile.TemporaryDirectory() as folder:
        extra = Path(folder) / "table_texts.py"
        write_table_file(extra)
        lupdate(ts, str(extra))


def compile_qm(ts=TS, qm=QM):
    subprocess.run([str(BIN / "pyside6-lrelease"), str(ts), "-qm", str(qm)], check=True)


if __name__ == "__main__":
    if "--compile" not in sys.argv[1:]:
        update()
    compile_qm()
