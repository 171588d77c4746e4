"""People a page names beside an end, found in the evidence graph: meeting points beyond the
part of the graph a run brought in.

At S1 a run brings in at most MAX_COMPONENT_LINKS links around its ends (known_edges), so of a
deployment's graph it sees the known end's neighbourhood only. A title read later may name the new
end beside someone of the same component further out ("N and Y attend …", Y linked to the known
end through people the run never read about). That title is a lead like any other, but only once
the run knows Y's chain to the other end does the lead close a chain. So after each page, the
people it names beside a new end who are not in the run's graph are looked up (one adjacency read
each), and for those in the graph, the shortest chain the graph holds to the other end joins the
run's graph as reused links (checked before they are shown or used, like every reused link). The
titles earlier runs read (caption_leads/earlier_titles.py) reach beyond the known end's
neighbourhood the same way.

Nothing here is paid for or shown: the run still has to recognise a photo of the end with Y.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import pairwise

from visual_degrees.domain.captions import keys_in_title
from visual_degrees.domain.models import ImageHit
from visual_degrees.search.known_edges import adopt_chain, shortest_known
from visual_degrees.search.scope import SearchScope

# People of one page looked up in the graph (one adjacency read each), the most often named first.
LOOKUPS = 16
# Of those in it, whose chain to the other end is looked for (known_edges.MAX_READS reads each).
CHAINS = 6


def tie_named(scope: SearchScope, hits: list[ImageHit]) -> int:
    """Bring in the graph's chains from the people these titles name beside a new end to the other
    end; how many links joined the run."""
    if not scope.rules.remember_edges:
        return 0
    state = scope.state
    a, b = state.person_a.key, state.person_b.key
    if scope.graph.connects(a, b, scope.options.max_hops, scope.rules.strong_confidence):
        return 0
    lookups, added, met = Lookups(LOOKUPS), 0, []
    for end, other in ((a, b), (b, a)):
        # With both ends new, routes between people named beside each were tried: they led runs
        # down long chains of leads and cost more than they saved (docs/benchmarks/stream.md).
        if not scope.known.holds(other):
            continue
        for person in in_graph(scope, named_with(hits, end), lookups):
            # One link (the end with them) still to prove: their chain must fit in one pair fewer.
            got = bring_in(scope, person, other, scope.options.max_hops - 1)
            if got is not None and got[1]:
                met.append(end)
                added += got[1]
    for end in dict.fromkeys(met):
        name, other_name = (
            (state.person_a.name, state.person_b.name)
            if end == a
            else (state.person_b.name, state.person_a.name)
        )
        scope.status(
            f"Earlier runs linked people this page names beside {name} to {other_name}: a photo of "
            f"{name} with one of them closes a chain",
            earlier=True,
        )
    return added


@dataclass
class Lookups:
    """Adjacency reads left for asking whether the graph holds someone."""

    left: int

    def take(self) -> bool:
        self.left -= 1
        return self.left >= 0


def in_graph(scope: SearchScope, people: list[str], lookups: Lookups) -> list[str]:
    """Those of `people` the graph holds and the run's graph does not (one read each, while
    `lookups` last), at most CHAINS."""
    found: list[str] = []
    a, b = scope.state.person_a.key, scope.state.person_b.key
    for person in people:
        if person in (a, b) or person in scope.graph:
            continue  # the run can already chain through them
        if len(found) >= CHAINS or not lookups.take():
            break
        if scope.known.holds(person):
            found.append(person)
    return found


def bring_in(scope: SearchScope, x: str, y: str, hops: int) -> tuple[int, int] | None:
    """The graph's shortest chain x..y of at most `hops` links, brought into the run's graph as
    reused links: (its links, how many were new to the run), or None if the graph has none."""
    keys = shortest_known(scope, x, y, hops) if hops > 0 else None
    if keys is None:
        return None
    return len(keys) - 1, adopt_chain(scope, list(pairwise(keys)))


def named_with(hits: list[ImageHit], end: str) -> list[str]:
    """The people titles name beside `end`, the most often named first."""
    counts: Counter[str] = Counter()
    for hit in hits:
        keys = keys_in_title(hit.title)
        if end in keys:
            counts.update(key for key in set(keys) if key != end)
    return sorted(counts, key=lambda key: (-counts[key], key))
