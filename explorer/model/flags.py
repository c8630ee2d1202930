"""What a change touched, passed with the model's ``changed`` so panels redraw only what they must."""
STRUCTURE, VALUES, SETTINGS, SELECTION, LESSON = 1, 2, 4, 8, 16
DECODE = 32  # a setting the results do not depend on (the decode step): no recompute
