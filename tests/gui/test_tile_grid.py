"""TileGrid: the tiles go where the arrangement for the panel's width puts them, and only the columns
and rows that arrangement uses stretch."""
from PySide6.QtWidgets import QLabel, QWidget

from explorer.widgets.tile_grid import TileGrid


def grid_of(qtbot):
    host = QWidget()
    qtbot.addWidget(host)
    tiles = [QLabel(name, host) for name in "abcd"]
    grid = TileGrid(tiles, (
        (900, ((0, 0), (0, 1), (0, 2), (1, 0, 1, 3)), (4, 1)),
        (560, ((0, 0), (0, 1), (1, 0), (1, 1)), (3, 2)),
        (0, ((0, 0), (1, 0), (2, 0), (3, 0)), (1, 1, 1))), spacing=6)
    host.setLayout(grid)
    return host, grid, tiles


def places(grid, tiles):
    return [grid.getItemPosition(grid.indexOf(tile)) for tile in tiles]


def stretches(grid):
    return [grid.columnStretch(c) for c in range(3)], [grid.rowStretch(r) for r in range(4)]


def test_it_starts_in_the_widest_arrangement(qtbot):
    host, grid, tiles = grid_of(qtbot)  # (host keeps the grid)
    assert grid.columns == 3 and grid.spacing() == 6
    assert places(grid, tiles) == [(0, 0, 1, 1), (0, 1, 1, 1), (0, 2, 1, 1), (1, 0, 1, 3)]
    assert stretches(grid) == ([1, 1, 1], [4, 1, 0, 0])


def test_the_width_chooses_the_arrangement_and_only_a_change_moves_tiles(qtbot):
    host, grid, tiles = grid_of(qtbot)  # (host keeps the grid)
    assert not grid.fit(1200)  # already the widest
    assert grid.fit(899)
    assert grid.columns == 2
    assert places(grid, tiles) == [(0, 0, 1, 1), (0, 1, 1, 1), (1, 0, 1, 1), (1, 1, 1, 1)]
    assert stretches(grid) == ([1, 1, 0], [3, 2, 0, 0])
    assert not grid.fit(560)  # 560 is still the two-column arrangement's
    assert grid.fit(559)
    assert places(grid, tiles) == [(0, 0, 1, 1), (1, 0, 1, 1), (2, 0, 1, 1), (3, 0, 1, 1)]
    assert stretches(grid) == ([1, 0, 0], [1, 1, 1, 0])
    assert grid.fit(900) and grid.columns == 3
    assert stretches(grid) == ([1, 1, 1], [4, 1, 0, 0])
