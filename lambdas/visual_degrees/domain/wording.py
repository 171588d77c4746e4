"""Counted nouns in messages people read: `1 hop`, `2 hops`, `1 person`, `3 people`."""

from __future__ import annotations


def plural(count: int | float, one: str, many: str | None = None) -> str:
    """`count` with the noun it counts: plural(1, "hop") -> "1 hop"; plural(3, "person", "people")."""
    noun = one if count == 1 else (many if many is not None else one + "s")
    return f"{count} {noun}"
