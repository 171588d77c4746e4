from __future__ import annotations

import math
import random
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from visual_degrees.domain.errors import ProviderError, TransientProviderError
from visual_degrees.domain.models import FetchedImage
from visual_degrees_tools.sandbox.captions import Kind
from visual_degrees_tools.sandbox.clock import EPOCH, VirtualClock
from visual_degrees_tools.sandbox.faults import FaultConfig, FaultInjector
from visual_degrees_tools.sandbox.fetcher import SandboxImageFetcher
from visual_degrees_tools.sandbox.ground_truth import ground_truth
from visual_degrees_tools.sandbox.layout import HEIGHT, WIDTH
from visual_degrees_tools.sandbox.noise import DEFAULT_NOISE
from visual_degrees_tools.sandbox.photoweb import PhotoWeb
from visual_degrees_tools.sandbox.recognizer import SandboxRecognizer
from visual_degrees_tools.sandbox.world import World


@pytest.fixture(scope="module")
def big_web() -> PhotoWeb:
    """A crowded world (casts of 10-40) so crowd shots are plentiful for the statistics."""
    rng = random.Random(5)
    people = [f"Person{i:04d}, Some" for i in range(1500)]
    events = [(f"Film {e} ({1950 + e % 50})", rng.sample(people, 10 + e % 31)) for e in range(160)]
    return PhotoWeb(World.from_events(events), seed=2)


def face_stats(web: PhotoWeb, kind: Kind) -> tuple[int, Counter[str]]:
    faces = 0
    outcome: Counter[str] = Counter()
    for photo in range(web.photo_count):
        if web.photo_kind[photo] != kind:
            continue
        faces += len(web.people_in(photo))
        for s in web.sightings(photo):
            if s.shown_as != s.person:
                outcome["lookalike"] += 1
                outcome["lookalike >= 80"] += s.confidence >= 80
            else:
                outcome["recognised"] += 1
                outcome[">= 95"] += s.confidence >= 95
                outcome["80-95"] += 80 <= s.confidence < 95
                outcome["< 80"] += s.confidence < 80
    return faces, outcome


def within(observed: int, trials: int, p: float) -> bool:
    """Observed count within four standard deviations of a binomial(trials, p)."""
    sigma = math.sqrt(trials * p * (1 - p))
    return abs(observed - trials * p) <= 4 * sigma + 1


@pytest.mark.parametrize("kind", [Kind.PORTRAIT, Kind.GROUP, Kind.CROWD])
def test_noise_statistics_stay_within_the_documented_model(big_web, kind):
    # Given every face of one photo kind
    faces, seen = face_stats(big_web, kind)
    model = DEFAULT_NOISE
    assert faces > 1000
    detected = model.detect[kind]
    # Then lookalikes are rare, at the model's rate, and only a minority of them reach 80
    assert within(seen["lookalike"], faces, detected * model.lookalike[kind])
    assert seen["lookalike >= 80"] <= max(3, 0.4 * seen["lookalike"])
    # And most faces are recognised; misses sit between the detection and recognition rates
    recognised = seen["recognised"] / faces
    assert detected * model.recognise_minor * 0.95 < recognised <= detected
    # And recognised faces mostly score in the high 90s, a minority below 80
    n = seen["recognised"]
    assert within(seen[">= 95"], n, model.high_share[kind])
    assert within(seen["80-95"], n, model.mid_share[kind])
    assert 0.02 < seen["< 80"] / n < 0.25
    assert seen[">= 95"] / n > 0.6


def test_famous_faces_are_recognised_more_often(big_web):
    assert (
        DEFAULT_NOISE.recognise_rate(40) > DEFAULT_NOISE.recognise_rate(3) > DEFAULT_NOISE.recognise_rate(1)
    )


def fetch_and_recognise(web: PhotoWeb, photo: int) -> list:
    image = SandboxImageFetcher(web).fetch(web.image_url(photo))
    return SandboxRecognizer(web).recognize(image)


def test_faces_are_the_true_cast_except_for_lookalikes(big_web):
    # Given many photos and what the recogniser says about them
    lookalikes = low = 0
    for photo in range(0, big_web.photo_count, 5):
        truth = ground_truth(big_web).truth(big_web.image_url(photo))
        for face in fetch_and_recognise(big_web, photo):
            # Then every face carries a real person's name and id; only lookalikes are strangers
            person = big_web.world.by_celebrity_id(face.celebrity_id)
            assert person is not None and big_web.world.name(person) == face.name
            lookalikes += face.celebrity_id not in truth
            low += face.confidence < 80
    # And all faces are returned, low confidences included, and lookalikes do happen
    assert low > 0 and lookalikes > 0


def test_a_lookalike_is_someone_else_and_stays_the_same(big_web):
    photo, sighting = next(
        (p, s) for p in range(big_web.photo_count) for s in big_web.sightings(p) if s.shown_as != s.person
    )
    assert sighting.shown_as not in big_web.people_in(photo)
    assert big_web.sightings(photo) == big_web.sightings(photo)


def test_boxes_match_the_boxes_drawn_in_the_svg(default_web):
    # Given a group photo whose faces are all recognised
    photo = next(
        p
        for p in range(default_web.photo_count)
        if len(default_web.people_in(p)) >= 3
        and len(default_web.sightings(p)) == len(default_web.people_in(p))
    )
    image = SandboxImageFetcher(default_web).fetch(default_web.image_url(photo))
    faces = SandboxRecognizer(default_web).recognize(image)
    # When the SVG's face rectangles are read back
    svg = ET.fromstring(image.data)
    rects = [r for r in svg.iter("{http://www.w3.org/2000/svg}rect") if r.get("stroke")]
    drawn = {(round(float(r.get("x")) / WIDTH, 2), round(float(r.get("y")) / HEIGHT, 2)) for r in rects}
    # Then every reported box is one drawn, labelled with who it truly is
    assert {(round(f.box.left, 2), round(f.box.top, 2)) for f in faces} == drawn
    labels = {t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")}
    assert {default_web.world.name(p) for p in default_web.people_in(photo)} <= labels


def test_the_recogniser_reads_the_image_not_the_url(default_web):
    # Given photo B's bytes under photo A's URL
    fetcher = SandboxImageFetcher(default_web)
    a, b = fetcher.fetch(default_web.image_url(0)), fetcher.fetch(default_web.image_url(1))
    swapped = b.model_copy(update={"url": a.url})
    recognizer = SandboxRecognizer(default_web)
    # Then it sees photo B
    assert recognizer.recognize(swapped) == recognizer.recognize(b)


def test_unreadable_images_are_provider_errors(default_web):
    junk = FetchedImage(
        url="https://x.test/a.jpg", data=b"\xff\xd8junk", content_type="image/jpeg", sha256="0"
    )
    with pytest.raises(ProviderError, match="InvalidImageFormat"):
        SandboxRecognizer(default_web).recognize(junk)


def test_recognition_charges_the_clock_and_can_be_throttled(default_web):
    clock = VirtualClock()
    image = SandboxImageFetcher(default_web).fetch(default_web.image_url(3))
    SandboxRecognizer(default_web, clock=clock).recognize(image)
    assert clock.now() == pytest.approx(EPOCH + 0.7)
    throttled = SandboxRecognizer(default_web, faults=FaultInjector(FaultConfig(recognize_throttle=1.0)))
    with pytest.raises(TransientProviderError, match="Throttling"):
        throttled.recognize(image)
