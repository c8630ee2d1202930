"""tokenizer.json read with Hugging Face's ``tokenizers``, and tokens turned into labels a person can read.

Byte-level tokenizers (GPT-2, Llama 3, Qwen2) write bytes as stand-in characters (a space is "Ġ", a
newline "Ċ", 猫 is "çĮ«"); SentencePiece-style ones write a space as "▁". A label decodes them (bytes
of a character split between tokens as "\\xe7"), and shows whitespace as marks: space "·", newline "↵", tab "⇥".
"""
from __future__ import annotations

import re
from pathlib import Path

from explorer.core.errors import CheckpointError
from explorer.core.translatable import QT_TRANSLATE_NOOP
from explorer.core.session import MAX_TOKEN_CHARS

TOKENIZER = "tokenizer.json"
MARKS = {" ": "·", "\n": "↵", "\t": "⇥", "\r": "␍", "▁": "·"}
_INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _byte_chars() -> dict[str, int]:
    """GPT-2's bytes_to_unicode, inverted: stand-in character → the byte it stands for."""
    kept = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), 256))
    chars, extra = {}, 0
    for b in range(256):
        if b in kept:
            chars[chr(b)] = b
        else:
            chars[chr(256 + extra)] = b
            extra += 1
    return chars


BYTE_CHARS = _byte_chars()


def load_tokenizer(folder: Path):
    """The folder's tokenizer.json as a ``tokenizers.Tokenizer``, or CheckpointError naming the file."""
    from tokenizers import Tokenizer
    path = folder / TOKENIZER
    if not path.is_file():
        raise CheckpointError(QT_TRANSLATE_NOOP("Checkpoint", "{folder}: no {tokenizer} (only fast tokenizers' "
                                                "tokenizer.json is read)").format(folder=folder, tokenizer=TOKENIZER))
    try:
        return Tokenizer.from_file(str(path))
    except Exception as exc:  # the package raises plain Exception for malformed files
        raise CheckpointError(f"{TOKENIZER}: not a valid tokenizer file ({str(exc)[:160]})") from None


def is_byte_level(tokenizer) -> bool:
    return "ByteLevel" in repr(tokenizer.pre_tokenizer) or "ByteLevel" in repr(tokenizer.decoder)


def label(token: str, byte_level: bool) -> str:
    """A token as a session may hold and a person may read: bytes decoded, whitespace marked, at most
    MAX_TOKEN_CHARS characters, never empty."""
    text = token
    if byte_level and all(c in BYTE_CHARS for c in token):
        # a piece of a character shows as its bytes: "Ġçº¢è" → "·红\\xe8"
        text = bytes(BYTE_CHARS[c] for c in token).decode("utf-8", errors="backslashreplace")
    text = "".join(MARKS.get(c, c) for c in text)
    text = _INVISIBLE.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return (text[:MAX_TOKEN_CHARS - 1] + "…" if len(text) > MAX_TOKEN_CHARS else text) or "∅"
