import json

from tests.support.fakes import face
from visual_degrees.domain.models import Evidence, Person
from visual_degrees.lifecycle.run_memory import MAX_EVIDENCE_PER_CANDIDATE, RunMemory
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory


def test_thousands_of_images_keep_every_item_small_and_every_count_right():
    # Given a frontier seen in 3,000 distinct images with 40 recurring co-stars
    memory = SqliteMemory(":memory:")
    mem = RunMemory(memory, "r1", 1800)
    costars = [Person.of(f"Costar {i}") for i in range(40)]
    for image in range(3_000):
        sha = f"{image:064x}"
        assert mem.frontier.first_sighting("frontier", sha)
        person = costars[image % 40]
        ev = Evidence(
            image_url=f"https://img/{image}", sha256=sha, confidence_a=90.0, confidence_b=80.0 + image % 20
        )
        mem.frontier.add_candidate_sighting("frontier", person, ev, proven=True)
        assert not mem.frontier.first_sighting("frontier", sha)  # a repeat of the same image is not counted
    # Then each candidate has its exact count and best confidence, with bounded evidence
    candidates = {c.name: c for c in mem.frontier.candidates("frontier")}
    assert len(candidates) == 40
    assert all(c.count == 75 for c in candidates.values())
    # (costar i is seen in images i, i+40, …, all at confidence 80 + i % 20)
    assert all(candidates[f"Costar {i}"].best_confidence == 80.0 + i % 20 for i in range(40))
    assert all(len(c.evidence) == MAX_EVIDENCE_PER_CANDIDATE for c in candidates.values())
    # And no single item grows with the number of images
    largest = max(len(json.dumps(i.data)) for i in memory.query("run#r1"))
    assert largest < 4_000


def test_pins_hold_the_first_identity_and_caches_round_trip():
    mem = RunMemory(SqliteMemory(":memory:"), "r1", 1800)
    assert mem.evidence.pin("kevin bacon", "id-1") == "id-1"
    assert mem.evidence.pin("kevin bacon", "id-2") == "id-1"
    mem.caches.cache_faces("sha", [face("Kevin Bacon", 97.0, "id-1")])
    assert mem.caches.cached_faces("sha")[0].celebrity_id == "id-1"
    assert mem.caches.cached_faces("other") is None


def test_journalled_decisions_are_replayed_not_recomputed():
    mem = RunMemory(SqliteMemory(":memory:"), "r1", 1800)
    calls = []
    first = mem.control.journal(3, "in_hand", lambda: calls.append(1) or True)
    again = mem.control.journal(3, "in_hand", lambda: calls.append(1) or False)
    assert (first, again, len(calls)) == (True, True, 1)
    assert mem.control.journal(4, "in_hand", lambda: False) is False


def test_shared_memory_of_one_photo_web_is_invisible_to_another():
    from visual_degrees.domain.models import Face, ImageHit
    from visual_degrees.lifecycle.run_memory import SharedMemory
    from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory

    store = SqliteMemory(":memory:")
    here, there = SharedMemory(store, "sandbox-1"), SharedMemory(store, "sandbox-2")
    here.cache_search("A B", 5, [ImageHit(image_url="u")])
    here.cache_fetch("u", {"sha256": "s"})
    here.cache_faces("s", [Face(name="A", celebrity_id="1", confidence=99)])
    assert here.search("A B", 5) is not None
    assert there.search("A B", 5) is None and there.fetch("u") is None and there.faces("s") is None
