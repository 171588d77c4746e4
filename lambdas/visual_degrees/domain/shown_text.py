"""Text from outside that we show users (a planner's narration, hunches and films; names read from
image titles): plain words, never a way to reach someone elsewhere.

A crafted image title can put any words before the planner, and the planner may repeat them; so text
shown must hold no link a reader could follow or dial. Refused, whatever their case and however their
dots are written (NFKC first, then every dot a browser reads as one: `．` `。` `｡` `︒`):
- a URL scheme (`https://`, `ftp:/`) or `www.`;
- a host name: a letter or digit, a dot, then a label that could end a host (two or more letters, an
  IDN label like `рф` or `中国`, or punycode `xn--…`): `evil.ru/chain`, `bit.ly/3xYz`, `t.me/x`,
  `evil.co.uk`; a name like "will.i.am" reads as one too; and an IPv4 address;
- a phone number: seven or more digits with only spaces, dots, dashes or brackets between them (film
  years in brackets and year ranges are not phone numbers: "1917 (2019)", "1995-2001").
Names and titles keep their dots where no host can hide: "J.J. Abrams", "Robert Downey Jr.",
"Dr. Dre", "E.T. the Extra-Terrestrial (1982)".

Every pattern here is linear in the text: no two ways to match one character (possessive loops where
a character could start either part).
"""

from __future__ import annotations

import re
import unicodedata

# Dots a browser (UTS #46) takes for a label separator, after NFKC (which maps `．` to `.` and `｡`,
# `︒` to `。`); the others are kept in case the text skipped NFKC.
_DOTS = str.maketrans(dict.fromkeys("\u3002\uff0e\uff61\ufe12\ufe52\u2024", "."))
_SCHEME = re.compile(r"(?<![a-z0-9+.\-])[a-z][a-z0-9+.\-]*+:/|\bwww\.")
_HOST = re.compile(r"[^\W_]\.(?:xn--|[^\W\d_]{2,}+(?![\w\-]))|(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?![\d.])")
# Film years, "(1995)" or "(1978 I)", and year ranges, "1995-2001", "1995–98": numbers, not phones.
_YEARS = re.compile(r"\((?:1[89]|20)\d\d[^()]{0,8}\)|\b(?:1[89]|20)\d\d ?[-–] ?(?:(?:1[89]|20)\d\d|\d\d)\b")
_PHONE = re.compile(r"\d(?:[\s().\-]{0,3}+\d){6}")
_INVISIBLE = frozenset({"Cc", "Cf", "Co", "Cs", "Zl", "Zp"})  # controls, format (bidi), private, lines
_MARKUP = frozenset("<>")


def normalised(text: str) -> str:
    """NFKC, with every dot a browser would read as one written `.`."""
    return unicodedata.normalize("NFKC", text).translate(_DOTS)


def link_in(text: str) -> str | None:
    """What kind of link `text` holds ("a web address", "a phone number"), or None."""
    plain = normalised(text).casefold()
    if _SCHEME.search(plain) or _HOST.search(plain):
        return "a web address"
    if _PHONE.search(_YEARS.sub(" ", plain)):
        return "a phone number"
    return None


def shown_text(text: object, limit: int) -> str | None:
    """`text` as it may be shown to a user (NFKC, trimmed): printable, no control, bidi or markup
    characters, no link, at most `limit` characters; else None."""
    if not isinstance(text, str) or len(text) > limit:
        return None
    plain = normalised(text).strip()
    if len(plain) > limit or any(ch in _MARKUP or unicodedata.category(ch) in _INVISIBLE for ch in plain):
        return None
    return None if link_in(plain) else plain
