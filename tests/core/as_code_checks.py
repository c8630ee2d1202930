"""Running an exported script (F20) as a user would — ``python script.py results.npz`` in a fresh process — and
comparing what it saved with ``run_pipeline``. The script is an independent implementation written from the
chapter's definitions (it never imports the explorer), so the agreement means something."""
import ast
import subprocess
import sys

import numpy as np

from explorer.core.as_code import write_script
from explorer.core.pipeline import run_pipeline

# The modules an exported script may import: the standard library's few and NumPy, never the explorer
ALLOWED_IMPORTS = {"argparse", "math", "unicodedata", "pathlib", "numpy"}


def imported_modules(text):
    """Every module the script's text imports (top-level names)."""
    names = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add((node.module or "").split(".")[0])
    return names


def run_script(script, results, cwd):
    """Run the script in a fresh interpreter that ignores PYTHONPATH and the user's site (-I): what it needs
    beyond Python is NumPy only. Returns the completed process (its output is text)."""
    return subprocess.run([sys.executable, "-I", str(script), str(results)], cwd=cwd, capture_output=True,
                          text=True, encoding="utf-8", timeout=120)


def close(got, want, what):
    """Equal to 1e-12 of the matrix's own size (at least 1): the same numbers, computed in another order."""
    want = np.asarray(want)
    atol = 1e-12 * max(1.0, float(np.abs(want).max()) if want.size else 1.0)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=atol, err_msg=what)


def exported_results(session, folder, name="attention.py"):
    """Write the script for ``session`` into ``folder``, run it, and return (what it saved, its run, the
    ExportedScript)."""
    script, results = folder / name, folder / "results.npz"
    exported = write_script(session, script)
    assert imported_modules(exported.text) <= ALLOWED_IMPORTS
    run = run_script(script, results, folder)
    assert run.returncode == 0, run.stderr
    with np.load(results, allow_pickle=False) as saved:
        return {key: saved[key] for key in saved.files}, run, exported


def assert_reproduces(session, folder, name="attention.py"):
    """The script's S, A, O, concat, output and Q, K, V as used equal the pipeline's to 1e-12; its tokens are
    the session's. Returns the script's run."""
    saved, run, exported = exported_results(session, folder, name)
    r = run_pipeline(session.matrices, session.settings)
    for key, want in (("S", r.heads.scores), ("A", r.heads.weights), ("O", r.heads.head_outputs),
                      ("concat", r.heads.concat), ("output", r.heads.output), ("Q", r.q), ("K", r.k), ("V", r.v)):
        assert saved[key].shape == want.shape, (key, saved[key].shape, want.shape)
        close(saved[key], want, key)
    assert tuple(saved["tokens"].tolist()) == session.tokens
    assert tuple(saved["query_tokens"].tolist()) == (session.query_tokens or session.tokens)
    return run, exported
