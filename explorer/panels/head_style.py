"""How each head's scale is written, shared by the Heads, Split-and-merge and Scores panels
(the heads' colours are ``explorer.widgets.palette.head_colour``). Written from the settings and the
head width, with the core's own ``scale_for``: a heading can follow a change before its results come."""
from explorer.i18n import translate
from explorer.core.pipeline import scale_for
from explorer.widgets.number_text import format_number


def head_width(model):
    """d_h of the state (its results may still be on their way): Q's width over the heads."""
    return model.widths()[0] // model.settings.heads


def scale_symbol(settings, d_head):
    """The scale as the formula writes it: "1/√3", "1", or the custom number."""
    return {"inv_sqrt_d": f"1/√{d_head}", "none": "1"}.get(settings.scale_mode,
                                                          format_number(scale_for(settings, d_head)))


def scale_text(settings, d_head):
    """How each head's scores are scaled, in the chapter's words: "1/√2 = 0.707", "none (× 1)", …"""
    scale = scale_for(settings, d_head)
    if settings.scale_mode == "inv_sqrt_d":
        text = f"1/√{d_head} = {format_number(scale)}" if d_head != 1 else "1/√1 = 1"
    elif settings.scale_mode == "none":
        text = translate("Heads", "none (× 1)")
    else:
        text = translate("Heads", "{scale} (custom)").format(scale=format_number(scale))
    if settings.temperature != 1:
        text += f", ÷ T = {format_number(settings.temperature)}"
    return text
