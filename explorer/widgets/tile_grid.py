"""Tiles that rearrange with the width their panel has: side by side in a wide dock, fewer to a row (at
last one under another) in a narrow one. The panel says where each tile goes from which width on, and
calls ``fit(width)`` from its ``resizeEvent``."""
from PySide6.QtWidgets import QGridLayout


class TileGrid(QGridLayout):
    """A grid of ``tiles`` laid out by ``arrangements``: ``(least width, places, row stretches)`` from the
    widest down (the last one's least width is 0). ``places`` gives each tile its (row, column[, rows,
    columns]); a column with a tile stretches, the others do not. It starts in the widest arrangement."""

    def __init__(self, tiles, arrangements, spacing):
        super().__init__()
        self.setContentsMargins(0, 0, 0, 0)
        self.setSpacing(spacing)
        self.tiles, self.arrangements = tuple(tiles), tuple(arrangements)
        self.columns = 0  # of the arrangement in place
        self._current = None
        self._rows = max(len(stretches) for _, _, stretches in self.arrangements)
        self._columns = max(_columns(places) for _, places, _ in self.arrangements)
        self._place(self.arrangements[0])

    def fit(self, width):
        """Rearrange the tiles for a panel ``width`` px wide; True when that changed the arrangement."""
        arrangement = next(a for a in self.arrangements if width >= a[0])
        if arrangement is self._current:
            return False
        self._place(arrangement)
        return True

    def _place(self, arrangement):
        _, places, stretches = arrangement
        self._current, self.columns = arrangement, _columns(places)
        for tile in self.tiles:
            self.removeWidget(tile)
        for tile, place in zip(self.tiles, places):
            self.addWidget(tile, *place)
        for c in range(self._columns):
            self.setColumnStretch(c, 1 if c < self.columns else 0)
        for r in range(self._rows):
            self.setRowStretch(r, stretches[r] if r < len(stretches) else 0)


def _columns(places):
    """How many columns the places use."""
    return max(place[1] + (place[3] if len(place) > 3 else 1) for place in places)
