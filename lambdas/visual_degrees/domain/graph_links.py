"""What the deployment's evidence graph keeps about one proven link: the two people (keys, names,
the recogniser's celebrity ids), both confidences, the photo (image URL, page, title, sha256), when
it was proven and by which run. No face data: no boxes, no image bytes.

A link is stored once, read from either end; `edge()` gives it back as the run's Edge with its
evidence marked as from an earlier run, with the date it was proven.
"""

from __future__ import annotations

from datetime import UTC, datetime

from visual_degrees.domain.models import Edge, Evidence, Model


class GraphLink(Model):
    a: str  # the smaller person key of the two: one stored orientation per pair
    b: str
    name_a: str
    name_b: str
    id_a: str
    id_b: str
    confidence_a: float
    confidence_b: float
    image_url: str
    page_url: str = ""
    title: str = ""
    sha256: str = ""
    proven_at: float  # seconds since the epoch, on the clock of the run that proved it
    run_id: str = ""

    @classmethod
    def of(cls, edge: Edge, *, proven_at: float, run_id: str) -> GraphLink:
        e = edge if edge.a <= edge.b else edge.oriented(edge.b)
        ev = e.evidence
        return cls(
            a=e.a,
            b=e.b,
            name_a=e.name_a,
            name_b=e.name_b,
            id_a=ev.id_a,
            id_b=ev.id_b,
            confidence_a=ev.confidence_a,
            confidence_b=ev.confidence_b,
            image_url=ev.image_url,
            page_url=ev.page_url,
            title=ev.title,
            sha256=ev.sha256,
            proven_at=proven_at,
            run_id=run_id,
        )

    @property
    def confidence(self) -> float:
        return min(self.confidence_a, self.confidence_b)

    def other(self, key: str) -> str:
        return self.b if key == self.a else self.a

    def edge(self) -> Edge:
        """The link as a run's edge, its evidence saying it comes from an earlier run and when."""
        evidence = Evidence(
            image_url=self.image_url,
            page_url=self.page_url,
            title=self.title,
            sha256=self.sha256,
            confidence_a=self.confidence_a,
            confidence_b=self.confidence_b,
            id_a=self.id_a,
            id_b=self.id_b,
            proven_at=proven_date(self.proven_at),
            earlier_run=True,
        )
        return Edge(a=self.a, b=self.b, name_a=self.name_a, name_b=self.name_b, evidence=evidence)


class Neighbour(Model):
    """One entry of a person's adjacency: who, by which link's strength, proven when."""

    key: str
    name: str
    confidence: float
    proven_at: float


def proven_date(at: float) -> str:
    """The date a link was proven, as shown beside its photo (ISO 8601, UTC, to the second)."""
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
