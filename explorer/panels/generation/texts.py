"""What the generation panel says: the causal note, the equivalence, and the trap users meet."""
CAUSAL_OFF = ("This session has no causal mask, but decoding is causal by nature: a token is generated "
              "before the later ones exist. The decode below is computed causally.")
EQUAL = ("<span style='color:#1a7f37'>✓</span> The decoded output rows stacked equal full {what}: "
         "largest difference {diff} — caching K and V changes the work, not the numbers.")
NOT_EQUAL = ("<span style='color:#b00020'>✗</span> The decoded rows differ from full {what} by up to "
             "{diff}.")
TOO_LARGE = ("The equivalence with full causal attention is checked live up to L = {limit}; this session is "
             "larger (the tests check it at every size).")
SDPA_TRAP = ("<b>A trap</b>: PyTorch's <code>scaled_dot_product_attention(q, k, v, is_causal=True)</code> "
             "aligns the mask to the top-left when q has fewer rows than k, so a single decode query "
             "(1 × t) sees only key 0. A decode step needs an explicit mask (or none: the newest query may "
             "see every cached key).")
