"""The Query–key space panel's corpus view: what to draw of the sentences placed for a real head (points and
their colours, the names beside them, the words for the point under the pointer). Nothing here computes."""
import numpy as np
import pyqtgraph as pg

from explorer.core.plural import count
from explorer.core.qk_space import top_keys, top_queries
from explorer.i18n import translate
from explorer.widgets.number_text import format_weight

from .plane import K_COLOR, Q_COLOR
from .position_legend import position_colours
from .sentences_box import BY_POSITION

SENTENCE_CHARS = 60  # a sentence named in a hover is cut to this many characters


def brushes(placed, colour_by):
    """(query brushes, key brushes), one per point, by position; (None, None) for the query and key colours."""
    if colour_by != BY_POSITION:
        return None, None
    p = placed.plane
    last = int(max(p.query_position.max(), p.key_position.max()))
    ramp = [pg.mkBrush(c) for c in position_colours(np.arange(last + 1), last)]
    return [ramp[i] for i in p.query_position], [ramp[i] for i in p.key_position]


def last_position(placed):
    p = placed.plane
    return int(max(p.query_position.max(), p.key_position.max()))


def whose(placed, side, i):
    """(sentence, position, token label) of point ``i`` of ``side`` ("query" | "key"), counted from 0."""
    p = placed.plane
    s, pos = ((p.query_sentence[i], p.query_position[i]) if side == "query" else
              (p.key_sentence[i], p.key_position[i]))
    return int(s), int(pos), placed.head.labels[s][pos]


def partners(placed, side, i, k):
    """The point's ``k`` strongest partners in its own sentence (the head's weights there): (indices of the other
    side's points, weights)."""
    s, pos, _ = whose(placed, side, i)
    w = placed.head.weights[s]
    if side == "query":
        found, ws = top_keys(w, pos, k)
        return np.array([placed.plane.key_index(s, j) for j in found], int), ws
    found, ws = top_queries(w, pos, k)
    return np.array([placed.plane.query_index(s, j) for j in found], int), ws


def describe(placed, side, i, found, ws):
    """"query cat — sentence 2, position 2 (“the cat sat…”) looks for → sat 0.71 · …": what the hover says."""
    s, pos, name = whose(placed, side, i)
    sentence = placed.head.sentences[s]
    if len(sentence) > SENTENCE_CHARS:
        sentence = sentence[:SENTENCE_CHARS - 1] + "…"
    where = translate("QKSpace", "{side} {name} — sentence {sentence}, position {position} (“{text}”)").format(
        side=translate("QKSpace", side), name=name, sentence=s + 1, position=pos, text=sentence)
    other = "key" if side == "query" else "query"
    listed = " · ".join(f"{whose(placed, other, j)[2]} {format_weight(w)}" for j, w in zip(found, ws))
    if not len(found):
        return where
    return (translate("QKSpace", "{where} looks for → {listed}") if side == "query" else
            translate("QKSpace", "{where} is found by ← {listed}")).format(where=where, listed=listed)


def labels(placed, side, i, found):
    """The names to draw: the point in focus and its partners (every point's would cover the plane)."""
    other = "key" if side == "query" else "query"
    pts = {"query": placed.plane.plane.queries, "key": placed.plane.plane.keys}
    colour = {"query": Q_COLOR, "key": K_COLOR}
    return [(*pts[sd][j], whose(placed, sd, j)[2], colour[sd], sd)
            for sd, js in ((side, [i]), (other, list(found))) for j in js]


def note(placed):
    """(the line under the plot, its tooltip) for the sentences placed."""
    h, p = placed.head, placed.plane
    n = len(p.plane.queries) + len(p.plane.keys)
    short = translate("QKSpace", "Layer {layer} head {head} of {model}, as trained, on {sentences}: {points}, the "
                                 "plane keeps {kept} of their variance. Hover a point for its sentence and its "
                                 "strongest partners there.").format(
        layer=h.layer + 1, head=h.head + 1, model=placed.model_name, sentences=count(len(h.sentences), "sentence"),
        n_sentences=len(h.sentences), points=count(n, "point"), n_points=n, kept=f"{p.plane.kept:.0%}")
    long = translate("QKSpace", "AttentionViz's view of a head (Yeh et al. 2023): every sentence runs through the "
                                "model on its own; the head's queries and keys of all of them are scaled (one s) and "
                                "the keys moved (one c) as for one sentence, which leaves every weight in every "
                                "sentence as it is, then projected together (PCA). A query only ever weighs keys of "
                                "its own sentence; the lines join it to those. Edits of the session do not enter: the "
                                "model runs as trained.")
    return short, long
