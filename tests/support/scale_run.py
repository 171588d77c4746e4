"""A generated run at the size a full budget produces (126 people, 265 proven links), as the event
stream a server would send, for driving the web page at scale without a world file.

It is a meet-in-the-middle run: searches around A and around B (each five photos of two to five
people), a few more around the people they found, then the photos that join the two sides. Photos
show up in every shape the page must accept: one `evidence` event per pair (the shape servers send
today, so a four-person photo arrives six times), one event per photo with `people` and `links`,
and a photo announced in part and completed by a later event. Some proven links reach the page only
through the final `graph`, as links recorded from photos beyond the searched people do. `status`
events carry `usage` (except a few, as older servers send them); `path_update` events name the chain
from either side, some with their `edges`. Everything is derived from `seed`.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from dataclasses import dataclass, field
from typing import Any

from visual_degrees.domain.names import name_key
from visual_degrees.domain.photo_event import photo_event

PHOTO_HOST = "https://sandbox.visual-degrees.invalid/photos/"
HOSTILE_NAME = "<img src=x onerror=window.__pwned=1> Quill"
LONG_NAME = "Maximiliana Featherstonehaugh-Worthington"

# Plain names for everyone else (a list literal would take a line each).
_FIRST = (  # noqa: SIM905
    "Ada Bram Cora Dario Elin Fenna Gus Hale Ines Jory Kasia Lior Mira Nico Odile Pavel Quinn Rhea "
    "Silas Tova Ugo Vera Wes Xenia Yusuf Zora Arlo Bettina Cyrus Delphine Emrys Flora"
).split()
_LAST = (  # noqa: SIM905
    "Ashdown Birchall Calder Dunmore Everly Falkner Gresham Holloway Ingram Jessop Kestrel Lowther "
    "Marchetti Norberg Oakhurst Pemberton Quarry Rooksby Stavros Thackeray Umber Vance Whitlow Yardley"
).split()
_EVENTS = (
    "the Harbour Lights premiere",
    "the Northfield Film Gala",
    "the Saltmarsh Awards",
    "a charity dinner in Brightwater",
    "the Old Quay festival",
    "the Lindqvist retrospective",
)


@dataclass
class ScaleRun:
    person_a: str
    person_b: str
    path: list[str]  # the final chain, A … B
    names: dict[str, str]  # key -> display name
    links: set[str]  # every proven pair ("a|b", sorted keys) the final graph carries
    photos: dict[str, dict[str, float]]  # image URL -> everyone proven in it (key -> confidence), if carded
    events: list[dict[str, Any]] = field(default_factory=list)  # {"type", "data"}, in order

    @property
    def near_a(self) -> set[str]:
        return self._near(name_key(self.person_a))

    @property
    def near_b(self) -> set[str]:
        return self._near(name_key(self.person_b))

    def _near(self, key: str) -> set[str]:
        return {other for link in self.links for other in _ends(link) if key in _ends(link) and other != key}

    def usages(self) -> list[dict[str, Any]]:
        return [e["data"]["usage"] for e in self.events if "usage" in e["data"]]


def _ends(link: str) -> tuple[str, str]:
    a, b = link.split("|")
    return a, b


def pair(a: str, b: str) -> str:
    return f"{a}|{b}" if a < b else f"{b}|{a}"


class _Builder:
    def __init__(self, seed: int, people: int) -> None:
        self.rng = random.Random(seed)
        self.target_people = people
        self.names: dict[str, str] = {}
        self.side: dict[str, str] = {}
        self.links: dict[str, tuple[str, float]] = {}  # pair -> (image URL, confidence)
        self.neighbours: dict[str, set[str]] = {}
        self.photos: list[tuple[str, dict[str, float], str]] = []  # (url, key -> confidence, title)
        self._fresh = (f"{f} {last}" for last, f in itertools.product(_LAST, _FIRST))
        self.events: list[dict[str, Any]] = []
        self.announced: set[str] = set()
        self.searches = 0
        self.recognitions = 0
        self.llm_calls = 0

    def person(self, side: str, name: str | None = None) -> str:
        if name is None:
            name = next(n for n in self._fresh if name_key(n) not in self.names)
        key = name_key(name)
        self.names[key] = name
        self.side[key] = side
        self.neighbours.setdefault(key, set())
        return key

    def confidence(self) -> float:
        return round(self.rng.uniform(80.5, 99.9), 2)

    def photo(self, keys: list[str]) -> tuple[str, dict[str, float], str]:
        n = len(self.photos)
        url = PHOTO_HOST + hashlib.sha256(f"scale-{n}".encode()).hexdigest()[:10] + ".svg"
        people = {k: self.confidence() for k in keys}
        names = [self.names[k] for k in keys]
        listed = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]
        title = f"{listed} at {self.rng.choice(_EVENTS)} ({2001 + n % 20})"
        for a, b in itertools.combinations(keys, 2):
            strength = min(people[a], people[b])
            known = self.links.get(pair(a, b))
            if known is None or known[1] < strength:
                self.links[pair(a, b)] = (url, strength)
            self.neighbours[a].add(b)
            self.neighbours[b].add(a)
        photo = (url, people, title)
        self.photos.append(photo)
        return photo

    def usage(self) -> dict[str, Any]:
        cost = self.searches * 0.005 + self.recognitions * 0.001 + self.llm_calls * 0.0125
        return {
            "searches": self.searches,
            "recognitions": self.recognitions,
            "llmCalls": self.llm_calls,
            "llmTokensIn": 550 * self.llm_calls,
            "llmTokensOut": 90 * self.llm_calls,
            "costUsd": round(cost, 6),
        }

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        self.events.append({"type": kind, "data": data})

    def search(self, anchor: str, *, must_show: str | None = None, with_usage: bool = True) -> None:
        """Five photos around `anchor`, announced as the server would; `must_show` is in one of them."""
        self.searches += 1
        self.recognitions += 5
        status = {"message": f"Who appears with {self.names[anchor]}?", "hop": 0}
        if with_usage:
            status["usage"] = self.usage()
        self.emit("status", status)
        side = self.side[anchor]
        pending: list[tuple[str, dict[str, float], str]] = []
        for i in range(5):
            size = self.rng.choices((2, 3, 4, 5), weights=(55, 28, 13, 4))[0]
            keys = [anchor] + ([must_show] if must_show and i == 2 else [])
            while len(keys) < size:
                known = [k for k in self.neighbours[anchor] | self._second(anchor) if self.side[k] == side]
                grow = len(self.names) < self.target_people and (not known or self.rng.random() < 0.7)
                if not grow and not known:
                    break
                pick = self.person(side) if grow else self.rng.choice(sorted(known))
                if pick not in keys:
                    keys.append(pick)
                elif not grow and len(set(known) - set(keys)) == 0:
                    break
            self.announce(self.photo(keys), len(self.photos) % 3, pending)
        for photo in pending:  # a photo announced in part earlier, now in full
            self.announce(photo, 0, [])

    def _second(self, key: str) -> set[str]:
        return {m for n in self.neighbours[key] for m in self.neighbours[n]} - {key}

    def announce(self, photo: tuple[str, dict[str, float], str], shape: int, later: list[Any]) -> None:
        url, people, title = photo
        self.announced.add(url)
        base = {
            "imageUrl": url,
            "pageUrl": url.removesuffix(".svg"),
            "title": title,
            "event": photo_event(title),
            "query": "cast",
        }
        keys = list(people)
        pairs = list(itertools.combinations(keys, 2))
        if shape == 1 or len(keys) == 2:  # today's shape: one event per pair
            for a, b in pairs:
                self.emit("evidence", {**self.legacy(a, b, people), **base})
            return
        if shape == 2 and len(keys) > 2:  # announced with its first pair now, everyone later
            self.emit(
                "evidence", {**self.legacy(keys[0], keys[1], people), **base, **self.full(people, pairs[:1])}
            )
            later.append(photo)
            return
        self.emit("evidence", {**self.legacy(keys[0], keys[1], people), **base, **self.full(people, pairs)})

    def legacy(self, a: str, b: str, people: dict[str, float]) -> dict[str, Any]:
        return {
            "from": self.names[a],
            "to": self.names[b],
            "fromKey": a,
            "toKey": b,
            "confidenceA": people[a],
            "confidenceB": people[b],
            "confidence": min(people[a], people[b]),
        }

    def full(self, people: dict[str, float], pairs: list[tuple[str, str]]) -> dict[str, Any]:
        shown = {k for p in pairs for k in p} if len(pairs) == 1 else set(people)
        return {
            "people": [
                {"key": k, "name": self.names[k], "confidence": c} for k, c in people.items() if k in shown
            ],
            "links": [
                {
                    "fromKey": a,
                    "toKey": b,
                    "from": self.names[a],
                    "to": self.names[b],
                    "confidence": min(people[a], people[b]),
                }
                for a, b in pairs
            ],
        }

    def edge(self, a: str, b: str) -> dict[str, Any]:
        url, confidence = self.links[pair(a, b)]
        return {
            "from": self.names[a],
            "to": self.names[b],
            "fromKey": a,
            "toKey": b,
            "imageUrl": url,
            "confidence": confidence,
        }


def scale_run(*, outcome: str = "final", seed: int = 3, people: int = 126, links: int = 265) -> ScaleRun:
    """A run with exactly `people` people and `links` links; `outcome` is "final" or "no_path"."""
    g = _Builder(seed, people)
    a = g.person("A", "Vesna Hawthorne")
    b = g.person("B", "Niall Halloran")
    p1 = g.person("A", "Bastian Goodfellow")
    p2 = g.person("A", LONG_NAME)
    p3 = g.person("B", "Rosalind Farrow")
    p4 = g.person("B", "Jasper Thistlewood")
    hostile = g.person("A", HOSTILE_NAME)
    g.emit("run_started", {"personA": g.names[a], "personB": g.names[b]})
    g.emit("status", {"message": f"Looking for one photo of {g.names[a]} with {g.names[b]}", "hop": 0})
    g.search(a, must_show=p1)
    g.search(a)
    g.announce(g.photo([a, hostile]), 1, [])
    g.emit("path_update", {"path": [g.names[a], g.names[p1]], "hop": 1, "side": "A"})
    g.search(b, must_show=p4)
    g.search(b)
    g.emit(
        "path_update",
        {"path": [g.names[b], g.names[p4]], "hop": 1, "side": "B", "edges": [g.edge(b, p4)]},
    )
    g.llm_calls += 1
    g.search(p1, must_show=p2)
    g.emit(
        "path_update",
        {
            "path": [g.names[a], g.names[p1], g.names[p2]],
            "hop": 2,
            "side": "A",
            "edges": [g.edge(a, p1), g.edge(p1, p2)],
        },
    )
    g.search(p4, must_show=p3, with_usage=False)
    if outcome == "final":  # a run that gives up says how far B's side got only in its `no_path`
        g.emit("path_update", {"path": [g.names[b], g.names[p4], g.names[p3]], "hop": 2, "side": "B"})
    g.llm_calls += 1
    # Dead ends on both sides, until everyone is found.
    for side in itertools.cycle("AB"):
        if len(g.names) >= people:
            break
        seen = sorted(k for k, s in g.side.items() if s == side and k not in (a, b, p1, p2, p3, p4))
        g.search(g.rng.choice(seen))
    if len(g.names) != people:
        raise ValueError(f"generated {len(g.names)} people, not {people}")
    if outcome == "final":
        g.searches += 1
        g.recognitions += 5
        g.emit("status", {"message": f"Bridging {g.names[p2]} — {g.names[p3]}", "hop": 3, "usage": g.usage()})
        g.announce(g.photo([p2, p3]), 1, [])
    # Links beyond the searched people: proven, drawn in the graph, never carded.
    keys = sorted(g.names)
    while len(g.links) < links:
        x = g.rng.choice(keys)
        near = sorted(k for k in g._second(x) if g.side[k] == g.side[x] and pair(x, k) not in g.links)
        if near:
            g.photo([x, g.rng.choice(near)])
    if len(g.links) != links:
        raise ValueError(f"generated {len(g.links)} links, not {links}")
    graph = {
        "nodes": [{"id": k, "name": g.names[k]} for k in keys],
        "edges": [
            {"source": x, "target": y, "confidence": c}
            for x, y, c in ((*_ends(p), conf) for p, (_url, conf) in sorted(g.links.items()))
        ],
    }
    photos = {url: dict(people_in) for url, people_in, _title in g.photos if url in g.announced}
    chain = [a, p1, p2, p3, p4, b]
    if outcome == "final":
        edges = []
        for x, y in itertools.pairwise(chain):
            url, confidence = g.links[pair(x, y)]
            shown = next(ppl for u, ppl, _t in g.photos if u == url)
            edges.append(
                {
                    "from": g.names[x],
                    "to": g.names[y],
                    "confidence": confidence,
                    "evidence": {
                        "imageUrl": url,
                        "pageUrl": url.removesuffix(".svg"),
                        "title": next(t for u, _p, t in g.photos if u == url),
                        "confidenceA": shown[x],
                        "confidenceB": shown[y],
                    },
                }
            )
        confidences = [e["confidence"] for e in edges]
        g.emit(
            "final",
            {
                "path": [g.names[k] for k in chain],
                "hops": len(edges),
                "edges": edges,
                "confidenceMap": {f"{e['from']} — {e['to']}": e["confidence"] for e in edges},
                "bottleneckConfidence": min(confidences),
                "cumulativeConfidence": round(_product(c / 100 for c in confidences), 4),
                "graph": graph,
                "usage": g.usage(),
                "simSeconds": 61.5,
            },
        )
        path = [g.names[k] for k in chain]
    else:
        g.emit(
            "no_path",
            {
                "reason": "budget",
                "exhausted": "searches",
                "message": "The searches budget ran out before a chain was proven.",
                "hopsTried": 2,
                "maxHops": 6,
                "partialPath": [g.names[k] for k in (a, p1, p2)],
                "partialPathFromB": [g.names[k] for k in (b, p4, p3)],
                "usage": g.usage(),
                "simSeconds": 58.0,
                "graph": graph,
            },
        )
        path = []
    return ScaleRun(
        person_a=g.names[a],
        person_b=g.names[b],
        path=path,
        names=dict(g.names),
        links=set(g.links),
        photos=photos,
        events=g.events,
    )


def _product(values: Any) -> float:
    out = 1.0
    for v in values:
        out *= v
    return out
