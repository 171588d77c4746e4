"""Deterministic randomness: every simulated decision is a pure function of a seed and a name.

Python's `hash()` is salted per process and `random`'s helpers may change between versions, so the
sandbox uses its own mixing: blake2b for strings, splitmix64 for integers, and only
`random.Random.random()` (whose sequence Python guarantees) where a stream of numbers is needed.
"""

from __future__ import annotations

import hashlib
import random
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_TWO_64 = float(1 << 64)


def stable_hash(*parts: object) -> int:
    """A 64-bit hash of the parts' text, the same in every process and Python version."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")


def mix(x: int) -> int:
    """splitmix64's finaliser: a fast, well-spread 64-bit hash of an integer."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def combine(h: int, value: int) -> int:
    return mix(h ^ ((value * 0xD6E8FEB86659FD93) & _MASK))


def unit(h: int) -> float:
    """A 64-bit hash as a float in [0, 1)."""
    return h / _TWO_64


def uniform(*parts: object) -> float:
    return unit(stable_hash(*parts))


def rng_for(*parts: object) -> random.Random:
    return random.Random(stable_hash(*parts))


def below(rng: random.Random, n: int) -> int:
    """An integer in [0, n) using only `random()`, whose sequence Python keeps stable."""
    return min(n - 1, int(rng.random() * n))


def shuffle(rng: random.Random, items: list[T]) -> None:
    """Fisher-Yates with `random()` only (random.shuffle's internals are not guaranteed)."""
    for i in range(len(items) - 1, 0, -1):
        j = below(rng, i + 1)
        items[i], items[j] = items[j], items[i]
