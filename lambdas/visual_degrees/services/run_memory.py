"""Everything a run remembers beyond its small payload, one bounded item per fact.

Item layout under pk `run#<id>` (sk prefixes): `meta`, `cancel`, `budget`, `seq`, `ev#`/`evkey#` (event
log), `step#` (memoised step outputs), `pin#` (identity pins), `person#` (display names), `search#`,
`fetch#`, `rec#` (provider caches), `seen#` (images counted per frontier), `cand#` (candidates per
frontier), `tried#`, `edge#` (the run's verified graph), `plan#`, `expanded#`. Seen sets and candidates
are one item each, so a run with thousands of images never grows a single item.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from visual_degrees.domain.models import Edge, Evidence, Face, ImageHit, Person
from visual_degrees.domain.paths import edge_id
from visual_degrees.ports import Item, Memory, Put
from visual_degrees.services.event_log import run_pk

MAX_EVIDENCE_PER_CANDIDATE = 3
T = TypeVar("T")


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()


@dataclass
class Candidate:
    key: str
    name: str
    count: int
    best_confidence: float
    proven: bool  # some photo shows the frontier too, so the edge is already evidenced
    evidence: list[Evidence]


class RunMemory:
    def __init__(self, memory: Memory, run_id: str, ttl_seconds: int) -> None:
        self.memory = memory
        self.run_id = run_id
        self.pk = run_pk(run_id)
        self.ttl = ttl_seconds

    # ---- generic ---------------------------------------------------------------------------

    def _get(self, sk: str) -> dict[str, Any] | None:
        item = self.memory.get(self.pk, sk)
        return item.data if item else None

    def _put(self, sk: str, data: dict[str, Any], *, if_absent: bool = False) -> bool:
        return self.memory.put(Put(self.pk, sk, data, self.ttl, if_absent=if_absent))

    def _scan(self, prefix: str) -> list[Item]:
        return self.memory.query(self.pk, prefix)

    # ---- run lifecycle ---------------------------------------------------------------------

    def create(self, meta: dict[str, Any]) -> bool:
        return self._put("meta", meta, if_absent=True)

    def meta(self) -> dict[str, Any] | None:
        return self._get("meta")

    def update_meta(self, **changes: Any) -> None:
        current = self.meta() or {}
        self._put("meta", {**current, **changes})

    def request_cancel(self, at: float) -> None:
        self._put("cancel", {"requestedAt": at}, if_absent=True)

    def cancel_requested(self) -> bool:
        return self._get("cancel") is not None

    def step_output(self, step: int) -> dict[str, Any] | None:
        return self._get(f"step#{step:05d}")

    def save_step_output(self, step: int, output: dict[str, Any]) -> dict[str, Any]:
        """Memoise a step's output; if a concurrent attempt already did, its output wins."""
        if self._put(f"step#{step:05d}", output, if_absent=True):
            return output
        return self.step_output(step) or output

    def journal(self, step: int, name: str, choose: Callable[[], T]) -> T:
        """The value first recorded for (step, name); `choose` runs only if there is none yet."""
        sk = f"decide#{step:05d}#{name}"
        recorded = self._get(sk)
        if recorded is None:
            self._put(sk, {"value": choose()}, if_absent=True)
            recorded = self._get(sk) or {}
        value: T = recorded["value"]
        return value

    # ---- people and identity ---------------------------------------------------------------

    def remember_person(self, person: Person) -> None:
        self._put(f"person#{person.key}", {"name": person.name}, if_absent=True)

    def name_of(self, key: str) -> str | None:
        data = self._get(f"person#{key}")
        return data["name"] if data else None

    def names(self) -> dict[str, str]:
        return {i.sk.removeprefix("person#"): i.data["name"] for i in self._scan("person#")}

    def pinned_id(self, key: str) -> str | None:
        data = self._get(f"pin#{key}")
        return data["celebrityId"] if data else None

    def pin(self, key: str, celebrity_id: str) -> str:
        """Pin `key` to a celebrity id unless already pinned; returns the id that holds."""
        if self._put(f"pin#{key}", {"celebrityId": celebrity_id}, if_absent=True):
            return celebrity_id
        return self.pinned_id(key) or celebrity_id

    # ---- provider caches -------------------------------------------------------------------

    def cached_search(self, query: str) -> list[ImageHit] | None:
        data = self._get(f"search#{_digest(query)}")
        return None if data is None else [ImageHit.model_validate(h) for h in data["hits"]]

    def cache_search(self, query: str, hits: list[ImageHit]) -> None:
        self._put(f"search#{_digest(query)}", {"query": query, "hits": [h.dump() for h in hits]})

    def cached_fetch(self, url: str) -> dict[str, Any] | None:
        return self._get(f"fetch#{_digest(url)}")

    def cache_fetch(self, url: str, outcome: dict[str, Any]) -> None:
        self._put(f"fetch#{_digest(url)}", outcome)

    def cached_faces(self, sha256: str) -> list[Face] | None:
        data = self._get(f"rec#{sha256}")
        return None if data is None else [Face.model_validate(f) for f in data["faces"]]

    def cache_faces(self, sha256: str, faces: list[Face]) -> None:
        self._put(f"rec#{sha256}", {"faces": [f.dump() for f in faces]})

    # ---- candidates per frontier -----------------------------------------------------------

    def first_sighting(self, frontier: str, sha256: str) -> bool:
        """True the first time this image is counted for this frontier (idempotent across retries)."""
        return self._put(f"seen#{frontier}#{sha256}", {}, if_absent=True)

    def add_candidate_sighting(
        self, frontier: str, person: Person, evidence: Evidence, *, proven: bool
    ) -> None:
        sk = f"cand#{frontier}#{person.key}"
        data = self._get(sk) or {
            "name": person.name,
            "count": 0,
            "best": 0.0,
            "proven": False,
            "evidence": [],
        }
        kept = [*data["evidence"], evidence.dump()]
        kept.sort(key=lambda e: -min(e["confidenceA"], e["confidenceB"]))
        self._put(
            sk,
            {
                "name": data["name"],
                "count": data["count"] + 1,
                "best": max(data["best"], evidence.confidence_b),
                "proven": data["proven"] or proven,
                "evidence": kept[:MAX_EVIDENCE_PER_CANDIDATE],
            },
        )

    def candidates(self, frontier: str) -> list[Candidate]:
        prefix = f"cand#{frontier}#"
        return [
            Candidate(
                key=i.sk.removeprefix(prefix),
                name=i.data["name"],
                count=i.data["count"],
                best_confidence=i.data["best"],
                proven=i.data["proven"],
                evidence=[Evidence.model_validate(e) for e in i.data["evidence"]],
            )
            for i in self._scan(prefix)
        ]

    def mark_tried(self, frontier: str, candidate: str, verified: bool) -> None:
        self._put(f"tried#{frontier}#{candidate}", {"verified": verified})

    def tried(self, frontier: str) -> set[str]:
        prefix = f"tried#{frontier}#"
        return {i.sk.removeprefix(prefix) for i in self._scan(prefix)}

    def mark_expanded(self, key: str) -> None:
        self._put(f"expanded#{key}", {})

    def expanded(self) -> set[str]:
        return {i.sk.removeprefix("expanded#") for i in self._scan("expanded#")}

    # ---- plans -----------------------------------------------------------------------------

    def plan(self, frontier: str, round_no: int) -> dict[str, Any] | None:
        return self._get(f"plan#{frontier}#{round_no:03d}")

    def save_plan(self, frontier: str, round_no: int, plan: dict[str, Any]) -> None:
        self._put(f"plan#{frontier}#{round_no:03d}", plan)

    # ---- the verified graph ----------------------------------------------------------------

    def edge(self, a: str, b: str) -> Edge | None:
        data = self._get(f"edge#{edge_id(a, b)}")
        return None if data is None else Edge.model_validate(data)

    def add_edge(self, edge: Edge) -> bool:
        """Keep the strongest photo per pair. True if the pair is new (an `evidence` event is due)."""
        current = self.edge(edge.a, edge.b)
        if current is not None and current.confidence >= edge.confidence:
            return False
        self._put(f"edge#{edge_id(edge.a, edge.b)}", edge.dump())
        return current is None

    def edges(self) -> list[Edge]:
        return [Edge.model_validate(i.data) for i in self._scan("edge#")]
