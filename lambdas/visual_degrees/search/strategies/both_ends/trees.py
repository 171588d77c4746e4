"""Meet in the middle: the default strategy's view of the search as two trees in one verified graph.

A's side is everyone the run graph connects to A, B's side everyone it connects to B; each person's
depth is their distance from that end. S2 expands, best first, the open person of either side that
is shallowest (breadth first keeps chains short), on the smaller side (balanced trees meet soonest),
best connected first (hubs know more people); S5 then tries the newly proven person against the best
connected person of the other side. Every choice here is a pure function of the run graph and the
discovery log, so a re-run step that journals its choices (RunScope.decide) replays them exactly.
"""

from __future__ import annotations

from visual_degrees.domain.journal import Expansion
from visual_degrees.domain.models import Side
from visual_degrees.domain.queries import discovery_query
from visual_degrees.domain.strategy import Knobs
from visual_degrees.lifecycle.run_memory import Rounds
from visual_degrees.search.scope import SearchScope

# Discovery searches about one person. The first (group-first: "X cast") shows most of whom a search
# can show with them; measured on cast.G, a second round ("X with") repeated the same photos often
# enough to cost more than it found (docs/benchmarks/). Raise it for worlds of famous people.
ROUNDS_PER_PERSON = 1
# A round that found a person again counts half a level deeper: a fresh person at the same depth first.
REPEAT_PENALTY = 0.5


def roots(scope: SearchScope) -> dict[Side, str]:
    return {side: scope.state.end(side).key for side in ("A", "B")}


def depths(scope: SearchScope) -> dict[Side, dict[str, int]]:
    limit = scope.options.max_hops
    return {side: scope.graph.depths(root, limit) for side, root in roots(scope).items()}


def unseen_end(scope: SearchScope, knobs: Knobs) -> str | None:
    """An end its own discovery searches could not show with anyone: never recognised at the
    threshold after one search about them, or recognised but with nobody after all their rounds.
    Every chain needs a photo of each end with someone, and searching around such an end blindly is
    what burns the budget of runs that cannot succeed."""
    if not knobs.stop_when_end_unseen:
        return None
    rounds = scope.frontier.expanded()
    for key in roots(scope).values():
        seen = rounds.get(key, Rounds())
        if seen.made >= 1 and scope.pinned(key) is None:
            return key
        if (seen.made >= ROUNDS_PER_PERSON or seen.empty or seen.complete) and scope.graph.degree(key) == 0:
            return key
    return None


def next_expansion(scope: SearchScope, knobs: Knobs, order: tuple[int, ...] | None) -> Expansion | None:
    """The open person to search about next, or None when nobody within the hop limit is left, or
    (stop_when_end_unseen) when one side has nobody left: a chain would then have to be stumbled
    upon by the other side's searches alone. `order`: of the discovery templates."""
    rounds = scope.frontier.expanded()
    trees = depths(scope)
    # A person at depth d can still lie on a chain of d + 1 edges (its neighbour being the far end).
    deepest = scope.options.max_hops - 1
    best: tuple[tuple[float, int, int, str], Expansion] | None = None
    open_sides: set[Side] = set()
    for side, tree in trees.items():
        for key, depth in tree.items():
            seen = rounds.get(key, Rounds())
            if depth > deepest or seen.made >= ROUNDS_PER_PERSON or seen.empty or seen.complete:
                continue
            name = scope.person(key).name
            query = discovery_query(name, seen.made, order)
            if query is None:
                continue
            rank = (depth + REPEAT_PENALTY * seen.made, len(tree), -scope.graph.degree(key), key)
            open_sides.add(side)
            if best is None or rank < best[0]:
                best = (rank, Expansion(side=side, key=key, depth=depth, round=seen.made, query=query))
    if knobs.stop_when_end_unseen and len(open_sides) < 2:
        return None
    return best[1] if best else None


def bridge_target(scope: SearchScope, knobs: Knobs, side: Side, key: str, depth: int) -> str | None:
    """Whom to try `key` (at `depth` on `side`) against: a person of the other side as near its end as
    possible (the best connected among equals) whose depth keeps the chain within max hops, else the
    far end itself; None if every one of them was tried already.

    A person whose discovery listed every photo the engine has of them is never a target (nor is
    `key`, if that holds for it): a photo naming both would have been in that listing already.
    """
    far = scope.state.far_end(side).key
    spare = scope.options.max_hops - 1 - depth  # edges left on the other side after key—target
    listed = {k for k, r in scope.frontier.expanded().items() if r.complete}
    if spare < 0 or key in listed:
        return None
    choices: list[tuple[int, int, str]] = []
    if knobs.bridge_to_other_side and spare >= 1:
        tree = scope.graph.depths(far, spare)
        choices = sorted((d, -scope.graph.degree(k), k) for k, d in tree.items() if d >= 1 and k != key)
    for _, _, target in sorted([*choices, (0, 0, far)]):
        if target in listed or target in scope.graph.neighbors(key) or scope.frontier.bridged(key, target):
            continue
        return target
    return None


def tree_path(scope: SearchScope, side: Side, key: str) -> list[str]:
    return scope.graph.tree_path(roots(scope)[side], key, scope.options.max_hops) or [key]
