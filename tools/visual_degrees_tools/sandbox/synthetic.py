"""The default world: a small fictional film scene, generated from a seed and shipped as JSON lines.

Invented people (first and last names recombined, a few accented names, two mononyms and a pair of
namesakes), invented films, galas and festivals. Its shape follows the real cast files: a dozen
stars in many events, regulars in several, most people in one or two, all joined in one core, plus
two chains of small independent films that lead away from it (the long hops).

`python scripts/sandbox_default_world.py` rewrites data/default_world.jsonl; a test regenerates
it from DEFAULT_SEED and compares, so the file and the generator cannot drift apart.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from visual_degrees_tools.sandbox.hashing import below, shuffle

DEFAULT_SEED = 7
DATA_FILE = "default_world.jsonl"

# For the README's main command: two well-known people who never shared an event (two hops).
EXAMPLE_PAIR = ("Vesna Hawthorne", "Niall Halloran")
# Three hops apart, in the credits and in the photo web (checked for seed 0 by the tests).
FAR_PAIR = ("Orrin Calloway", "Niall Northcott")

_FIRST = (
    "Adela",
    "Bram",
    "Cosima",
    "Dorian",
    "Elowen",
    "Fenwick",
    "Greer",
    "Hollis",
    "Ilse",
    "Jasper",
    "Katrin",
    "Lucan",
    "Marisol",
    "Niall",
    "Odile",
    "Percival",
    "Quinn",
    "Rosalind",
    "Soren",
    "Tamsin",
    "Ulric",
    "Vesna",
    "Wendell",
    "Xanthe",
    "Yorick",
    "Zinnia",
    "Ansel",
    "Bettany",
    "Caspian",
    "Delphine",
    "Emrys",
    "Flavia",
    "Gideon",
    "Honora",
    "Isidore",
    "Juno",
    "Kit",
    "Linnea",
    "Magnus",
    "Nerys",
    "Orrin",
    "Petra",
    "Rafferty",
    "Saoirse",
    "Thaddeus",
    "Una",
    "Viggo",
    "Wren",
    "Ximena",
    "Yves",
    "Zelda",
    "Anouk",
    "Bastian",
    "Clio",
    "Dashiell",
    "Esme",
    "Florian",
    "Galen",
    "Hester",
    "Ivo",
)
_LAST = (
    "Ashgrove",
    "Blackwood",
    "Calloway",
    "Dunmere",
    "Everhart",
    "Fairweather",
    "Greythorne",
    "Halloran",
    "Ingleby",
    "Jessamine",
    "Kestrel",
    "Larkspur",
    "Merriweather",
    "Northcott",
    "Oakhurst",
    "Pemberton",
    "Quillfeather",
    "Ravensdale",
    "Silverton",
    "Thistlewood",
    "Underhill",
    "Vantongeren",
    "Wexford",
    "Yarrow",
    "Amberly",
    "Brightwater",
    "Coldharbour",
    "Driscoll",
    "Elsworth",
    "Foxglove",
    "Goodfellow",
    "Hawthorne",
    "Ivesdale",
    "Juniper",
    "Lockhart",
    "Marchbanks",
    "Nettleford",
    "Penhallow",
    "Quarrington",
    "Rookwood",
    "Sallow",
    "Tindall",
    "Umberfield",
    "Vellacott",
    "Winterbourne",
    "Yelverton",
    "Bellamy",
    "Corvino",
    "Farrow",
    "Galloway",
    "Hartigan",
    "Ostrander",
    "Pellingham",
    "Rusk",
    "Stavely",
    "Trevanion",
    "Wolstenholme",
    "Ashby-Crane",
    "Delacroix-Hale",
)
# World-file spellings that exercise accents, mononyms and namesakes.
_SPECIAL = (
    "Lévesque, Anaïs",
    "Ødegaard, Søren",
    "Muñoz-Arriaga, Inés",
    "Zephyrine",
    "Marlo",
    "Thistlewood, Iris (I)",
    "Thistlewood, Iris (II)",
)
_ADJECTIVES = (
    "Silver",
    "Glass",
    "Hollow",
    "Crimson",
    "Quiet",
    "Northern",
    "Velvet",
    "Paper",
    "Iron",
    "Golden",
    "Winter",
    "Sunken",
    "Distant",
    "Burning",
    "Painted",
    "Midnight",
    "Salt",
    "Amber",
    "Wild",
    "Borrowed",
    "Last",
    "Second",
    "Lost",
    "Long",
)
_NOUNS = (
    "Orchard",
    "Harbor",
    "Lantern",
    "Meridian",
    "Tide",
    "Comet",
    "Garden",
    "Cipher",
    "Citadel",
    "Ferry",
    "Atlas",
    "Requiem",
    "Carousel",
    "Lighthouse",
    "Mirage",
    "Falcon",
    "Archive",
    "Horizon",
    "Relay",
    "Sonata",
    "Summer",
    "Winter",
    "Alibi",
    "Verdict",
)
_PLACES = (
    "Port Ellery",
    "Calder Bay",
    "Westmarch",
    "Lake Orrin",
    "Ashford Springs",
    "Marrowgate",
    "Saint Aubin",
    "Kessel Point",
    "Halden",
    "Brightwater",
)

_STARS, _REGULARS, _MINORS, _CHAINS, _CHAIN_LENGTH = 12, 120, 380, 2, 5


def generate_events(seed: int = DEFAULT_SEED) -> list[tuple[str, list[str]]]:
    """The default world's events: (title, people in world-file spelling)."""
    rng = random.Random(seed)
    people = _people(rng, _STARS + _REGULARS + _MINORS + _CHAINS * _CHAIN_LENGTH - len(_SPECIAL))
    chained = _CHAINS * _CHAIN_LENGTH
    people[_STARS + 5 : _STARS + 5] = _SPECIAL[:3]  # accented regulars
    people[-chained:-chained] = _SPECIAL[3:]  # mononyms and namesakes among the minor people
    stars = people[:_STARS]
    regulars = people[_STARS : _STARS + _REGULARS]
    minors = people[_STARS + _REGULARS : -chained]
    chains = people[-chained:]
    titles = _Titles(rng)
    unused_minors = list(minors)
    shuffle(rng, unused_minors)

    def cast(n_stars: int, n_regulars: int, n_minors: int) -> list[str]:
        chosen = _zipf_pick(rng, stars, n_stars, 0.9) + _zipf_pick(rng, regulars, n_regulars, 0.7)
        for _ in range(n_minors):  # everyone gets a first event before anyone gets a second
            chosen.append(unused_minors.pop() if unused_minors else minors[below(rng, len(minors))])
        return list(dict.fromkeys(chosen))

    events: list[tuple[str, list[str]]] = []
    for _ in range(160):
        events.append((titles.film(), cast(int(rng.random() < 0.6), 2 + below(rng, 3), 1 + below(rng, 4))))
    for _ in range(35):
        events.append((titles.gala(), cast(2 + below(rng, 3), 2 + below(rng, 3), below(rng, 2))))
    for _ in range(25):
        events.append((titles.festival(), cast(below(rng, 2), 1 + below(rng, 3), 2 + below(rng, 4))))
    for c in range(_CHAINS):  # a chain of two-hander indies leading away from the core
        link = minors[below(rng, len(minors))]
        for person in chains[c * _CHAIN_LENGTH : (c + 1) * _CHAIN_LENGTH]:
            events.append((titles.film(), [link, person]))
            link = person
    order = list(range(len(events)))
    shuffle(rng, order)
    return [events[i] for i in order]


