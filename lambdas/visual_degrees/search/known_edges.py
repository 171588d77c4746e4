"""Evidence from earlier runs: the deployment's evidence graph (lifecycle/evidence_graph.py), every
link a run proved on this photo web, each with its photo.

A run asks it first (S1 of every strategy): if A and B are connected there within the hop limit, the
shortest chain it holds is the answer, at no paid call. If not, each end's part of the graph (its
component, read breadth first within a bound) joins the run's verified graph, so a photo tying the
other end to any person of it closes a chain: the run links each end to the graph instead of
building a chain from nothing.

A reused link is the very evidence an earlier run accepted (same photo, same confidences, same
celebrity ids), shown with its photo and the date it was proven; its photo is checked to still
resolve before it is used, and identities must agree with this run's pins. A link whose photo is
gone is dropped from the graph; one whose photo could not be reached now is only kept out of the
run (RunGraph.keep_out), and the graph keeps it for later runs.
"""

from __future__ import annotations

from collections import deque
from itertools import pairwise

from visual_degrees.domain.graph_links import proven_date
from visual_degrees.domain.models import Edge, Person
from visual_degrees.domain.wording import plural
from visual_degrees.search.evidence import accept_edge
from visual_degrees.search.observe import Observed, PhotoCheck, photo_check
from visual_degrees.search.port import StepResult
from visual_degrees.search.scope import SearchScope

# Adjacency reads a look for a chain between two people may make (each read is one query): the
# many looks a run makes for people its pages name beside an end.
MAX_READS = 40
# ... S1's look for a chain between the ends, once a question (again when a photo of it fails): a
# chain the graph holds and this look misses is paid for again, search by search. On sparse worlds
# the two ends' neighbourhoods take more than 40 reads to meet (cast.06 streams: up to 100, 13 on
# average; docs/benchmarks/stream.md, round 8); a read is one Query of at most MAX_ADOPTED items.
ANSWER_READS = 200
# Neighbours read per person: a hub met by many runs must not make every read heavier.
MAX_ADOPTED = 60
# Links of an end's component brought into the run's graph when no chain is known (each one read).
MAX_COMPONENT_LINKS = 120
# Chains looked for again after a link's photo was found gone.
MAX_RECHECKS = 3
# Chains looked for in all: one on a photo that failed already is passed over with no re-check.
MAX_LOOKS = 10


def earlier_chain(scope: SearchScope) -> StepResult | None:
    """S1 of every strategy, with the evidence graph: the shortest chain A..B that earlier runs
    proved answers first, for free (the look is journalled: a re-run of the step sees the same).
    Otherwise, if an earlier run asked the same question and ended without a chain, the run says
    what it reuses of it."""
    a, b = scope.state.person_a, scope.state.person_b
    if not (scope.rules.remember_edges and scope.decide("remembered", lambda: chain_in_memory(scope))):
        asked_before(scope)
        return None
    scope.status(f"Earlier runs already proved a chain from {a.name} to {b.name}", earlier=True)
    return StepResult(reached=True, observed=(Observed(),))


def asked_before(scope: SearchScope) -> None:
    """Say so when this question was asked on this photo web lately and ended without a chain:
    what that run read (pages), recognised (faces), ruled out and was told by the planner is
    reused from the shared caches, so only what it did not try is paid for."""
    if not scope.rules.shared_cache:
        return
    a, b = scope.state.person_a, scope.state.person_b
    ending = scope.shared.unsolved(a.key, b.key)
    if ending is None:
        return
    scope.status(
        f"Asked before on this photo web ({proven_date(float(ending['at']))[:10]}), and no chain was "
        f"found then: what that run read, recognised and ruled out is reused, and only what it did "
        f"not try is paid for",
        earlier=True,
        askedBefore={"runId": ending["runId"], "reason": ending.get("reason")},
    )


def remember_unsolved(scope: SearchScope, reason: str) -> None:
    """At S7: keep how this question ended, for a run that asks it again (see asked_before)."""
    if scope.rules.shared_cache:
        a, b = scope.state.person_a, scope.state.person_b
        ending = {"runId": scope.state.run_id, "at": scope.ctx.clock.now(), "reason": reason}
        scope.shared.remember_unsolved(a.key, b.key, ending)


def join_the_graph(scope: SearchScope) -> None:
    """After S1's own look (whose photos pin who A and B are), when no chain is known: each end's
    component of the graph joins the run's graph (journalled), and the run says so."""
    if not scope.rules.remember_edges:
        return
    # Asked again after no chain: that run's own links come back from the caches as it found them,
    # so only what other runs proved is new (and the run replays the first, paying for nothing twice).
    before = scope.shared.unsolved(scope.state.person_a.key, scope.state.person_b.key) or {}
    joined = scope.decide("component", lambda: link_ends_to_graph(scope, besides=before.get("runId")))
    if joined:
        a, b = scope.state.person_a, scope.state.person_b
        scope.status(
            f"Earlier runs proved {plural(joined, 'link')} around {a.name} and {b.name}; "
            "a photo tying the other end to anyone of them closes a chain",
            earlier=True,
        )


