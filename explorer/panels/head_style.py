"""How each head's scale is written, shared by the Heads, Split-and-merge and Scores panels
(the heads' colours are ``explorer.widgets.palette.head_colour``)."""
from explorer.widgets.number_text import format_number


def scale_symbol(settings, results):
    """The scale as the formula writes it: "1/√3", "1", or the custom number."""
    return {"inv_sqrt_d": f"1/√{results.d_head}", "none": "1"}.get(settings.scale_mode, format_number(results.scale))


def scale_text(settings, results):
    """How each head's scores are scaled, in the chapter's words: "1/√2 = 0.707", "none (× 1)", …"""
    dh = results.d_head
    if settings.scale_mode == "inv_sqrt_d":
        text = f"1/√{dh} = {format_number(results.scale)}" if dh != 1 else "1/√1 = 1"
    elif settings.scale_mode == "none":
        text = "none (× 1)"
    else:
        text = f"{format_number(results.scale)} (custom)"
    if results.temperature != 1:
        text += f", ÷ T = {format_number(results.temperature)}"
    return text
