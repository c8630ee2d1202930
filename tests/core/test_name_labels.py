"""Names beside points, placed apart (explorer.core.name_labels), no Qt. Every box below is worked out by hand
from the places a name may take with gap = 9 and a 30 × 14 name at point (x, y), y pointing down:
right (x+9, y−7, x+39, y+7), a little up (x+7, y−12, x+37, y+2), a little down (x+7, y−2, x+37, y+12),
above (x−15, y−21, x+15, y−7), below (x−15, y+7, x+15, y+21), left (x−39, y−7, x−9, y+7), …; above and below
keep max(gap − 2, h / 2) = 7 px from the point, clear of the names level with it."""
from explorer.core.name_labels import place_names

SIZE = (30, 14)


def test_a_name_with_room_goes_on_its_side():
    # a query named on its right, a key 5 px right of it named on its left: both where they belong
    boxes = place_names([(100, 100), (105, 100)], [SIZE, SIZE], ["right", "left"])
    assert boxes == [(109, 93, 139, 107), (105 - 39, 93, 105 - 9, 107)]


def test_a_name_that_would_overprint_moves_below():
    # two queries 4 px apart: the second's right-hand places all cover the first name (300, 364, 140 px²); above
    # covers 24 px² of it and 36 of the first dot; below covers nothing
    dots = [(94, 94, 106, 106), (94, 98, 106, 110)]
    boxes = place_names([(100, 100), (100, 104)], [SIZE, SIZE], ["right", "right"], dots=dots)
    assert boxes == [(109, 93, 139, 107), (85, 111, 115, 125)]


def test_names_of_one_place_take_the_four_sides_then_are_left_off():
    # six names of points on one place: right, above, below and left touch without overlapping; a fifth would
    # cover at least 292 px² of those (far over a tenth of its 420), so it and the sixth are left off
    boxes = place_names([(100, 100)] * 6, [SIZE] * 6, ["right"] * 6, dots=[(94, 94, 106, 106)])
    assert boxes == [(109, 93, 139, 107), (85, 79, 115, 93), (85, 107, 115, 121), (61, 93, 91, 107), None, None]


def test_a_line_under_the_name_or_the_edge_of_the_plot_moves_it():
    # a line from the point to the right runs 30 px through each right-hand place: above is free
    line = [(100, 100, 200, 100)]
    assert place_names([(100, 100)], [SIZE], ["right"], lines=line) == [(85, 79, 115, 93)]
    # the plot ends at x = 120: the right-hand places stick out of it, above does not
    assert place_names([(100, 100)], [SIZE], ["right"], bounds=(0, 0, 120, 200)) == [(85, 79, 115, 93)]


def test_a_taller_name_above_stays_clear_of_one_level_with_the_point():
    # 20 × 16 names: level with the point they span y ± 8, so above ends at y − 8 (not y − 7): (90, 76, 110, 92)
    boxes = place_names([(100, 100)] * 2, [(20, 16)] * 2, ["right", "right"], dots=[(94, 94, 106, 106)])
    assert boxes == [(109, 92, 129, 108), (90, 76, 110, 92)]
