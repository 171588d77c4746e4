"""Words in messages people read: counted nouns (`1 hop`, `2 hops`, `3 people`), and a budget by
what it counts rather than by its field name (`llmCalls` -> `LLM calls`)."""

from __future__ import annotations


def plural(count: int | float, one: str, many: str | None = None) -> str:
    """`count` with the noun it counts: plural(1, "hop") -> "1 hop"; plural(3, "person", "people")."""
    noun = one if count == 1 else (many if many is not None else one + "s")
    return f"{count} {noun}"


BUDGET_WORDS = {
    "searches": "searches",
    "recognitions": "recognitions",
    "llmCalls": "LLM calls",
    "runtime": "time",
}


def budget_words(name: object) -> str:
    """What a budget counts, in words: budget_words("llmCalls") -> "LLM calls"."""
    return BUDGET_WORDS.get(str(name), str(name))


# What every answer says a link is, and is not (`final.caveat`, the CLI, the page).
PHOTO_CAVEAT = "A photo shows two people in the same place, not a relationship."
# A link whose photo's caption or page title names no event (domain/photo_event.py) says so.
NO_EVENT = "not named by the photo's caption or page"
