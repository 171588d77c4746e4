"""Everything a run remembers beyond its small payload, one bounded item per fact.

Item layout under pk `run#<id>` (sk prefixes): `meta`, `cancel`, `budget`, `seq`, `ev#`/`evkey#` (event
log), `step#` (memoised step outputs), `pin#` (identity pins), `person#` (display names), `search#`,
`fetch#`, `rec#` (provider caches), `seen#` (images counted per frontier), `cand#` (candidates per
frontier), `tried#`, `edge#` (the run's verified graph, one photo per pair) and `link#` (its compact
projection, see run_graph.py), `plan#`, `expanded#` (discovery searches per person), `decide#`.
Seen sets and candidates are one item each, so a run with thousands of images never grows a single
item. The items are read and written by concern: `RunControl` (meta, cancel, step outputs, journal),
`RunCaches` (provider answers), `RunFrontier` (candidates, tries, rounds, plans) and `RunEvidence`
(people, pins, the verified graph); `RunMemory` bundles the four.

`SharedMemory` is what outlives a run, in the same store under its own keys: provider answers
(search results, an image URL's sha256, the faces found in an image by sha256), so a question asked
again, or overlapping an earlier one, does not pay twice; the links runs proved are the evidence
graph's (evidence_graph.py). All of it is scoped to one photo web (`Providers.web`): a photo proves
a link only in the web it was found in.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from visual_degrees.domain.journal import CandidatePlan
from visual_degrees.domain.models import Edge, Evidence, Face, ImageHit, Person
from visual_degrees.domain.paths import edge_id
from visual_degrees.domain.records import RunMeta
from visual_degrees.lifecycle.event_log import run_pk
from visual_degrees.ports import Item, Memory, Put

MAX_EVIDENCE_PER_CANDIDATE = 3
T = TypeVar("T")


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()


query_digest = _digest  # how a page's query is keyed (quota#, page#)


@dataclass
class Candidate:
    key: str
    name: str
    count: int
    best_confidence: float
    proven: bool  # some photo shows the frontier too, so the edge is already evidenced
    evidence: list[Evidence]


@dataclass(frozen=True)
class Rounds:
    """Discovery rounds about one person: how many, how many found no photo at all, and whether one
    of them listed every photo the engine has of them (so another round would only repeat it)."""

    made: int = 0
    empty: int = 0
    complete: bool = False


class RunItems:
    """One run's items in the store (pk `run#<id>`), each with the run's TTL."""

    def __init__(self, memory: Memory, run_id: str, ttl_seconds: int) -> None:
        self.memory = memory
        self.run_id = run_id
        self.pk = run_pk(run_id)
        self.ttl = ttl_seconds

    def _get(self, sk: str) -> dict[str, Any] | None:
        item = self.memory.get(self.pk, sk)
        return item.data if item else None

    def _put(self, sk: str, data: dict[str, Any], *, if_absent: bool = False) -> bool:
        return self.memory.put(Put(self.pk, sk, data, self.ttl, if_absent=if_absent))

    def _scan(self, prefix: str) -> list[Item]:
        return self.memory.query(self.pk, prefix)


class RunControl(RunItems):
    """The run's lifecycle: meta, the cancel flag, memoised step outputs and journalled decisions."""

    def create(self, meta: RunMeta) -> bool:
        return self._put("meta", meta.stored(), if_absent=True)

    def meta(self) -> RunMeta | None:
        data = self._get("meta")
        return None if data is None else RunMeta.model_validate(data)

    def update_meta(self, **changes: Any) -> RunMeta:
        """The meta with `changes` (RunMeta's field names), written back."""
        meta = (self.meta() or RunMeta()).updated(**changes)
        self._put("meta", meta.stored())
        return meta

    def request_cancel(self, at: float) -> None:
        self._put("cancel", {"requestedAt": at}, if_absent=True)

    def cancel_requested(self) -> bool:
        return self._get("cancel") is not None

    def cancel_requested_at(self) -> float | None:
        """When a client first asked to cancel (None: nobody has)."""
        data = self._get("cancel")
        return float(data.get("requestedAt", 0.0)) if data is not None else None

    def step_output(self, step: int) -> dict[str, Any] | None:
        return self._get(f"step#{step:05d}")

    def last_step(self) -> int:
        """The highest step number the run has memoised (-1: none): a continuation counts on."""
        items = self._scan("step#")
        return int(items[-1].sk.removeprefix("step#")) if items else -1

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


