"""How far the run got, as people read it: chains from A's side (and from B's), each link with the
photo that proves it (announced first, so no link is ever shown without its card)."""

from __future__ import annotations

from functools import partial
from itertools import pairwise
from typing import Any

from visual_degrees.search.answer_chain import standing
from visual_degrees.search.evidence import announce
from visual_degrees.search.scope import SearchScope


def partial_paths(scope: SearchScope) -> tuple[list[str], list[str]]:
    """The longest chains of links the run holds from A, and from B (person keys, each starting at
    its end; [end] alone when nothing links to it), their reused links re-checked (answer_chain.py).
    Once a step: a second call would withdraw again what the first did."""
    state = scope.state
    found = []
    for side, root in (("a", state.person_a.key), ("b", state.person_b.key)):
        found.append(standing(scope, f"partial.{side}", partial(_longest, scope, root)) or [root])
    return found[0], found[1]


def _longest(scope: SearchScope, root: str) -> list[str]:
    limit = scope.options.max_hops
    depths = scope.graph.depths(root, limit)
    far = max(depths, key=lambda k: (depths[k], k)) if depths else root
    return scope.graph.tree_path(root, far, limit) or [root]


def partial_paths_payload(
    scope: SearchScope, paths: tuple[list[str], list[str]] | None = None
) -> dict[str, list[str]]:
    """How far each side got, for no_path and cancelled: `partialPath` reads from A, and
    `partialPathFromB` (only when B's side grew) from B; `paths`: partial_paths', if read already."""
    from_a, from_b = paths or partial_paths(scope)
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
    side if it reaches A, else towards B if it reaches B, else the pair alone (its reused links
    re-checked first: none is shown on a photo that is gone)."""
    sides: dict[str, str] = {}
    keys = standing(scope, "progress", partial(_progress, scope, x, y, sides))
    if keys is not None:
        scope.emit("path_update", {**chain_payload(scope, keys), "side": sides["side"]})


def _progress(scope: SearchScope, x: str, y: str, sides: dict[str, str]) -> list[str]:
    state = scope.state
    limit = scope.options.max_hops
    from_a = scope.graph.tree_path(state.person_a.key, x, limit)
    from_b = scope.graph.tree_path(state.person_b.key, y, limit)
    if from_a:
        keys, sides["side"] = (from_a if y in from_a else [*from_a, y]), "A"
    elif from_b:
        keys, sides["side"] = (from_b[::-1] if x in from_b else [x, *from_b[::-1]]), "B"
    else:
        keys, sides["side"] = [x, y], ""
    return keys
