"""The layer rules of ARCHITECTURE.md, as import-linter contracts in pyproject.toml: core imports no Qt,
widgets know nothing of the model or the panels, the model imports no views, panels import no sibling."""
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED_PANEL_HELPERS = {"base", "heatmap_panel", "head_style", "setting_controls", "change_views", "worker_answers"}  # used by several panels, so not independent


def lint_imports():
    """The ``lint-imports`` of this interpreter's environment (import-linter, in the ``test`` extra)."""
    beside = Path(sys.executable).with_name("lint-imports")
    found = str(beside) if beside.exists() else shutil.which("lint-imports")
    assert found, "import-linter is not installed: pip install -e '.[test]'"
    return found


def test_the_layer_contracts_are_kept():
    run = subprocess.run([lint_imports(), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"a layer contract is broken:\n{run.stdout}\n{run.stderr}"


def test_every_panel_of_the_window_is_in_the_independence_contract():
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]["contracts"]
    independent = next(c["modules"] for c in contracts if c["type"] == "independence")
    docked = re.findall(r'"(\w+)\.\w+Panel"', (ROOT / "explorer" / "main_window.py").read_text("utf-8"))
    assert sorted(independent) == sorted(f"explorer.panels.{m}" for m in set(docked))
    on_disk = {p.stem for p in (ROOT / "explorer" / "panels").iterdir()
               if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()}
    assert on_disk - SHARED_PANEL_HELPERS == set(docked)