class RunCaches(RunItems):
    """What the providers answered this run: search results, fetch outcomes, faces per image."""

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


class RunFrontier(RunItems):
    """Where the search stands: candidates seen per frontier, who was tried, discovery rounds per
    person, doubted and bridged pairs, and the planner's order per frontier and round."""

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

    def mark_expanded(self, key: str, round_no: int, *, hits: int, complete: bool) -> None:
        """Record discovery round `round_no` about `key`: how many photos it returned, and whether
        that was all the engine had (fewer than asked). Keyed by round, so a re-run step records
        the same fact again rather than counting it twice."""
        self._put(f"expanded#{key}#{round_no:02d}", {"hits": hits, "complete": complete})

    def expanded(self) -> dict[str, Rounds]:
        """Per person: the discovery rounds made about them."""
        rounds: dict[str, Rounds] = {}
        for item in self._scan("expanded#"):
            key = item.sk.removeprefix("expanded#").rpartition("#")[0]
            seen = rounds.get(key, Rounds())
            rounds[key] = Rounds(
                made=seen.made + 1,
                empty=seen.empty + (0 if item.data.get("hits") else 1),
                complete=seen.complete or bool(item.data.get("complete")),
            )
        return rounds

    def doubt(self, a: str, b: str) -> None:
        """A pair seen in one weak photo that a search for a second one did not confirm."""
        self._put(f"doubt#{edge_id(a, b)}", {})

    def doubted(self) -> set[str]:
        return {i.sk.removeprefix("doubt#") for i in self._scan("doubt#")}

    def mark_bridged(self, a: str, b: str) -> bool:
        """True the first time the pair a–b is tried as a bridge."""
        return self._put(f"bridged#{edge_id(a, b)}", {}, if_absent=True)

    def bridged(self, a: str, b: str) -> bool:
        return self._get(f"bridged#{edge_id(a, b)}") is not None

    def plan(self, frontier: str, round_no: int) -> CandidatePlan | None:
        data = self._get(f"plan#{frontier}#{round_no:03d}")
        return None if data is None else CandidatePlan.model_validate(data)

    def save_plan(self, frontier: str, round_no: int, plan: CandidatePlan) -> None:
        self._put(f"plan#{frontier}#{round_no:03d}", plan.dump())


class RunEvidence(RunItems):
    """Who is who and what proves it: display names, identity pins, and the verified graph (one
    photo per pair, `edge#`, and its compact projection, `link#`, kept by run_graph.RunGraph)."""

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

    def put_edge(self, edge: Edge) -> None:
        self._put(f"edge#{edge_id(edge.a, edge.b)}", edge.dump())

    def drop_edge(self, a: str, b: str) -> None:
        """The pair's edge leaves the run (a reused link whose photo is gone)."""
        self.memory.delete(self.pk, f"edge#{edge_id(a, b)}")

    def keep_out(self, a: str, b: str) -> None:
        """No link reused from an earlier run for a–b is taken in this run (see RunGraph.keep_out)."""
        self._put(f"out#{edge_id(a, b)}", {})

    def kept_out(self) -> set[str]:
        return {i.sk.removeprefix("out#") for i in self._scan("out#")}

    def put_links(self, sk: str, links: list[list[Any]]) -> None:
        self._put(sk, {"links": links})

    def edges(self) -> list[Edge]:
        return [Edge.model_validate(i.data) for i in self._scan("edge#")]

    def shown_edges(self) -> list[Edge]:
        """The edges a client may be shown and an answer may claim: proven by this run, or reused
        from an earlier run and re-checked by this one (Evidence.shown)."""
        return [e for e in self.edges() if e.evidence.shown]

    def shown_edge(self, a: str, b: str) -> Edge | None:
        """The edge a–b if a client may be shown it (see shown_edges)."""
        edge = self.edge(a, b)
        return edge if edge is not None and edge.evidence.shown else None

    def edges_after(self, after: str | None, limit: int) -> list[tuple[str, Edge]]:
        """Up to `limit` edges in id order after the edge id `after` (None: from the first), with
        their ids: the verified graph read in pages."""
        items = self.memory.query(self.pk, "edge#", after=f"edge#{after}" if after else None, limit=limit)
        return [(i.sk.removeprefix("edge#"), Edge.model_validate(i.data)) for i in items]

    def link_chunks(self, prefix: str) -> list[list[list[Any]]]:
        return [item.data.get("links", []) for item in self._scan(prefix)]


