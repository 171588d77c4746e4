"""How far the run got, as people read it: chains from A's side (and from B's), each link with the
photo that proves it (announced first, so no link is ever shown without its card)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from visual_degrees.search.evidence import announce
from visual_degrees.search.scope import SearchScope


def partial_paths(scope: SearchScope) -> tuple[list[str], list[str]]:
    """The longest chains of links the run holds from A, and from B (person keys, each starting at
    its end; [end] alone when nothing links to it)."""
    state = scope.state
    limit = scope.options.max_hops
    found = []
    for root in (state.person_a.key, state.person_b.key):
        depths = scope.graph.depths(root, limit)
        far = max(depths, key=lambda k: (depths[k], k)) if depths else root
        found.append(scope.graph.tree_path(root, far, limit) or [root])
    return found[0], found[1]


def partial_paths_payload(scope: SearchScope) -> dict[str, list[str]]:
    """How far each side got, for no_path and cancelled: `partialPath` reads from A, and
    `partialPathFromB` (only when B's side grew) from B."""
    from_a, from_b = partial_paths(scope)
    for keys in (from_a, from_b):
        for a, b in pairwise(keys):  # each link shown has its photo shown
            edge = scope.evidence.edge(a, b)
            if edge is not None:
                announce(scope, edge.oriented(a))
    payload = {"partialPath": [scope.person(k).name for k in from_a]}
    if len(from_b) > 1:
        payload["partialPathFromB"] = [scope.person(k).name for k in from_b]
    return payload


def chain_payload(scope: SearchScope, keys: list[str]) -> dict[str, Any]:
    """Names and links of a chain of links, each link's photo announced (once per photo)."""
    edges = []
    for a, b in pairwise(keys):
        edge = scope.evidence.edge(a, b)
        if edge is None:
            continue
        edge = edge.oriented(a)
        announce(scope, edge)
        edges.append(
            {
                "from": edge.name_a,
                "to": edge.name_b,
                "fromKey": edge.a,
                "toKey": edge.b,
                "imageUrl": edge.evidence.image_url,
                "pageUrl": edge.evidence.page_url,
                "event": edge.evidence.event,
                "confidence": round(edge.confidence, 2),
            }
        )
    return {"path": [scope.person(k).name for k in keys], "hop": len(keys) - 1, "edges": edges}


def show_progress(scope: SearchScope, x: str, y: str) -> None:
    """A `path_update` for the link x–y just proven: the chain of links it extends, read from A's
    side if it reaches A, else towards B if it reaches B, else the pair alone."""
    state = scope.state
    limit = scope.options.max_hops
    from_a = scope.graph.tree_path(state.person_a.key, x, limit)
    from_b = scope.graph.tree_path(state.person_b.key, y, limit)
    if from_a:
        keys, side = (from_a if y in from_a else [*from_a, y]), "A"
    elif from_b:
        keys, side = (from_b[::-1] if x in from_b else [x, *from_b[::-1]]), "B"
    else:
        keys, side = [x, y], ""
    scope.emit("path_update", {**chain_payload(scope, keys), "side": side})