def import_known(scope: SearchScope, key: str) -> int:
    """Add the remembered links touching `key` to the run graph; how many pairs were new."""
    if not scope.rules.remember_edges:
        return 0
    added = 0
    for neighbour in scope.known.neighbours(key, MAX_ADOPTED):
        edge = scope.known.edge(key, neighbour.key)
        added += edge is not None and _adopt(scope, edge, card=False)
    scope.graph.flush()
    return added


def chain_in_memory(scope: SearchScope) -> bool:
    """Look for the shortest chain A..B within max hops among remembered links; adopt it (shown as
    evidence, photo by photo) if every photo of it still resolves. A link whose photo does not is
    set aside, and the next shortest chain is looked for (MAX_RECHECKS times). A photo counts once:
    a group photo backs a link per pair of its people, and a link on a photo that failed already is
    set aside as its first link was, spending no re-check. (The same bytes at another URL are
    checked there: a copy elsewhere may well resolve.)"""
    if not scope.rules.remember_edges:
        return False
    a, b = scope.state.person_a.key, scope.state.person_b.key
    failed_urls: set[str] = set()  # photos whose re-check failed in this look
    rechecks = 0
    for _ in range(MAX_LOOKS):
        keys = shortest_known(scope, a, b, max_reads=ANSWER_READS)
        if keys is None:
            return False
        chain = [scope.known.edge(x, y) for x, y in pairwise(keys)]
        edges = [e for e in chain if e is not None and _adopt(scope, e, card=True, check_only=True)]
        if len(edges) < len(chain):
            return False  # another identity holds a name of it in this run: not this chain
        failed = [(e, check) for e in edges if (check := _failed_before(scope, failed_urls, e))]
        if not failed:
            if rechecks == MAX_RECHECKS:
                return False
            rechecks += 1
            failed = [(e, check) for e in edges if (check := reused_photo(scope, e)) != "resolves"]
            failed_urls.update(e.evidence.image_url for e, _ in failed)
        for e, check in failed:
            set_aside(scope, e.a, e.b, gone=check == "gone")
        if failed:
            continue
        for e in edges:
            _adopt(scope, e, card=True)
        scope.graph.flush()
        return scope.graph.connects(a, b, scope.options.max_hops, scope.rules.strong_confidence)
    return False


def _failed_before(scope: SearchScope, failed_urls: set[str], edge: Edge) -> PhotoCheck | None:
    """How `edge`'s photo fails when its URL failed already (None: not known to): the run's fetch
    of it answers, as a re-check would, and nothing is fetched again."""
    if edge.evidence.image_url not in failed_urls:
        return None
    check = reused_photo(scope, edge)
    return None if check == "resolves" else check


def reused_photo(scope: SearchScope, edge: Edge) -> PhotoCheck:
    """A reused link's photo, fetched again (free): does it still serve the same bytes?"""
    return photo_check(scope, edge.evidence.image_url, edge.evidence.sha256)


def set_aside(scope: SearchScope, a: str, b: str, *, gone: bool) -> None:
    """A reused link whose photo did not resolve leaves this run for good. The deployment's graph
    forgets it only when the web said the photo is `gone`: a photo host down for a moment must not
    erase a link every later run could use."""
    if gone:
        scope.known.forget(a, b)
    scope.graph.keep_out(a, b)


def shortest_known(
    scope: SearchScope, a: str, b: str, max_hops: int | None = None, *, max_reads: int = MAX_READS
) -> list[str] | None:
    """The fewest-links chain a..b (person keys) the graph holds within max hops (the run's unless
    given), found breadth first from both ends a whole layer at a time (so the first meeting is a
    shortest one), within `max_reads` adjacency reads."""
    max_hops = scope.options.max_hops if max_hops is None else max_hops
    parents: list[dict[str, str | None]] = [{a: None}, {b: None}]
    layers = [[a], [b]]
    reads, hops = 0, 0
    while layers[0] and layers[1] and hops < max_hops:
        side = 0 if len(layers[0]) <= len(layers[1]) else 1
        found, nxt = [], []
        for node in layers[side]:
            if reads >= max_reads:
                break
            reads += 1
            for neighbour in scope.known.neighbours(node, MAX_ADOPTED):
                if neighbour.key in parents[side] or scope.graph.kept_out(node, neighbour.key):
                    continue
                parents[side][neighbour.key] = node
                nxt.append(neighbour.key)
                if neighbour.key in parents[1 - side]:
                    found.append(neighbour.key)
        hops += 1
        if found:
            meet = min(found, key=lambda k: (_depth(parents[0], k) + _depth(parents[1], k), k))
            return _walk(parents[0], meet)[::-1] + _walk(parents[1], meet)[1:]
        layers[side] = nxt
        if reads >= max_reads:
            break
    return None