class RunLeads(RunItems):
    """What captions and the planner suggest, and what came of it: every page of results read
    (`page#`: the query, who it was about, its hits with titles), photos recognised (`looked#`,
    each charged to one page: at most images_per_search a page), the planner's hunches (`hunch#`),
    pairs that no photo proved (`nolink#`) and the planner's calls (`asked#`). One item per fact; a
    page holds at most one request's results (Brave: 200 titles, well under an item's 400 KB)."""

    def save_page(self, query: str, subjects: list[str], hits: list[ImageHit], at: float) -> None:
        self._put(
            f"page#{_digest(query)}",
            {
                "query": query,
                "subjects": subjects,
                "at": at,
                "hits": [[h.image_url, h.page_url, h.title] for h in hits],
            },
            if_absent=True,
        )

    def pages(self) -> list[dict[str, Any]]:
        """Every page read, in the order they were read."""
        return sorted(
            (item.data for item in self._scan("page#")), key=lambda d: (d.get("at", 0.0), d["query"])
        )

    def has_page(self, query: str) -> bool:
        return self._get(f"page#{_digest(query)}") is not None

    def mark_looked(self, url: str, page: str) -> str:
        """Record that the photo at `url` is recognised, charged to the page of query `page` (the
        first charge holds: a re-run step charges nothing twice). The page it is charged to."""
        self._put(f"looked#{_digest(url)}", {"url": url, "page": page}, if_absent=True)
        data = self._get(f"looked#{_digest(url)}") or {}
        return str(data.get("page", page))

    def looked(self) -> dict[str, str]:
        """Photos recognised so far, each with the query of the page it was charged to."""
        return {str(i.data["url"]): str(i.data.get("page", "")) for i in self._scan("looked#")}

    def add_hunch(self, a: str, b: str, data: dict[str, Any]) -> bool:
        """Keep a planner's hunch that a and b met (the first one about a pair holds)."""
        return self._put(f"hunch#{edge_id(a, b)}", {"a": a, "b": b, **data}, if_absent=True)

    def add_user_hunch(self, a: str, b: str, data: dict[str, Any]) -> None:
        """Keep the user's hint that a and b met (source "user"), over any planner hunch about the
        pair: a user's hint is checked first (chains.pair_cost)."""
        self._put(f"hunch#{edge_id(a, b)}", {"a": a, "b": b, **data, "source": "user"})

    def hunches(self) -> list[dict[str, Any]]:
        return [item.data for item in self._scan("hunch#")]

    def mark_nolink(self, a: str, b: str) -> None:
        """No photo we could find proves a–b: stop spending on the pair."""
        self._put(f"nolink#{edge_id(a, b)}", {})

    def nolinks(self) -> set[str]:
        return {i.sk.removeprefix("nolink#") for i in self._scan("nolink#")}

    def record_ask(self, number: int, data: dict[str, Any]) -> None:
        self._put(f"asked#{number:03d}", data, if_absent=True)

    def asks(self) -> list[dict[str, Any]]:
        return [item.data for item in self._scan("asked#")]


class RunMemory:
    """Everything a run remembers, by concern; each part is also usable on its own."""

    def __init__(self, memory: Memory, run_id: str, ttl_seconds: int) -> None:
        self.control = RunControl(memory, run_id, ttl_seconds)
        self.caches = RunCaches(memory, run_id, ttl_seconds)
        self.frontier = RunFrontier(memory, run_id, ttl_seconds)
        self.evidence = RunEvidence(memory, run_id, ttl_seconds)
        self.leads = RunLeads(memory, run_id, ttl_seconds)


