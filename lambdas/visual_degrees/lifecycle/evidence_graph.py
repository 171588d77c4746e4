"""The deployment's evidence graph: its store over the Memory port (MemoryGraphStore, the GraphStore
of ports.py: SQLite locally, in the file `run` and `serve` keep run memory in; DynamoDB deployed, in
a table of its own with the same `pk`/`sk`/TTL layout), and the graph as one run sees it (KnownLinks:
its photo web, its clock, its id).

One item per link and one per adjacency entry, each small and bounded (a link is a few hundred
bytes; a person's adjacency is a partition of one item per neighbour, so a hub met by thousands of
runs never grows an item):

    pk `graph#<web>#link#<a>|<b>`  sk `link`        the GraphLink (a < b)
    pk `graph#<web>#adj#<a>`       sk `to#<b>`      Neighbour b of a (and the mirror under b)

`<web>` is a digest of the photo web's identity, so webs never share a key. Every item carries the
retention as its TTL, which the Memory port's reads honour before the store deletes it.
"""

from __future__ import annotations

import hashlib

from visual_degrees.domain.graph_links import GraphLink, Neighbour
from visual_degrees.domain.models import Edge
from visual_degrees.domain.paths import edge_id
from visual_degrees.ports import Clock, GraphStore, Memory, Put

DEFAULT_RETENTION_DAYS = 180
DAY_SECONDS = 24 * 3600
_LINK_SK = "link"


def web_digest(web: str) -> str:
    return hashlib.sha1(web.encode("utf-8"), usedforsecurity=False).hexdigest()[:16]


class MemoryGraphStore:
    def __init__(self, memory: Memory, *, retention_days: int = DEFAULT_RETENTION_DAYS) -> None:
        if retention_days < 1:
            raise ValueError(f"retention must be at least one day, got {retention_days}")
        self.memory = memory
        self.retention_seconds = retention_days * DAY_SECONDS

    def add(self, web: str, link: GraphLink) -> None:
        held = self.link(web, link.a, link.b)
        if held is not None and held.confidence > link.confidence:
            return
        ttl = self.retention_seconds
        w = web_digest(web)
        self.memory.put(Put(_link_pk(w, link.a, link.b), _LINK_SK, link.dump(), ttl))
        for here, there, name in ((link.a, link.b, link.name_b), (link.b, link.a, link.name_a)):
            entry = Neighbour(key=there, name=name, confidence=link.confidence, proven_at=link.proven_at)
            self.memory.put(Put(f"graph#{w}#adj#{here}", f"to#{there}", entry.dump(), ttl))

    def link(self, web: str, a: str, b: str) -> GraphLink | None:
        item = self.memory.get(_link_pk(web_digest(web), a, b), _LINK_SK)
        return None if item is None else GraphLink.model_validate(item.data)

    def neighbours(self, web: str, key: str, limit: int | None = None) -> list[Neighbour]:
        items = self.memory.query(f"graph#{web_digest(web)}#adj#{key}", "to#", limit=limit)
        return [Neighbour.model_validate(i.data) for i in items]

    def forget(self, web: str, a: str, b: str) -> None:
        w = web_digest(web)
        self.memory.delete(_link_pk(w, a, b), _LINK_SK)
        self.memory.delete(f"graph#{w}#adj#{a}", f"to#{b}")
        self.memory.delete(f"graph#{w}#adj#{b}", f"to#{a}")


def _link_pk(web: str, a: str, b: str) -> str:
    return f"graph#{web}#link#{edge_id(a, b)}"


class KnownLinks:
    """The evidence graph as one run sees it: only its photo web's links, proven on its clock."""

    def __init__(self, store: GraphStore, web: str, clock: Clock, run_id: str) -> None:
        self.store, self.web, self.clock, self.run_id = store, web, clock, run_id
        self._holds: dict[str, bool] = {}  # person key -> linked in the graph, as read (see holds)

    def remember(self, edge: Edge) -> None:
        """Keep a link this run proved. A link read from the graph is not kept again: only a new
        proof (a photo recognised now) starts its retention again."""
        if not edge.evidence.earlier_run:
            self.store.add(self.web, GraphLink.of(edge, proven_at=self.clock.now(), run_id=self.run_id))
            self._holds.update({edge.a: True, edge.b: True})

    def holds(self, key: str) -> bool:
        """Does the graph link `key` to anyone? Read once for the view's life (one step), kept up to
        date with what the step itself remembers and forgets."""
        if key not in self._holds:
            self._holds[key] = bool(self.neighbours(key, 1))
        return self._holds[key]

    def neighbours(self, key: str, limit: int | None = None) -> list[Neighbour]:
        return self.store.neighbours(self.web, key, limit)

    def link(self, a: str, b: str) -> GraphLink | None:
        return self.store.link(self.web, a, b)

    def edge(self, a: str, b: str) -> Edge | None:
        """The link a–b as an edge oriented from a, marked as from an earlier run."""
        link = self.link(a, b)
        return None if link is None else link.edge().oriented(a)

    def forget(self, a: str, b: str) -> None:
        self.store.forget(self.web, a, b)
        for end in (a, b):  # it may have been the end's only link
            self._holds.pop(end, None)
