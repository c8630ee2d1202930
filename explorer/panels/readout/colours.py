"""The Readout's colours: a colour per drawn key, grey for the keys that share one "others" bar."""
from explorer.widgets.palette import qualitative_colour

OTHERS_COLOR = "#BBBBBB"


def key_colour(slot):
    """Colour of the ``slot``-th drawn key: the palette, then darker variants of it."""
    return qualitative_colour(slot, 60)