class SharedMemory:
    """What runs share: provider answers, each fact one item under its own key
    (so no partition grows hot and no item grows unbounded), each with a TTL of its own.

    Search results age fastest (the web changes); what a URL served and what an image shows change
    rarely (Rekognition answers the same bytes the same way).
    """

    SEARCH_TTL = 24 * 3600
    FETCH_TTL = 7 * 24 * 3600
    FACES_TTL = 30 * 24 * 3600

    def __init__(self, memory: Memory, web: str) -> None:
        self.memory = memory
        # Every key carries the photo web's digest: one memory may serve several webs (sandbox
        # worlds and seeds, or the live web), and their answers must never mix.
        self.prefix = f"shared#{_digest(web)[:16]}#"

    def _get(self, pk: str) -> dict[str, Any] | None:
        item = self.memory.get(self.prefix + pk, "v")
        return item.data if item else None

    def _put(self, pk: str, data: dict[str, Any], ttl: int, sk: str = "v") -> None:
        self.memory.put(Put(self.prefix + pk, sk, data, ttl))

    def search(self, query: str, count: int) -> list[ImageHit] | None:
        data = self._get(f"search#{_digest(f'{count}|{query}')}")
        return None if data is None else [ImageHit.model_validate(h) for h in data["hits"]]

    def cache_search(self, query: str, count: int, hits: list[ImageHit]) -> None:
        self._put(
            f"search#{_digest(f'{count}|{query}')}",
            {"hits": [h.dump() for h in hits]},
            self.SEARCH_TTL,
        )

    def fetch(self, url: str) -> dict[str, Any] | None:
        return self._get(f"fetch#{_digest(url)}")

    def cache_fetch(self, url: str, outcome: dict[str, Any]) -> None:
        self._put(f"fetch#{_digest(url)}", outcome, self.FETCH_TTL)

    def faces(self, sha256: str) -> list[Face] | None:
        data = self._get(f"faces#{sha256}")
        return None if data is None else [Face.model_validate(f) for f in data["faces"]]

    def cache_faces(self, sha256: str, faces: list[Face]) -> None:
        self._put(f"faces#{sha256}", {"faces": [f.dump() for f in faces]}, self.FACES_TTL)

    # ---- titles earlier runs read, by whom they name (a lead, never a link) -------------------

    def titles_naming(self, key: str, limit: int) -> list[ImageHit]:
        """Results earlier runs' pages held whose titles name this person with someone else."""
        items = self.memory.query(self.prefix + f"titles#{key}", limit=limit)
        return [ImageHit.model_validate(i.data) for i in items]

    def note_titles(self, by_person: Mapping[str, Sequence[ImageHit]]) -> None:
        """Keep results under each person their titles name: one item per person and photo (no
        read before the write, no item that grows), keyed so a photo read again by another run is
        the same item, all written in one batch (Memory.put_all). Kept as long as a fetched image:
        a lead is checked by fetching and recognising its photo before anything counts."""
        puts: dict[tuple[str, str], Put] = {}
        for key, hits in by_person.items():
            pk = self.prefix + f"titles#{key}"
            for hit in hits:
                sk = _digest(hit.image_url)[:24]
                puts.setdefault((pk, sk), Put(pk, sk, hit.dump(), self.FETCH_TTL))
        self.memory.put_all(list(puts.values()))

    # ---- what an earlier question on this web came to, and what its planner said ---------------

    def planner_links(self, signature: str) -> list[dict[str, Any]] | None:
        """The planner's links for a request of this signature, as an earlier run had them."""
        data = self._get(f"planner#{signature}")
        return None if data is None else list(data["links"])

    def keep_planner_links(self, signature: str, links: list[dict[str, Any]]) -> None:
        self._put(f"planner#{signature}", {"links": links}, self.SEARCH_TTL)

    def unsolved(self, a: str, b: str) -> dict[str, Any] | None:
        """How the last run about a–b that ended without a chain ended (None: none did lately)."""
        return self._get(f"unsolved#{edge_id(a, b)}")

    def remember_unsolved(self, a: str, b: str, ending: dict[str, Any]) -> None:
        # As long as the pages it read are kept: a repeat after that pays for them again anyway.
        self._put(f"unsolved#{edge_id(a, b)}", ending, self.SEARCH_TTL)
