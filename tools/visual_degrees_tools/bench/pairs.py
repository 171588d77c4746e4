"""Benchmark pairs: read from a JSON-lines file or sampled from a world, resolved to the people meant.

How a name is resolved (namesakes are distinct people with one display name):
- written as the world file writes it (`Bacon, Kevin (I)`), it means exactly that person: one
  celebrity id; a sampled pair is always written this way;
- written as a display name (`Kevin Bacon`), it means anyone of that name: every namesake's id.
The run itself is only ever given the display name (that is all a user can type); the truth check
then accepts a path only if its first and last faces are people the pair meant (truth.py).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from visual_degrees.domain.errors import InvalidInput, UnknownPerson
from visual_degrees.domain.names import name_key, validate_name
from visual_degrees_tools.sandbox import PhotoWeb

MAX_PAIRS_FILE_BYTES = 10 * 1024 * 1024


@dataclass(frozen=True)
class Person:
    given: str  # as written in the pairs file or the world
    name: str  # display name: what the run is asked about
    ids: frozenset[str]  # celebrity ids the name may mean
    indices: tuple[int, ...]  # the same people as world indices (ground truth lookups)


@dataclass(frozen=True)
class BenchPair:
    a: Person
    b: Person

    @property
    def label(self) -> str:
        return f"{self.a.name} — {self.b.name}"


def resolve(web: PhotoWeb, given: str) -> Person:
    """The person (or namesakes) `given` means in `web`'s world; UnknownPerson if nobody."""
    world = web.world
    name = validate_name(given)
    exact = world.by_raw.get(" ".join(given.split()))
    indices = (exact,) if exact is not None else tuple(world.find(given))
    if not indices:
        close = world.suggest(given)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise UnknownPerson(f"{given[:200]!r} is not anyone in this world{hint}")
    return Person(
        given=given,
        name=name,
        ids=frozenset(world.celebrity_id(i) for i in indices),
        indices=indices,
    )


def pair_of(web: PhotoWeb, a: str, b: str) -> BenchPair:
    pa, pb = resolve(web, a), resolve(web, b)
    if name_key(pa.name) == name_key(pb.name):
        raise InvalidInput(f"{a!r} and {b!r} share one display name; a run could not tell them apart")
    return BenchPair(pa, pb)


def load_pairs(path: Path, web: PhotoWeb) -> list[BenchPair]:
    """JSON lines {"a": ..., "b": ...}; InvalidInput names the file and line of any problem."""
    try:
        if path.stat().st_size > MAX_PAIRS_FILE_BYTES:
            raise InvalidInput(f"{path}: larger than {MAX_PAIRS_FILE_BYTES // (1024 * 1024)} MB")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidInput(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InvalidInput(f"{path}: is a directory, not a pairs file") from None
    except UnicodeDecodeError:
        raise InvalidInput(f"{path}: not UTF-8 text") from None
    pairs: list[BenchPair] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}, line {lineno}"
        try:
            raw: Any = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{where}: malformed JSON ({exc.msg})") from None
        if (
            not isinstance(raw, dict)
            or not isinstance(raw.get("a"), str)
            or not isinstance(raw.get("b"), str)
        ):
            raise InvalidInput(f'{where}: expected {{"a": "name", "b": "name"}}')
        try:
            pairs.append(pair_of(web, raw["a"], raw["b"]))
        except InvalidInput as exc:
            raise InvalidInput(f"{where}: {exc.message}") from None
    if not pairs:
        raise InvalidInput(f"{path}: no pairs")
    return pairs


def sample_pairs(web: PhotoWeb, count: int, seed: int) -> list[BenchPair]:
    """`count` distinct pairs drawn uniformly from the largest connected group of the world's
    co-appearance graph (people linked by sharing an event), each written in world spelling.
    Pairs whose two people share a display name are redrawn (a run could not tell them apart)."""
    if count < 1:
        raise InvalidInput("--sample must be at least 1")
    world = web.world
    group = world.largest_component()
    if len(group) < 2:
        raise InvalidInput("the world's largest connected group has fewer than two people")
    namesakes = Counter(world.keys[p] for p in group)
    possible = len(group) * (len(group) - 1) // 2 - sum(n * (n - 1) // 2 for n in namesakes.values())
    if count > possible:
        raise InvalidInput(f"--sample {count}: the largest group has only {possible} pairs")
    rng = random.Random(seed)
    seen: set[tuple[int, int]] = set()
    pairs: list[BenchPair] = []
    attempts = 0
    while len(pairs) < count:
        attempts += 1
        if attempts > 100 * count + 1000:
            raise InvalidInput(f"could not draw {count} distinct pairs of distinct names")
        x, y = rng.sample(group, 2)
        if (x, y) in seen or (y, x) in seen or world.keys[x] == world.keys[y]:
            continue
        seen.add((x, y))
        pairs.append(pair_of(web, world.raws[x], world.raws[y]))
    return pairs


def famous_pairs(web: PhotoWeb, count: int, seed: int) -> list[tuple[str, str]]:
    """`count` pairs of display names drawn among the world's 2 x `count` most credited people (the
    names users ask about most), each name once, none two people share."""
    world = web.world
    ranked = sorted(range(world.size), key=lambda p: (-world.fame[p], p))
    names: list[str] = []
    for person in ranked:
        name = world.name(person)
        if name not in names:
            names.append(name)
        if len(names) == 2 * count:
            break
    if len(names) < 2 * count:
        raise InvalidInput(f"the world has fewer than {2 * count} people to draw {count} pairs from")
    random.Random(seed).shuffle(names)
    return list(zip(names[:count], names[count:], strict=True))
