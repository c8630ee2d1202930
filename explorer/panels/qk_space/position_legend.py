"""The colour of a token's position in the corpus view: a colour-blind-safe ramp, and its legend."""
import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QLinearGradient, QPainter, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget

from explorer.i18n import translate

RAMP = (0.0, 0.9)  # the part of viridis used: its palest yellow is hard to see on white
BAR_W, BAR_H = 120, 10


def position_colours(positions, last):
    """A QColor for each position 0 … ``last``: dark violet first, green-yellow last."""
    cmap = pg.colormap.get("viridis")
    t = np.asarray(positions, float) / max(int(last), 1)
    return cmap.mapToQColor(RAMP[0] + (RAMP[1] - RAMP[0]) * np.clip(t, 0.0, 1.0))


class PositionLegend(QWidget):
    """"position 0 ▬▬▬ N": what the points' colours mean while they are coloured by position."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.last = 1
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.retranslate()

    def retranslate(self):
        self.setToolTip(translate("QKSpace", "Each point's colour is its token's position in its sentence (0 is the "
                                             "first token)"))
        self.updateGeometry()
        self.update()

    def set_last(self, last):
        self.last = max(int(last), 1)
        self.updateGeometry()
        self.update()

    def _texts(self):
        return translate("QKSpace", "position 0"), str(self.last)

    def sizeHint(self):
        fm = self.fontMetrics()
        left, right = self._texts()
        return QSize(fm.horizontalAdvance(left) + BAR_W + fm.horizontalAdvance(right) + 16, fm.height() + 4)

    def minimumSizeHint(self):
        return self.sizeHint()

    def paintEvent(self, event):
        p = QPainter(self)
        fm = self.fontMetrics()
        left, right = self._texts()
        h = self.height()
        p.setPen(self.palette().color(QPalette.ColorRole.WindowText))
        x = 0
        p.drawText(QRectF(x, 0, fm.horizontalAdvance(left) + 2, h), Qt.AlignmentFlag.AlignVCenter, left)
        x += fm.horizontalAdvance(left) + 6
        bar = QRectF(x, (h - BAR_H) / 2, BAR_W, BAR_H)
        gradient = QLinearGradient(bar.topLeft(), bar.topRight())
        for stop, colour in zip(np.linspace(0, 1, 6), position_colours(np.linspace(0, 1, 6), 1)):
            gradient.setColorAt(float(stop), colour)
        p.fillRect(bar, gradient)
        x += BAR_W + 6
        p.drawText(QRectF(x, 0, fm.horizontalAdvance(right) + 2, h), Qt.AlignmentFlag.AlignVCenter, right)
        p.end()
