"""A scroll area's content as tall as it must be, not as tall as its word-wrapped labels would like."""
from PySide6.QtWidgets import QWidget


class SnugContent(QWidget):
    """Content for a resizable QScrollArea: with word-wrapped labels in it, the scroll area asks its
    ``heightForWidth``, which Qt answers from the preferred heights, so plots that could shrink to fit
    the area push the rest out of sight instead. This answers with the minimum for the width."""

    def heightForWidth(self, width):
        layout = self.layout()
        return layout.minimumHeightForWidth(width) if layout is not None else super().heightForWidth(width)
