"""A file name to suggest for a session from what it is called ("layer 2 head 1 of tiny-induction"), so a
Save or an export offers the session's own name rather than "session.json"."""
import re
import unicodedata

MAX_STEM = 80  # characters: a long title is cut at a word where it can be
_NOT_IN_NAMES = re.compile(r'[\\/:*?"<>|\x00-\x1f\x7f]+')  # what Windows, macOS or Linux refuse in a file name


def file_stem(title, fallback):
    """``title`` made a file name without its suffix: characters file systems refuse become a space, runs of
    spaces one, no leading dot; cut to MAX_STEM characters (at a space when there is one in the last third);
    ``fallback`` when nothing is left. Chinese and other letters stay."""
    text = unicodedata.normalize("NFC", str(title or ""))
    text = " ".join(_NOT_IN_NAMES.sub(" ", text).split()).lstrip(". ")
    if len(text) > MAX_STEM:
        cut = text.rfind(" ", 2 * MAX_STEM // 3, MAX_STEM + 1)
        text = text[:cut if cut > 0 else MAX_STEM].rstrip(" .")
    return text.rstrip(" .") or fallback
