"""PlotItem and AxisItem that draw as pyqtgraph's own but build less at start-up.

pyqtgraph's ``PlotItem.__init__`` always builds its "Plot Options" menu (~40 widgets, six sub-menus,
a WidgetGroup) and a title label: ~3 ms per plot. The plots show no menu and no title, so these are
made on first use (``ctrl``, ``ctrlMenu``, ``stateGroup``, ``titleLabel``: ``showGrid``,
``setLogMode``, ``saveState``, ``setTitle`` still work). An AxisItem redoes its label's HTML and size on every setter; here once per change.
tests/gui/test_lean_plot.py checks that layout, attributes and pixels match pyqtgraph's classes;
with a pyqtgraph newer than those checked (``LEAN`` False) pyqtgraph's own classes are used.
"""
from __future__ import annotations

import re
import weakref
from contextlib import contextmanager

import pyqtgraph as pg
from pyqtgraph import functions as fn
from pyqtgraph import icons
from pyqtgraph.graphicsItems.ButtonItem import ButtonItem
from pyqtgraph.graphicsItems.PlotItem.PlotItem import WidgetGroup, translate, ui_template
from PySide6 import QtGui, QtWidgets

_DEFERRED = frozenset({"ctrl", "ctrlMenu", "stateGroup"})  # the options menu's
_SIDES = ("top", "bottom", "left", "right")


class LeanAxisItem(pg.AxisItem):
    """An AxisItem whose label is laid out once where pyqtgraph does it on every pen, style, range
    and SI-prefix change: once at the end of ``__init__`` (not 7 times), once per ``held_labels``
    block, and its HTML is handed to Qt only when the text changed and the label is shown."""

    def __init__(self, orientation, *args, **kwargs):
        self.__dict__["_held"] = True  # AxisItem.__init__ updates the label 7 times: once is enough
        super().__init__(orientation, *args, **kwargs)
        self.__dict__["_held"] = False
        self._updateLabel()

    # pyqtgraph measures the tick texts only while painting, then widens the axis and lays the plot
    # out again: every plot's first paint was followed by a second layout and paint. Until its first
    # paint, the axis measures them when it is laid out or given ticks instead (issue 18, start-up).
    def resizeEvent(self, ev=None):
        super().resizeEvent(ev)
        self._measure_before_paint()

    def setTicks(self, ticks):
        super().setTicks(ticks)
        self._measure_before_paint()

    def _measure_before_paint(self):
        if "_painted" in self.__dict__ or not self._has_texts():
            return
        if self._tickLevels is not None:  # given ticks: their texts, not the axis's length, set the size
            measured = (self._tickLevels, tuple(self.range))
        else:  # ticks of its own: chosen for the range and the axis's length
            along = self.height() if self.orientation in ("left", "right") else self.width()
            measured = (None, (*self.range, along))
        last = self.__dict__.get("_measured")
        if last is not None and last[0] is measured[0] and last[1] == measured[1]:
            return
        self.__dict__["_measured"] = measured
        picture = QtGui.QPicture()  # the device paint() measures on
        painter = QtGui.QPainter(picture)
        try:
            if self.style["tickFont"]:
                painter.setFont(self.style["tickFont"])
            self.generateDrawSpecs(painter)  # ends by fitting the text space to the widest label
        finally:
            painter.end()

    def _has_texts(self):
        """Whether the axis shows tick labels now, and so has a text size worth measuring."""
        if not (self.style["autoExpandTextSpace"] and self.style["showValues"] and self.isVisible()):
            return False
        if self.width() <= 0 or self.height() <= 0:
            return False
        if self._tickLevels is not None:  # ticks given: only if one of them has a text
            return any(text for level in self._tickLevels for _, text in level)
        view = self.linkedView()
        return view is not None and view.width() > 0 and view.height() > 0

    def paint(self, p, opt, widget):
        self.__dict__["_painted"] = True
        super().paint(p, opt, widget)

    def _updateLabel(self):
        if self.__dict__.get("_held"):
            return
        if self.label.isVisible():  # a hidden label's HTML waits until it is shown (most are never)
            html = self.labelString()
            if html != self.__dict__.get("_label_html"):
                self.__dict__["_label_html"] = html
                self.label.setHtml(html)
        self._adjustSize()
        self.picture = None
        self.update()

    def showLabel(self, show=True):
        if show and not self.label.isVisible():
            self.label.setVisible(True)
            self._updateLabel()  # its text, before the axis sizes itself to it
        super().showLabel(show)


