"""With a pyqtgraph newer than the one lean_plot copies, the heatmap falls back to pyqtgraph's own
PlotItem and AxisItem and still draws (in a fresh process: the choice is made at import)."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CODE = """
import pyqtgraph as pg
pg.__version__ = "0.99.0"
from PySide6.QtWidgets import QApplication
app = QApplication([])
import explorer.widgets.lean_plot as lean_plot
from explorer.widgets.heatmap import Heatmap
import numpy as np
assert not lean_plot.LEAN
hm = Heatmap()
hm.resize(300, 300)
hm.set_matrix(np.eye(3), row_labels=list("abc"), col_labels=list("abc"), levels=(0.0, 1.0))
hm.show(); app.processEvents()
assert hm.colorbar.levels() == (0.0, 1.0) and not hm.grab().isNull()
assert "_updateLabel" not in lean_plot.LeanAxisItem.__dict__  # pyqtgraph's own label updates
assert isinstance(hm.plot.getAxis("left"), pg.AxisItem) and type(hm.plot).__mro__[1] is pg.PlotItem
hm.close(); del hm
print("fallback ok")
"""


def test_an_unchecked_pyqtgraph_gets_its_own_plot_classes():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", CODE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "fallback ok" in proc.stdout
