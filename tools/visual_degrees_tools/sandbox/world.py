"""Worlds: who appeared in which event, loaded from a cast file or JSON lines.

Two formats, told apart by the first non-blank line:
- `Title (Year)/Last, First/Last, First (I)/...`: one event a line, the title then every person
  (the algs4 / IMDb cast files of ../shared/data/worlds/);
- JSON lines: `{"title": "...", "people": ["...", ...]}`.

A person is identified by the name exactly as the file writes it (whitespace tidied), so two
namesakes (`Jones, Tom (I)`, `Jones, Tom (II)`) are two people with one display name, as in reality.
A line repeated, a title repeated (merged) and a person repeated within a line are tolerated.
Anything else wrong gets a WorldFileError naming the file and the line.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from visual_degrees.domain.errors import WorldFileError
from visual_degrees.domain.names import MAX_NAME_LENGTH, display_name, name_key
from visual_degrees_tools.sandbox.bulk import collector_paused
from visual_degrees_tools.sandbox.suggest import NameIndex

# Control characters (tab included) and bidi overrides/isolates: never part of a name or a title.
_FORBIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_ID_BYTES = 8  # 64 bits: a collision among 115k people has odds below one in a billion
# An example pair is two people two shared events apart, linked through events this small first (a
# small cast makes photos that show both, and captions that name both), then larger ones.
_EXAMPLE_CAST_SIZES = (8, 16, 32, None)
_EXAMPLE_CANDIDATES = 3  # the most famous people tried as the pair's first person


@dataclass(frozen=True, slots=True)
class PersonRecord:
    index: int
    raw: str  # as the world file writes it
    name: str  # display name: `Last, First (I)` -> `First Last`
    key: str  # normalised identity key (domain/names.py)
    celebrity_id: str  # what the simulated recogniser reports, stable per person
    events: int  # how many events they appear in: the sandbox's proxy for fame


@dataclass(frozen=True, slots=True)
class Event:
    index: int
    title: str
    people: tuple[int, ...]


class _JsonEvent(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    title: str
    people: list[str]

    @field_validator("title")
    @classmethod
    def _title_present(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("people")
    @classmethod
    def _someone(cls, value: list[str]) -> list[str]:
        if not value:
            raise ValueError("must name at least one person")
        return value


class World:
    """Events and people, indexed both ways. Built by `load_world` or `World.from_events`."""

    def __init__(
        self,
        source: str,
        titles: list[str],
        members: list[tuple[int, ...]],
        raws: list[str],
        first_lines: list[int] | None = None,
        by_raw: dict[str, int] | None = None,
    ) -> None:
        self.source = source
        self.titles = titles
        self.members = members
        self.raws = raws
        self.keys = [name_key(raw) for raw in raws]
        if first_lines is not None:
            for index, key in enumerate(self.keys):
                if not key:
                    raise WorldFileError(
                        f"{source}, line {first_lines[index]}: {raws[index]!r} has no letters or digits"
                    )
        self._names: list[str | None] = [None] * len(raws)
        counts = Counter(chain.from_iterable(members))
        self.fame = [counts[person] for person in range(len(raws))]
        self.by_raw = by_raw if by_raw is not None else {raw: index for index, raw in enumerate(raws)}
        self.by_key: dict[str, list[int]] = {}
        for index, key in enumerate(self.keys):
            self.by_key.setdefault(key, []).append(index)
        self._ids: list[str | None] = [None] * len(raws)
        self._by_id: dict[str, int] | None = None
        self._lazy = threading.Lock()  # the server's threads may ask for the name index at once
        self._name_index: NameIndex | None = None
        self._example: tuple[str, str] | bool | None = False  # False: not computed yet

    # ---- construction ------------------------------------------------------------------------

    @classmethod
    def from_events(cls, events: Iterable[tuple[str, Sequence[str]]], source: str = "<memory>") -> World:
        """A world from (title, people) pairs, with the loader's tolerance and checks."""
        builder = _Builder(source)
        for lineno, (title, people) in enumerate(events, 1):
            builder.add(lineno, title, people)
        return builder.build()

    @cached_property
    def fingerprint(self) -> str:
        """A digest of the world's content (events and who is in them), whatever file it came from:
        two files with the same content are one world; any change makes another."""
        digest = hashlib.blake2b(digest_size=12)
        digest.update("\x1e".join(self.titles).encode("utf-8"))
        digest.update(b"\x1d")
        digest.update("\x1e".join(self.raws).encode("utf-8"))
        for people in self.members:
            digest.update(array("I", people).tobytes())
            digest.update(b"\x1d")
        return digest.hexdigest()

    # ---- people --------------------------------------------------------------------------------

    @cached_property
    def person_events(self) -> list[list[int]]:
        """The events each person appears in."""
        events: list[list[int]] = [[] for _ in self.raws]
        for event, people in enumerate(self.members):
            for person in people:
                events[person].append(event)
        return events

    @property
    def size(self) -> int:
        return len(self.raws)

    def name(self, person: int) -> str:
        cached = self._names[person]
        if cached is None:
            cached = self._names[person] = display_name(self.raws[person])
        return cached

    def celebrity_id(self, person: int) -> str:
        cached = self._ids[person]
        if cached is None:
            cached = self._ids[person] = celebrity_id_of(self.raws[person])
        return cached

    def by_celebrity_id(self, celebrity_id: str) -> int | None:
        if self._by_id is None:
            self._by_id = {self.celebrity_id(p): p for p in range(self.size)}
        return self._by_id.get(celebrity_id)

    def person(self, person: int) -> PersonRecord:
        return PersonRecord(
            index=person,
            raw=self.raws[person],
            name=self.name(person),
            key=self.keys[person],
            celebrity_id=self.celebrity_id(person),
            events=self.fame[person],
        )

    def find(self, name: str) -> list[int]:
        """People a name may mean: the exact world spelling first, else everyone with its key
        (namesakes), most appearances first."""
        tidy = _tidy(name)
        exact = self.by_raw.get(tidy)
        if exact is not None:
            return [exact]
        found = self.by_key.get(name_key(tidy), [])
        return sorted(found, key=lambda p: (-self.fame[p], p))

    def name_index(self) -> NameIndex:
        """Everyone's names, indexed for suggestions (built on first use, once)."""
        with self._lazy:
            if self._name_index is None:
                self._name_index = NameIndex(self.keys, self.fame, self.name)
            return self._name_index

    def suggest(self, name: str, limit: int = 3) -> list[str]:
        """Display names a user who typed `name`, nobody's name here, may have meant (none if nobody
        is close)."""
        return self.name_index().did_you_mean(name, limit)

    def example_pair(self) -> tuple[str, str] | None:
        """Two people of this world worth trying first, as display names: a famous person and
        someone two shared events away, through small events if there are any (so photos show both
        and captions name both). Deterministic; None for a world without two such people."""
        with self._lazy:
            if self._example is False:
                self._example = self._find_example()
            return self._example if isinstance(self._example, tuple) else None

    def _find_example(self) -> tuple[str, str] | None:
        famous = sorted(range(self.size), key=lambda p: (-self.fame[p], p))[:_EXAMPLE_CANDIDATES]
        for largest in _EXAMPLE_CAST_SIZES:
            for first in famous:
                second = self._two_events_away(first, largest)
                if second is not None:
                    return self.name(first), self.name(second)
        return None

    def _two_events_away(self, person: int, largest: int | None) -> int | None:
        """Who is two shared events away from `person` through the most people (events of at most
        `largest` people), the most famous among equals; None if nobody."""
        events, members = self.person_events, self.members
        near = {other for event in events[person] for other in members[event]}
        bridges: Counter[int] = Counter()
        small = [e for e in events[person] if largest is None or len(members[e]) <= largest]
        shared = set(events[person])  # everyone in them is near already: never read them again
        for middle in {other for event in small for other in members[event]} - {person}:
            onward = {
                other
                for event in events[middle]
                if event not in shared and (largest is None or len(members[event]) <= largest)
                for other in members[event]
            }
            bridges.update(onward - near)
        if not bridges:
            return None
        return min(bridges, key=lambda p: (-bridges[p], -self.fame[p], p))

    # ---- events -------------------------------------------------------------------------------

    def event(self, index: int) -> Event:
        return Event(index=index, title=self.titles[index], people=self.members[index])

    @property
    def events(self) -> list[Event]:
        return [self.event(i) for i in range(len(self.titles))]

    # ---- the raw co-appearance graph (people linked by sharing an event) ----------------------

    def components(self) -> list[list[int]]:
        """Connected groups of people, largest first (union-find over events)."""
        parent = list(range(self.size))

        def root(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for people in self.members:
            first = root(people[0])
            for other in people[1:]:
                r = root(other)
                if r != first:
                    parent[r] = first
        groups: dict[int, list[int]] = {}
        for person in range(self.size):
            groups.setdefault(root(person), []).append(person)
        return sorted(groups.values(), key=lambda g: (-len(g), g[0]))

    def largest_component(self) -> list[int]:
        return self.components()[0]

    def coappearance_distance(self, a: int, b: int, limit: int | None = None) -> int | None:
        """Fewest shared events linking a to b (breadth-first over people and events), or None."""
        if a == b:
            return 0
        seen_people = {a}
        seen_events: set[int] = set()
        frontier = [a]
        depth = 0
        while frontier and (limit is None or depth < limit):
            depth += 1
            nxt: list[int] = []
            for person in frontier:
                for event in self.person_events[person]:
                    if event in seen_events:
                        continue
                    seen_events.add(event)
                    for other in self.members[event]:
                        if other == b:
                            return depth
                        if other not in seen_people:
                            seen_people.add(other)
                            nxt.append(other)
            frontier = nxt
        return None


def load_world(path: str | Path) -> World:
    """Load a world file (either format); WorldFileError names the file and line of any problem."""
    path = Path(path)
    label = str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise WorldFileError(f"{label}: no such file") from None
    except IsADirectoryError:
        raise WorldFileError(f"{label}: is a directory, not a world file") from None
    except OSError as exc:
        raise WorldFileError(f"{label}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise WorldFileError(f"{label}, line {line}: not UTF-8 text (byte {exc.start})") from None
    with collector_paused():
        return parse_world(text, label)


def parse_world(text: str, source: str = "<memory>") -> World:
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    bad = _FORBIDDEN.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        raise WorldFileError(f"{source}, line {line}: control character U+{ord(bad.group()):04X}")
    first = next((line.lstrip() for line in text.split("\n", 50) if line.strip()), "")
    builder = _Builder(source)
    if first.startswith("{"):
        _parse_json_lines(text, builder)
    else:
        _parse_cast_lines(text, builder)
    return builder.build()


def _parse_cast_lines(text: str, builder: _Builder) -> None:
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line or line.isspace():
            continue
        parts = line.split("/")
        if len(parts) < 2:
            raise WorldFileError(
                f"{builder.source}, line {lineno}: expected 'Title (Year)/Last, First/...' "
                "(a title and at least one person, separated by '/')"
            )
        builder.add(lineno, parts[0], parts[1:])


def _parse_json_lines(text: str, builder: _Builder) -> None:
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line or line.isspace():
            continue
        where = f"{builder.source}, line {lineno}"
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise WorldFileError(f"{where}: malformed JSON ({exc.msg} at column {exc.colno})") from None
        except RecursionError:
            raise WorldFileError(f"{where}: malformed JSON (nested too deep)") from None
        if not isinstance(raw, dict):
            raise WorldFileError(f'{where}: expected an object {{"title": ..., "people": [...]}}')
        try:
            item = _JsonEvent.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(part) for part in err["loc"])
            raise WorldFileError(f"{where}: {field}: {err['msg']}") from None
        builder.add(lineno, item.title, item.people)


def _tidy(name: str) -> str:
    name = name.strip()
    return " ".join(name.split()) if "  " in name else name


class _Builder:
    def __init__(self, source: str) -> None:
        self.source = source
        self.titles: list[str] = []
        self.members: list[list[int]] = []
        self.by_title: dict[str, int] = {}
        self.by_raw: dict[str, int] = {}
        self.raws: list[str] = []
        self.first_lines: list[int] = []

    def add(self, lineno: int, title: str, people: Sequence[str]) -> None:
        title = _tidy(title)
        if not title:
            raise WorldFileError(f"{self.source}, line {lineno}: the title is empty")
        event = self.by_title.get(title)
        if event is None:  # a repeated title (or a duplicated line) merges into the first
            event = self.by_title[title] = len(self.titles)
            self.titles.append(title)
            self.members.append([])
        cast = self.members[event]
        by_raw = self.by_raw
        for position, name in enumerate(people, 2):
            person = by_raw.get(name)  # most names arrive tidy: one lookup
            if person is not None:
                cast.append(person)
                continue
            raw = _tidy(name)
            person = by_raw.get(raw)
            if person is None:
                if not raw:
                    raise WorldFileError(f"{self.source}, line {lineno}: field {position} is an empty name")
                if len(raw) > MAX_NAME_LENGTH:
                    raise WorldFileError(
                        f"{self.source}, line {lineno}: field {position} is {len(raw)} characters long; "
                        f"the limit is {MAX_NAME_LENGTH}"
                    )
                person = by_raw[raw] = len(self.raws)
                self.raws.append(raw)
                self.first_lines.append(lineno)
            cast.append(person)

    def build(self) -> World:
        if not self.titles:
            raise WorldFileError(f"{self.source}: no events (the world is empty)")
        # dict.fromkeys drops a person repeated within an event and keeps the first order.
        members = [tuple(dict.fromkeys(cast)) for cast in self.members]
        return World(self.source, self.titles, members, self.raws, self.first_lines, self.by_raw)


def celebrity_id_of(raw: str) -> str:
    """'vd-' + a short hash of the world spelling: stable for a person whatever else is loaded."""
    return "vd-" + hashlib.blake2b(raw.encode("utf-8"), digest_size=_ID_BYTES).hexdigest()