@contextmanager
def held_labels(axes):
    """Hold back the label updates of these LeanAxisItems while configuring them; one each at the end."""
    axes = [a for a in axes if isinstance(a, LeanAxisItem)]
    for axis in axes:
        axis.__dict__["_held"] = True
    try:
        yield
    finally:
        for axis in axes:
            axis.__dict__["_held"] = False
            axis._updateLabel()


class LeanPlotItem(pg.PlotItem):
    """``pg.PlotItem`` as its ``__init__`` makes it (ViewBox, LeanAxisItems, auto button, layout), the
    options menu and title label made on first use; ``enableMenu`` defaults to False (no ViewBox menu)."""

    def __init__(self, parent=None, axisItems=None, enableMenu: bool = False):
        # PlotItem.__init__ of pyqtgraph 0.13.7/0.14 without the menu and the title label.
        super(pg.PlotItem, self).__init__(parent)  # GraphicsWidget, skipping PlotItem.__init__
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Expanding)
        self.autoBtn = ButtonItem(icons.getGraphPixmap("auto"), 14, self)
        self.autoBtn.mode = "auto"
        self.autoBtn.clicked.connect(self.autoBtnClicked)
        self.buttonsHidden = False
        self.mouseHovering = False

        self.layout = QtWidgets.QGraphicsGridLayout()
        self.layout.setContentsMargins(1, 1, 1, 1)
        self.setLayout(self.layout)
        self.layout.setHorizontalSpacing(0)
        self.layout.setVerticalSpacing(0)

        self.vb = pg.ViewBox(parent=self, enableMenu=enableMenu)
        self.vb.sigStateChanged.connect(self.viewStateChanged)
        self.setMenuEnabled(enableMenu, None)
        self.vb.sigRangeChanged.connect(self.sigRangeChanged)
        self.vb.sigXRangeChanged.connect(self.sigXRangeChanged)
        self.vb.sigYRangeChanged.connect(self.sigYRangeChanged)
        if hasattr(pg.PlotItem, "sigRangeChangedManually"):  # pyqtgraph >= 0.14
            self.vb.sigRangeChangedManually.connect(self.sigRangeChangedManually)
        self.layout.addItem(self.vb, 2, 1)
        self.alpha = 1.0
        self.autoAlpha = True
        self.spectrumMode = False
        self.legend = None

        self.axes = {}
        given = dict(axisItems or {})
        self.setAxisItems({k: given.get(k) or LeanAxisItem(orientation=k, parent=self) for k in _SIDES})
        for k in ("top", "right"):  # what PlotItem shows by default: left, bottom and the axes given
            if k not in given:
                self.showAxis(k, False)

        self.layout.setRowFixedHeight(0, 0)  # setTitle(None): the title label is made by _title_label
        for i in range(4):
            self.layout.setRowPreferredHeight(i, 0)
            self.layout.setRowMinimumHeight(i, 0)
            self.layout.setRowSpacing(i, 0)
            self.layout.setRowStretchFactor(i, 1)
        for i in range(3):
            self.layout.setColumnPreferredWidth(i, 0)
            self.layout.setColumnMinimumWidth(i, 0)
            self.layout.setColumnSpacing(i, 0)
            self.layout.setColumnStretchFactor(i, 1)
        self.layout.setRowStretchFactor(2, 100)
        self.layout.setColumnStretchFactor(1, 100)

        self.items = []
        self.curves = []
        self.itemMeta = weakref.WeakKeyDictionary()
        self.dataItems = []
        self.paramList = {}
        self.avgCurves = {}
        self.avgPen = fn.mkPen((0, 200, 0))
        self.avgShadowPen = fn.mkPen((0, 0, 0), width=4)
        self.fileDialog = None

    def __getattr__(self, name):
        # Only reached for attributes not set yet: the deferred ones, on their first use.
        if name in _DEFERRED and "_options_built" not in self.__dict__:
            self._build_options()
            return getattr(self, name)
        if name == "titleLabel":
            return self._title_label()
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def close(self):
        """As ``PlotItem.close``, which unparents the options menu: an empty stand-in if it was never made."""
        if "_options_built" not in self.__dict__:
            self.__dict__["_options_built"] = True
            self.ctrlMenu = QtWidgets.QMenu()
        super().close()

    def _title_label(self):
        """The (hidden, empty) title label as ``PlotItem.__init__`` leaves it, made on first use."""
        label = self.titleLabel = pg.LabelItem("", size="11pt", parent=self)
        self.layout.addItem(label, 0, 1)
        label.setVisible(False)
        label.setMaximumHeight(0)
        return label

    def _build_options(self):
        """The "Plot Options" menu and its connections, as ``PlotItem.__init__`` makes them."""
        self.__dict__["_options_built"] = True
        w = QtWidgets.QWidget()
        self.ctrl = c = ui_template.Ui_Form()
        c.setupUi(w)
        menu_items = [
            (translate("PlotItem", "Transforms"), c.transformGroup),
            (translate("PlotItem", "Downsample"), c.decimateGroup),
            (translate("PlotItem", "Average"), c.averageGroup),
            (translate("PlotItem", "Alpha"), c.alphaGroup),
            (translate("PlotItem", "Grid"), c.gridGroup),
            (translate("PlotItem", "Points"), c.pointsGroup),
        ]
        self.ctrlMenu = QtWidgets.QMenu(translate("PlotItem", "Plot Options"))
        for name, grp in menu_items:
            sm = self.ctrlMenu.addMenu(name)
            act = QtWidgets.QWidgetAction(self)
            act.setDefaultWidget(grp)
            sm.addAction(act)
        self.stateGroup = WidgetGroup()
        for _, grp in menu_items:
            self.stateGroup.autoAdd(grp)

        c.alphaGroup.toggled.connect(self.updateAlpha)
        c.alphaSlider.valueChanged.connect(self.updateAlpha)
        c.autoAlphaCheck.toggled.connect(self.updateAlpha)
        c.xGridCheck.toggled.connect(self.updateGrid)
        c.yGridCheck.toggled.connect(self.updateGrid)
        c.gridAlphaSlider.valueChanged.connect(self.updateGrid)
        c.fftCheck.toggled.connect(self.updateSpectrumMode)
        if hasattr(pg.PlotItem, "updateSubtractMeanMode"):  # pyqtgraph >= 0.14
            c.subtractMeanCheck.toggled.connect(self.updateSubtractMeanMode)
        c.logXCheck.toggled.connect(self.updateLogMode)
        c.logYCheck.toggled.connect(self.updateLogMode)
        c.derivativeCheck.toggled.connect(self.updateDerivativeMode)
        c.phasemapCheck.toggled.connect(self.updatePhasemapMode)
        c.downsampleSpin.valueChanged.connect(self.updateDownsampling)
        c.downsampleCheck.toggled.connect(self.updateDownsampling)
        c.autoDownsampleCheck.toggled.connect(self.updateDownsampling)
        c.subsampleRadio.toggled.connect(self.updateDownsampling)
        c.meanRadio.toggled.connect(self.updateDownsampling)
        c.clipToViewCheck.toggled.connect(self.updateDownsampling)
        c.avgParamList.itemClicked.connect(self.avgParamListClicked)
        c.averageGroup.toggled.connect(self.avgToggled)
        c.maxTracesCheck.toggled.connect(self._handle_max_traces_toggle)
        c.forgetTracesCheck.toggled.connect(self.updateDecimation)
        c.maxTracesSpin.valueChanged.connect(self.updateDecimation)


def _checked(version: str) -> bool:
    """Whether the lean classes were checked against this pyqtgraph (they copy 0.13.7/0.14's internals)."""
    parts = tuple(int(p) for p in re.findall(r"\d+", version)[:3])
    return (0, 13, 7) <= parts[:3] and parts[:2] <= (0, 14)


LEAN = _checked(pg.__version__)
if not LEAN:  # a pyqtgraph whose internals may differ: its own classes, menus, label updates and all

    class LeanAxisItem(pg.AxisItem):  # noqa: F811 — the fallbacks replace the lean classes
        """``pg.AxisItem`` as it is (it measures its tick texts while painting)."""

    class LeanPlotItem(pg.PlotItem):  # noqa: F811
        """``pg.PlotItem`` with its ViewBox menu off by default, as the lean one."""

        def __init__(self, parent=None, axisItems=None, enableMenu: bool = False):
            super().__init__(parent, axisItems=axisItems, enableMenu=enableMenu)

    @contextmanager
    def held_labels(axes):  # noqa: F811
        """Nothing to hold back with pyqtgraph's own axes."""
        yield
