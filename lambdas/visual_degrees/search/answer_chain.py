"""The chain an answer uses, and the check that its reused links still have their photos.

The answer is the shortest chain of the run's trusted links (S6). Links an earlier run proved come
from the evidence graph (known_edges.py): a chain read whole from it is re-checked as it is read,
but the links of an end's component join the run unchecked (up to 120 of them, most never used), so
each one a chain is about to claim or show has its photo fetched again first (a fetch is not a paid
call, and once a run). A link whose photo is gone, or now serves other bytes, leaves the evidence
graph and the run's graph; one whose photo could not be reached now leaves the run's graph only
(known_edges.set_aside); the next chain is checked in turn. One whose photo resolves is marked
`rechecked`, and only links the run proved or re-checked are shown or claimed (Evidence.shown).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from itertools import pairwise

from visual_degrees.domain.models import Edge
from visual_degrees.domain.paths import best_path
from visual_degrees.domain.wording import plural
from visual_degrees.search.known_edges import MAX_RECHECKS, reused_photo, set_aside
from visual_degrees.search.scope import SearchScope


def answer_chain(scope: SearchScope, edges: Iterable[Edge] | None = None) -> list[Edge] | None:
    """The shortest chain A..B of trusted links (the widest bottleneck among equals), or None;
    `edges`: the run's, when the caller has read them already."""
    strong = scope.rules.strong_confidence
    edges = scope.evidence.edges() if edges is None else edges
    usable = [e for e in edges if scope.graph.trusted(e.a, e.b, strong)]
    state = scope.state
    return best_path(usable, state.person_a.key, state.person_b.key, state.options.max_hops)


def reused_photos_resolve(scope: SearchScope, tag: str) -> bool:
    """Withdraw the reused links of the answer's chain whose photos are gone, chain after chain
    (journalled under `tag`: a re-run step withdraws the same). True when the chain the answer would
    use now (if any) stands only on photos that resolve."""
    for attempt in range(MAX_RECHECKS):
        gone = scope.decide(f"recheck.{tag}.{attempt}", partial(_answer_gone, scope))
        if not gone:
            return True
        _withdraw(scope, gone)
    return False


def standing(scope: SearchScope, tag: str, find: Callable[[], list[str] | None]) -> list[str] | None:
    """The chain `find` gives (person keys) once every reused link on it is re-checked: a gone one is
    withdrawn and `find` asked again (journalled under `tag`, as above). None when `find` gives none,
    or none that stands within MAX_RECHECKS: nothing to show."""
    for attempt in range(MAX_RECHECKS):
        keys = find()
        withdrawn = attempt and any(scope.graph.confidence(a, b) is None for a, b in pairwise(keys or []))
        if keys is None or withdrawn:  # a chain `find` still gives after its link left is none
            return None
        gone = scope.decide(f"recheck.{tag}.{attempt}", partial(_gone_on, scope, keys))
        if not gone:
            return keys
        _withdraw(scope, gone)
    return None


def _answer_gone(scope: SearchScope) -> list[list[str]]:
    return _gone(scope, answer_chain(scope) or [])


def _gone_on(scope: SearchScope, keys: list[str]) -> list[list[str]]:
    return _gone(scope, (scope.evidence.edge(a, b) for a, b in pairwise(keys)))


def _gone(scope: SearchScope, edges: Iterable[Edge | None]) -> list[list[str]]:
    """[a, b, PhotoCheck, image URL] for each reused link whose photo did not resolve; the other
    reused links marked re-checked."""
    failed = []
    for edge in edges:
        if edge is None or edge.evidence.shown:
            continue
        check = reused_photo(scope, edge)
        if check != "resolves":
            failed.append([edge.a, edge.b, check, edge.evidence.image_url])
        else:
            checked = edge.evidence.model_copy(update={"rechecked": True})
            scope.evidence.put_edge(edge.model_copy(update={"evidence": checked}))
    return failed


def _withdraw(scope: SearchScope, failed: list[list[str]]) -> None:
    # A group photo backs a reused link per pair of its people: those not yet checked leave with the
    # one that failed, so the next chain looked at is not through the same photo.
    # (An entry a step journalled before the URL was kept has three fields: replayed, it names no photo.)
    photos = {entry[3]: entry[2] for entry in failed if len(entry) > 3}
    listed = {frozenset(entry[:2]) for entry in failed}
    more = [
        [edge.a, edge.b, photos[edge.evidence.image_url]]
        for edge in (scope.evidence.edges() if photos else [])
        if edge.evidence.image_url in photos
        and not edge.evidence.shown
        and frozenset((edge.a, edge.b)) not in listed
        and not scope.graph.kept_out(edge.a, edge.b)
    ]
    failed = [*failed, *more]
    for a, b, check, *_ in failed:
        set_aside(scope, a, b, gone=check == "gone")
    scope.graph.flush()
    gone = sum(entry[2] == "gone" for entry in failed)
    if gone:
        scope.status(
            f"{plural(gone, 'link')} an earlier run proved no longer "
            f"{'has its' if gone == 1 else 'have their'} photo; not used"
        )
    if unreachable := len(failed) - gone:
        scope.status(
            f"{plural(unreachable, 'link')} an earlier run proved: "
            f"{'its photo' if unreachable == 1 else 'their photos'} could not be reached now; "
            "not used in this run, kept for later runs"
        )
