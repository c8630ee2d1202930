"""What the generation panel says: the causal note, the equivalence, and the trap users meet."""
from PySide6.QtCore import QT_TRANSLATE_NOOP

CAUSAL_OFF_SUMMARY = QT_TRANSLATE_NOOP("Generation", "No causal mask here; the decode is causal anyway.")
CAUSAL_OFF = (QT_TRANSLATE_NOOP("Generation", "Decoding is causal by nature: a token is generated before the later ones exist. The decode here is "
              "computed causally, so it matches the main heatmaps only once the mask is on."))
EQUAL = (QT_TRANSLATE_NOOP("Generation", "<span style='color:#1a7f37'>✓</span> The decoded output rows stacked equal full {what}: "
         "largest difference {diff} — caching K and V changes the work, not the numbers."))
NOT_EQUAL = (QT_TRANSLATE_NOOP("Generation", "<span style='color:#b00020'>✗</span> The decoded rows differ from full {what} by up to "
             "{diff}."))
SDPA_TRAP_SUMMARY = QT_TRANSLATE_NOOP("Generation", "<b>A trap</b>: <code>is_causal=True</code> with a single decode query")
SDPA_TRAP = (QT_TRANSLATE_NOOP("Generation", "PyTorch's <code>scaled_dot_product_attention(q, k, v, is_causal=True)</code> aligns the mask to "
             "the top-left when q has fewer rows than k, so a single decode query (1 × t) sees only key 0. A decode "
             "step needs an explicit mask (or none: the newest query may see every cached key)."))
