"""Person names: validation, display form and the normalised key used to match faces to people.

World files write people as `Last, First (I)`; users type `First Last`; a recogniser answers with
its own spelling. All three meet at `name_key`.
"""

from __future__ import annotations

import re
import unicodedata

from visual_degrees.domain.errors import InvalidInput

MAX_NAME_LENGTH = 200

# IMDb-style disambiguation suffix: "Bacon, Kevin (I)", "Jones, Shirley (IV)".
_ROMAN_SUFFIX = re.compile(r"\s*\((?:[IVXLCDM]+)\)\s*$")
_SPACES = re.compile(r"\s+")
_NOT_WORD = re.compile(r"[^\w]+")
# Format characters that can disguise a name: bidi overrides and isolates.
_BIDI_CONTROLS = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def display_name(raw: str) -> str:
    """`Last, First (I)` -> `First Last`; `Carey Jr., Harry` -> `Harry Carey Jr.`; mononyms unchanged."""
    name = _SPACES.sub(" ", raw).strip()
    name = _ROMAN_SUFFIX.sub("", name)
    if "," in name:
        last, _, first = name.partition(",")
        name = f"{first.strip()} {last.strip()}" if first.strip() else last.strip()
    return name


def name_key(raw: str) -> str:
    """Normalised identity key: display form, accents stripped, case-folded, punctuation dropped."""
    shown = display_name(raw)
    if shown.isascii():  # nine in ten names: no Unicode work needed (world loading is hot)
        lowered = shown.lower().replace("'", "")
        if lowered.replace(" ", "").isalnum():
            return " ".join(lowered.split())
        return " ".join(_NOT_WORD.sub(" ", lowered).split())
    decomposed = unicodedata.normalize("NFKD", shown)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    words = _NOT_WORD.sub(" ", stripped.casefold().replace("'", "").replace("’", ""))
    return _SPACES.sub(" ", words).strip()


def validate_name(raw: object, *, field: str = "name") -> str:
    """Return the display name, or raise InvalidInput naming exactly what is wrong."""
    if not isinstance(raw, str):
        raise InvalidInput(f"{field} must be a string")
    if len(raw) > MAX_NAME_LENGTH:
        raise InvalidInput(f"{field} is {len(raw)} characters long; the limit is {MAX_NAME_LENGTH}")
    for ch in raw:
        if unicodedata.category(ch) == "Cc" or ch in _BIDI_CONTROLS:
            raise InvalidInput(f"{field} contains a control character (U+{ord(ch):04X})")
    if not raw.strip():
        raise InvalidInput(f"{field} is empty")
    name = display_name(raw)
    if not name_key(name):
        raise InvalidInput(f"{field} {name!r} has no letters or digits")
    return name
