"""Evidence as it is stored and sent (domain/models.py): `rechecked` only where it applies."""

from __future__ import annotations

from visual_degrees.domain.models import Edge, Evidence

PHOTO = {"image_url": "https://photos.test/a-b.jpg", "confidence_a": 99.0, "confidence_b": 98.0}


def test_evidence_the_run_proved_is_dumped_without_rechecked() -> None:
    # Given a photo this run recognised, and a link an earlier run proved, not re-checked yet
    for ev in (Evidence(**PHOTO), Evidence(**PHOTO, earlier_run=True, proven_at="2026-01-02T03:04:05Z")):
        # When it is stored or sent, on its own or as an edge's
        edge = Edge(a="a", b="b", name_a="A", name_b="B", evidence=ev)
        # Then nothing says it was re-checked, and it reads back as it was
        assert "rechecked" not in ev.dump() and "rechecked" not in edge.dump()["evidence"]
        assert Evidence.model_validate(ev.dump()) == ev


def test_a_re_checked_link_says_so_and_reads_back_shown() -> None:
    ev = Evidence(**PHOTO, earlier_run=True, proven_at="2026-01-02T03:04:05Z", rechecked=True)
    dumped = Edge(a="a", b="b", name_a="A", name_b="B", evidence=ev).dump()["evidence"]
    assert dumped["rechecked"] is True and dumped["earlierRun"] is True
    back = Evidence.model_validate(dumped)
    assert back == ev and back.shown
