"""explorer.core stays Qt-free: usable from a notebook and testable without a display (as napari's model is)."""
import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "explorer" / "core"
QT_PREFIXES = ("PySide6", "PySide2", "shiboken6", "shiboken2", "pyqtgraph", "PyQt")  # PyQt5, PyQt6
QT_MODULES = ("sip", "qtpy")

PROBE = r"""
import importlib, json, pkgutil, sys
sys.path.insert(0, {root!r})
import explorer.core, explorer.core.session, explorer.core.presets
for info in pkgutil.walk_packages(explorer.core.__path__, "explorer.core."):
    importlib.import_module(info.name)
print(json.dumps(sorted(sys.modules)))
"""


def is_qt(name):
    top = name.split(".")[0]
    return top.startswith(QT_PREFIXES) or top in QT_MODULES


def test_importing_the_core_loads_no_qt_module():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSTARTUP"}
    proc = subprocess.run([sys.executable, "-c", PROBE.format(root=str(ROOT))], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    modules = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "explorer.core.presets" in modules and "explorer.core.session" in modules
    assert "explorer.core.rope" in modules
    qt = [m for m in modules if is_qt(m)]
    assert not qt, f"importing explorer.core loaded Qt modules: {qt}"


def test_no_core_source_imports_qt():
    sources = sorted(CORE.rglob("*.py"))
    assert len(sources) >= 10
    offenders = []
    dynamic = re.compile(r"""(import_module|__import__)\(\s*['"](%s)""" % "|".join(QT_PREFIXES + QT_MODULES))
    for path in sources:
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            offenders += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in names if is_qt(n)]
        for m in dynamic.finditer(text):
            offenders.append(f"{path.relative_to(ROOT)}: dynamic import of {m.group(2)}")
    assert not offenders, "Qt imported in explorer/core:\n" + "\n".join(offenders)