def adopt_chain(scope: SearchScope, pairs: list[tuple[str, str]]) -> int:
    """Bring these pairs' links of the graph into the run's graph, without cards (shown, once
    re-checked, only if a chain through them is the answer); how many were new to it."""
    added = 0
    for x, y in pairs:
        edge = scope.known.edge(x, y)
        added += edge is not None and _adopt(scope, edge, card=False)
    scope.graph.flush()
    return added


def link_ends_to_graph(scope: SearchScope, *, besides: str | None = None) -> int:
    """Bring each end's component of the graph (breadth first, at most MAX_COMPONENT_LINKS links in
    all, none proven by the run `besides`) into the run's verified graph, without cards: any person
    of it is now a meeting point, and a chain through it shows its links (and their photos) when it
    is the answer. How many links."""
    added = 0
    budget = MAX_COMPONENT_LINKS
    for end in (scope.state.person_a.key, scope.state.person_b.key):
        seen, queue = {end}, deque([end])
        while queue and budget > 0:
            node = queue.popleft()
            for neighbour in scope.known.neighbours(node, MAX_ADOPTED):
                if neighbour.key in seen or budget <= 0:
                    continue
                seen.add(neighbour.key)
                link = scope.known.link(node, neighbour.key)
                budget -= 1
                if link is None or (besides and link.run_id == besides):
                    continue
                if _adopt(scope, link.edge(), card=False):
                    added += 1
                    queue.append(neighbour.key)
    scope.graph.flush()
    return added


def new_and_known(scope: SearchScope) -> tuple[Person, Person] | None:
    """(the end the graph has no link of, the end it has one of), or None unless exactly one is new.
    Read once a step (KnownLinks.holds): S1's titles and the planner's guess both ask."""
    a, b = scope.state.person_a, scope.state.person_b
    in_a, in_b = (scope.known.holds(end.key) for end in (a, b))
    if in_a == in_b:
        return None
    return (b, a) if in_a else (a, b)


def near(
    scope: SearchScope, end: str, reads_left: int
) -> tuple[dict[str, int], dict[str, int], dict[str, str]]:
    """`end`'s component breadth first within `reads_left` adjacency reads and max_hops - 1 links
    (a chain through them must fit): each person's distance, how many of the people read link to
    them, and their names. A link this run kept out (its photo did not resolve) is not walked."""
    limit = scope.options.max_hops - 1
    depth = {end: 0}
    seen: dict[str, int] = {}
    names: dict[str, str] = {}
    queue, reads = deque([end]), 0
    while queue and reads < reads_left:
        node = queue.popleft()
        if depth[node] >= limit:
            continue
        reads += 1
        around = scope.known.neighbours(node, MAX_ADOPTED)
        for neighbour in around:
            if scope.graph.kept_out(node, neighbour.key):
                continue
            names.setdefault(neighbour.key, neighbour.name)
            seen[neighbour.key] = seen.get(neighbour.key, 0) + 1
            if neighbour.key not in depth:
                depth[neighbour.key] = depth[node] + 1
                queue.append(neighbour.key)
    return depth, seen, names


def _depth(parents: dict[str, str | None], node: str) -> int:
    return len(_walk(parents, node)) - 1


def _walk(parents: dict[str, str | None], node: str) -> list[str]:
    """node, its parent, … back to the side's end."""
    keys = [node]
    while (parent := parents[keys[-1]]) is not None:
        keys.append(parent)
    return keys


def _adopt(scope: SearchScope, edge: Edge, *, card: bool, check_only: bool = False) -> bool:
    if scope.graph.kept_out(edge.a, edge.b):
        return False  # its photo did not resolve in this run
    ev = edge.evidence
    for key, cid, name in ((edge.a, ev.id_a, edge.name_a), (edge.b, ev.id_b, edge.name_b)):
        pinned = scope.pinned(key)
        if pinned is not None and pinned != cid:
            return False
        if not check_only and not scope.agrees(key, cid, name):
            return False
    if check_only:
        return True
    is_new = scope.graph.confidence(edge.a, edge.b) is None
    accept_edge(scope, edge.a, edge.b, ev, card=card, remember=False)
    return is_new
