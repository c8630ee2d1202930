"""Building one panel on its own for a test: a model, the panel shown at a size, results computed."""
from PySide6.QtWidgets import QApplication

from explorer.core.presets import demo_session
from explorer.model import AttentionModel


def show_panel(qtbot, panel_class, session=None, size=(800, 500), heads=None):
    """``(model, panel)``: the panel over a fresh model (the demo by default), shown and up to date."""
    model = AttentionModel(session if session is not None else demo_session())
    if heads is not None:
        model.set_param("heads", heads)
    panel = panel_class(model)
    qtbot.addWidget(panel)
    panel.resize(*size)
    panel.show()
    qtbot.waitExposed(panel)
    model.flush()
    QApplication.processEvents()  # let the layout settle (e.g. a wrapped caption) before reading positions
    return model, panel


def show_dock(qtbot, window, name):
    """Bring the window's dock ``name`` to the front and return its panel, built and drawn."""
    window.docks[name].show()
    window.docks[name].raise_()
    qtbot.waitUntil(lambda: window.panels.is_built(name), timeout=5000)
    panel = window.panels[name]
    panel.refresh()
    return panel
