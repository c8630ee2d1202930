"""The look: a font that has CJK glyphs, a calm palette, readable dock titles."""
from PySide6.QtGui import QFont, QFontDatabase

CJK_FAMILIES = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Microsoft YaHei", "PingFang SC",
                "WenQuanYi Micro Hei")

STYLE_SHEET = """
QDockWidget::title { padding: 4px 8px; background: #eef1f5; font-weight: 600; }
QStatusBar { color: #333; }
"""


def apply_style(app):
    """Prefer a UI font that renders Chinese tokens; fall back to the system font otherwise."""
    families = set(QFontDatabase.families())
    for family in CJK_FAMILIES:
        if family in families:
            font = QFont(family)
            font.setPointSizeF(max(app.font().pointSizeF(), 9.5))
            app.setFont(font)
            break
    app.setStyleSheet(STYLE_SHEET)