def world_text(seed: int = DEFAULT_SEED) -> str:
    return "".join(
        json.dumps({"title": title, "people": people}, ensure_ascii=False) + "\n"
        for title, people in generate_events(seed)
    )


def default_world_path() -> Path:
    """The shipped default world file (inside the installed package)."""
    return Path(str(resources.files("visual_degrees_tools.sandbox").joinpath("data", DATA_FILE)))


def write_default_world(path: Path | None = None, seed: int = DEFAULT_SEED) -> Path:
    target = path or default_world_path()
    target.write_text(world_text(seed), encoding="utf-8")
    return target


def _people(rng: random.Random, count: int) -> list[str]:
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < count:
        raw = f"{_LAST[below(rng, len(_LAST))]}, {_FIRST[below(rng, len(_FIRST))]}"
        if raw not in seen:
            seen.add(raw)
            names.append(raw)
    return names


def _zipf_pick(rng: random.Random, pool: list[str], count: int, exponent: float) -> list[str]:
    """`count` distinct people, the first of `pool` far more often than the last."""
    weights = [1.0 / (i + 1) ** exponent for i in range(len(pool))]
    chosen: list[str] = []
    while len(chosen) < min(count, len(pool)):
        u = rng.random() * sum(weights)
        pick = len(pool) - 1
        for i, weight in enumerate(weights):
            u -= weight
            if u < 0:
                pick = i
                break
        if pool[pick] not in chosen:
            chosen.append(pool[pick])
    return chosen


class _Titles:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def _unique(self, make: Callable[[], str]) -> str:
        while True:
            title = make()
            if title not in self.used:
                self.used.add(title)
                return title

    def _pick(self, words: tuple[str, ...] | list[str]) -> str:
        return words[below(self.rng, len(words))]

    def _year(self) -> int:
        return 1994 + below(self.rng, 30)

    def film(self) -> str:
        forms = (
            lambda: f"The {self._pick(_ADJECTIVES)} {self._pick(_NOUNS)} ({self._year()})",
            lambda: f"{self._pick(_NOUNS)} of {self._pick(_PLACES)} ({self._year()})",
            lambda: f"{self._pick(_ADJECTIVES)} {self._pick(_NOUNS)} ({self._year()})",
        )
        return self._unique(lambda: forms[below(self.rng, len(forms))]())

    def gala(self) -> str:
        forms = (
            lambda: f"{self._pick(_PLACES)} Arts Gala {self._year()}",
            lambda: f"{self._pick(_ADJECTIVES)} {self._pick(_NOUNS)} Awards {self._year()}",
            lambda: f"{self._pick(_PLACES)} Film Society Benefit {self._year()}",
        )
        return self._unique(lambda: forms[below(self.rng, len(forms))]())

    def festival(self) -> str:
        return self._unique(lambda: f"{self._pick(_PLACES)} Film Festival {self._year()}")
