"""The look: a font that has CJK glyphs, a calm palette, readable dock titles."""
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QPalette
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleFactory

from explorer.widgets.palette import BAND

CJK_FAMILIES = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Microsoft YaHei", "PingFang SC",
                "WenQuanYi Micro Hei")

TITLE_BACKGROUND = BAND
TITLE_MARGIN = 4  # above and below the title text
TITLE_INDENT = 12  # from the dock's left edge to the title text
STATUS_TEXT = "#333"
# the framed buttons (explorer/widgets/framed_button.py): frame at rest, frame and fill on hover, fill when pressed or checked
BUTTON_BORDER, BUTTON_ACTIVE, BUTTON_HOVER, BUTTON_CHECKED = "#c4ccd8", "#7f9cc4", "#eef3fa", "#dce6f4"


def apply_style(app):
    """Prefer a UI font that renders Chinese tokens; fall back to the system font otherwise.

    No application style sheet: it sends every widget's sizing and painting through
    QStyleSheetStyle (~40 ms of start-up); the docks and the status bar are styled directly.
    """
    families = set(QFontDatabase.families())
    for family in CJK_FAMILIES:
        if family in families:
            font = QFont(family)
            font.setPointSizeF(max(app.font().pointSizeF(), 9.5))
            app.setFont(font)
            break


class DockTitleStyle(QProxyStyle):
    """The application's style, but dock titles on a light band with room around the text.

    Set on the QDockWidgets alone (``QWidget.setStyle`` does not pass to children), so the
    Python overrides run for the dock frames only, never for the widgets inside the panels.
    """

    def drawControl(self, element, option, painter, widget=None):
        if element != QStyle.ControlElement.CE_DockWidgetTitle:
            super().drawControl(element, option, painter, widget)
            return
        painter.save()
        painter.fillRect(option.rect, QColor(TITLE_BACKGROUND))
        rect = self.subElementRect(QStyle.SubElement.SE_DockWidgetTitleBarText, option, widget)
        rect.setLeft(option.rect.left() + TITLE_INDENT)
        text = painter.fontMetrics().elidedText(option.title, Qt.TextElideMode.ElideRight, rect.width())
        align = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextHideMnemonic
        enabled = bool(option.state & QStyle.StateFlag.State_Enabled)
        self.drawItemText(painter, rect, align, option.palette, enabled, text, QPalette.ColorRole.WindowText)
        painter.restore()

    def pixelMetric(self, metric, option=None, widget=None):
        if metric == QStyle.PixelMetric.PM_DockWidgetTitleMargin:
            return TITLE_MARGIN
        return super().pixelMetric(metric, option, widget)


def dock_style():
    """The one DockTitleStyle of the application (made on first use, owned by the QApplication)."""
    app = QApplication.instance()
    style = getattr(app, "_dock_title_style", None)
    if style is None:
        style = DockTitleStyle(QStyleFactory.create(app.style().name()))
        style.setParent(app)
        app._dock_title_style = style
    return style


def style_dock(dock):
    """The dock's title band (see DockTitleStyle), given when the dock is first on screen.

    Qt asks a dock's style for its title margin and frame ~400 times while the window is built and
    laid out, into Python for a DockTitleStyle (~6 500 calls at start-up, ~17 ms of CPU). A dock behind
    a tab shows no title bar, so the nine docks behind tabs keep the application's style (asked in C++)
    until they are first shown; the window looks the same pixel for pixel. A dock styled while on
    screen is laid out again at once, before its panel is built (at the title's final height).
    """
    if not dock.testAttribute(Qt.WidgetAttribute.WA_SetStyle):
        dock.setStyle(dock_style())
        dock.layout().invalidate()
        dock.layout().activate()


def style_status_bar(bar):
    """Status messages in a soft dark grey."""
    palette = bar.palette()
    palette.setColor(QPalette.ColorRole.WindowText, QColor(STATUS_TEXT))
    bar.setPalette(palette)
