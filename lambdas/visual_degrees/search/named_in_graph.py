"""People a page names beside an end, found in the evidence graph: meeting points beyond the
part of the graph a run brought in.

At S1 a run brings in at most MAX_COMPONENT_LINKS links around its ends (known_edges), so of a
deployment's graph it sees the known end's neighbourhood only. A title read later may name the new
end beside someone of the same component further out ("N and Y attend …", Y linked to the known
end through people the run never read about). That title is a lead like any other, but only once
the run knows Y's chain to the other end does the lead close a chain. So after each page, the
people it names with an end who are not in the run's graph are looked up (one adjacency read
each), and for those in the graph, the shortest chain the graph holds to the other end joins the
run's graph as reused links (checked before they are shown or used, like every reused link).

Nothing here is paid for or shown: the run still has to recognise a photo of the end with Y.
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from visual_degrees.domain.captions import keys_in_title
from visual_degrees.domain.models import ImageHit
from visual_degrees.domain.wording import plural
from visual_degrees.search.known_edges import adopt_chain, shortest_known
from visual_degrees.search.scope import SearchScope

# People of one page looked up in the graph (one adjacency read each), the most often named first.
LOOKUPS = 8
# Of those in it, whose chain to the other end is looked for (known_edges.MAX_READS reads each).
CHAINS = 3


def tie_named(scope: SearchScope, hits: list[ImageHit]) -> int:
    """Bring in the graph's chains from the people these titles name with an end to the other end;
    how many links joined the run."""
    if not scope.rules.remember_edges:
        return 0
    state = scope.state
    a, b = state.person_a.key, state.person_b.key
    if scope.graph.connects(a, b, scope.options.max_hops, scope.rules.strong_confidence):
        return 0
    lookups, chains, added = 0, 0, 0
    met: dict[str, list[str]] = {}
    for end, other in ((a, b), (b, a)):
        if not scope.known.holds(other):
            continue  # the other end is in no link of the graph: no chain to read from it
        for person in named_with(hits, end):
            if person in (a, b) or person in scope.graph:
                continue  # the run can already chain through them
            if lookups >= LOOKUPS or chains >= CHAINS:
                break
            lookups += 1
            if not scope.known.holds(person):
                continue
            chains += 1
            # One link (the end with them) still to prove: their chain must fit in one pair fewer.
            keys = shortest_known(scope, person, other, scope.options.max_hops - 1)
            if keys is not None and (joined := adopt_chain(scope, list(pairwise(keys)))):
                met.setdefault(end, []).append(person)
                added += joined
    for end, people in met.items():
        name = state.person_a.name if end == a else state.person_b.name
        other_name = state.person_b.name if end == a else state.person_a.name
        scope.status(
            f"Earlier runs linked {plural(len(people), 'person', 'people')} named beside {name} on "
            f"this page to {other_name}: a photo of {name} with one of them closes a chain",
            earlier=True,
        )
    return added


def named_with(hits: list[ImageHit], end: str) -> list[str]:
    """The people titles name beside `end`, the most often named first."""
    counts: Counter[str] = Counter()
    for hit in hits:
        keys = keys_in_title(hit.title)
        if end in keys:
            counts.update(key for key in set(keys) if key != end)
    return sorted(counts, key=lambda key: (-counts[key], key))
