"""A file name to suggest for a session from what it is called ("layer 2 head 1 of tiny-induction"), so a
Save or an export offers the session's own name rather than "session.json"."""
import re
import unicodedata

MAX_STEM = 80  # characters: a long title is cut at a word where it can be
MAX_STEM_BYTES = 200  # and in UTF-8 bytes (file systems allow 255 for the whole name, suffix included)
_NOT_IN_NAMES = re.compile(r'[\\/:*?"<>|\x00-\x1f\x7f]+')  # what Windows, macOS or Linux refuse in a file name
_DEVICES = {"CON", "PRN", "AUX", "NUL", *(f"{kind}{n}" for kind in ("COM", "LPT") for n in range(1, 10))}  # Windows'


def file_stem(title, fallback):
    """``title`` made a file name without its suffix: characters file systems refuse become a space, runs of
    spaces one, no leading dot; cut to MAX_STEM characters (at a space when there is one in the last third) and
    MAX_STEM_BYTES bytes; a Windows device name ("CON") gets a "_"; ``fallback`` when nothing is left. Chinese
    and other letters stay."""
    text = unicodedata.normalize("NFC", str(title or ""))
    text = " ".join(_NOT_IN_NAMES.sub(" ", text).split()).lstrip(". ")
    if len(text) > MAX_STEM:
        cut = text.rfind(" ", 2 * MAX_STEM // 3, MAX_STEM + 1)
        text = text[:cut if cut > 0 else MAX_STEM].rstrip(" .")
    while len(text.encode("utf-8")) > MAX_STEM_BYTES:  # emoji and CJK take 3–4 bytes a character
        text = text[:-1]
    text = text.rstrip(" .") or fallback
    return text + "_" if text.split(".")[0].upper() in _DEVICES else text
