"""The live adapters, built from Settings exactly as in production, against fake Brave, fake
Rekognition and an image server on 127.0.0.1 that speak the real wire formats."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.support.fake_wire_servers import (
    CelebrityFace,
    FakeBraveSearch,
    FakeGemini,
    FakeHit,
    FakeRekognition,
    StaticImageServer,
    photo_bytes,
)
from tests.support.planner_cases import ROUTE, connect_context
from visual_degrees.adapters.live.defaults import DEFAULT_GEMINI_MODEL
from visual_degrees.adapters.live.providers import build_live_providers
from visual_degrees.config import Settings
from visual_degrees.domain.errors import ConfigurationError, ProviderError, TransientProviderError
from visual_degrees.domain.planning import (
    CandidateSummary,
    PlannerContext,
    validate_connect,
    validate_reply,
)
from visual_degrees.ports import Providers
from visual_degrees_tools.doctor import format_report, run_doctor

TOKEN = "wire-test-token"
PAIR = "Kevin Bacon Tom Hanks"


@dataclass
class Wire:
    brave: FakeBraveSearch
    rekognition: FakeRekognition
    images: StaticImageServer
    settings: Settings

    def providers(self) -> Providers:
        return build_live_providers(self.settings)


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> Iterator[Wire]:
    with (
        FakeBraveSearch(token=TOKEN) as brave,
        FakeRekognition() as rekognition,
        StaticImageServer() as images,
    ):
        # boto3's standard endpoint override and dummy credentials: the adapter code is unchanged.
        monkeypatch.setenv("AWS_ENDPOINT_URL_REKOGNITION", rekognition.url)
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
        settings = Settings(
            brave_api_key=TOKEN,
            brave_endpoint=brave.endpoint,
            fetch_allow_networks="127.0.0.1/32",
            retry_base_delay=0.0,
            retry_max_delay=1.0,
        )
        yield Wire(brave, rekognition, images, settings)


def test_search_fetch_recognise_end_to_end(wire: Wire) -> None:
    # Given a photo of both people, and a WebP of one of them, found by the pair query
    both = photo_bytes("both")
    solo = photo_bytes("solo", fmt="WEBP")
    wire.rekognition.register(
        both, [CelebrityFace("Kevin Bacon", "1R7Vj9", 99.1), CelebrityFace("Tom Hanks", "2Ab3Cd", 96.4)]
    )
    wire.rekognition.register(solo, [CelebrityFace("Kevin Bacon", "1R7Vj9", 90.0)], unrecognized=2)
    wire.brave.add(
        PAIR,
        [
            FakeHit(wire.images.add("/both.jpg", both), "https://news.example/both", "Bacon and Hanks"),
            FakeHit(wire.images.add("/solo.webp", solo, "image/webp"), "https://news.example/solo", "Bacon"),
        ],
    )
    providers = wire.providers()
    # When the live adapters search, fetch and recognise
    hits = providers.search.search(PAIR, 5)
    results = [providers.recognizer.recognize(providers.fetcher.fetch(hit.image_url)) for hit in hits]
    # Then every photo is recognised as registered (the WebP after conversion to JPEG)
    assert [h.title for h in hits] == ["Bacon and Hanks", "Bacon"]
    assert [[(f.name, f.celebrity_id, f.confidence) for f in faces] for faces in results] == [
        [("Kevin Bacon", "1R7Vj9", 99.1), ("Tom Hanks", "2Ab3Cd", 96.4)],
        [("Kevin Bacon", "1R7Vj9", 90.0)],
    ]
    # And the requests were the real wire format: token header, signed JSON-1.1 calls
    assert wire.brave.searches[0].query["count"] == ["5"]
    call = wire.rekognition.calls[0]
    assert call.headers["content-type"] == "application/x-amz-json-1.1"
    assert call.headers["authorization"].startswith("AWS4-HMAC-SHA256")


def test_rate_limits_and_throttling_are_absorbed_as_one_logical_call(wire: Wire) -> None:
    data = photo_bytes("throttled")
    wire.rekognition.register(data, [CelebrityFace("Meg Ryan", "3Ef", 93.0)])
    wire.brave.add("Meg Ryan", [FakeHit(wire.images.add("/m.jpg", data))])
    wire.brave.fail_next(
        429, "RATE_LIMITED", headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "0"}
    )
    wire.rekognition.fail_next("ThrottlingException", times=2)
    providers = wire.providers()
    hits = providers.search.search("Meg Ryan", 5)
    faces = providers.recognizer.recognize(providers.fetcher.fetch(hits[0].image_url))
    assert [f.name for f in faces] == ["Meg Ryan"]
    assert len(wire.brave.searches) == 2
    assert len(wire.rekognition.calls) == 3


def test_provider_failures_surface_as_domain_errors(wire: Wire) -> None:
    data = photo_bytes("failing")
    url = wire.images.add("/f.jpg", data)
    providers = wire.providers()
    image = providers.fetcher.fetch(url)
    wire.rekognition.fail_next("AccessDeniedException")
    with pytest.raises(ConfigurationError):
        providers.recognizer.recognize(image)
    wire.rekognition.fail_next("InvalidImageFormatException")
    with pytest.raises(ProviderError):
        providers.recognizer.recognize(image)
    wire.rekognition.fail_next("InternalServerError", status=500, times=3)
    with pytest.raises(TransientProviderError):
        providers.recognizer.recognize(image)
    wire.brave.fail_next(503, "SERVICE_UNAVAILABLE", times=3)
    with pytest.raises(TransientProviderError):
        providers.search.search(PAIR, 5)


def test_a_wrong_token_is_a_configuration_error(wire: Wire) -> None:
    bad = build_live_providers(Settings(brave_api_key="not-the-token", brave_endpoint=wire.brave.endpoint))
    with pytest.raises(ConfigurationError, match="SUBSCRIPTION_TOKEN_INVALID"):
        bad.search.search(PAIR, 5)


def test_the_doctor_probes_the_wire_servers(wire: Wire) -> None:
    checks = {c.provider: c for c in run_doctor(wire.settings)}
    assert checks["brave"].ok and checks["brave"].reachable
    assert checks["rekognition"].ok and checks["rekognition"].detail == "reachable, credentials accepted"
    assert checks["gemini"].configured is False
    assert wire.rekognition.calls  # the probe really went over the wire
    assert TOKEN not in format_report(list(checks.values()))


def test_the_gemini_planner_runs_against_a_base_url_on_127_0_0_1() -> None:
    # Given a Gemini double and settings pointing the live planner at it
    with FakeGemini() as gemini:
        settings = Settings(
            brave_api_key=TOKEN,
            gemini_api_key="test-gemini-key",
            gemini_base_url=gemini.url,
            retry_base_delay=0.0,
        )
        planner = build_live_providers(settings).planner
        assert planner is not None
        ctx = PlannerContext(
            target="Tom Hanks",
            frontier="Kevin Bacon",
            candidates=[
                CandidateSummary(name="Meg Ryan", count=3, best_confidence=97.0),
                CandidateSummary(name="Bill Paxton", count=1, best_confidence=88.0),
            ],
        )
        gemini.fail_next(429)
        # When planning (one 429 absorbed)
        reply = planner.plan(ctx)
        # Then the reply validates against what was offered, and tokens were counted
        plan, errors = validate_reply(reply, ctx)
        assert errors == [] and plan is not None
        assert plan.candidates == ["Meg Ryan", "Bill Paxton"]
        assert reply.tokens_in > 0 and reply.tokens_out > 0
        assert len(gemini.calls) == 2
        assert gemini.calls[-1].path.endswith(f"/models/{DEFAULT_GEMINI_MODEL}:generateContent")
        # And a garbled answer is a provider error for the S3 step to count and retry
        gemini.reply_text = "not json"
        with pytest.raises(ProviderError):
            planner.plan(ctx)


def test_the_gemini_planner_connects_the_sides_against_a_base_url_on_127_0_0_1() -> None:
    with FakeGemini(connect=lambda data: json.loads(ROUTE)) as gemini:
        settings = Settings(
            brave_api_key=TOKEN,
            gemini_api_key="test-gemini-key",
            gemini_base_url=gemini.url,
            retry_base_delay=0.0,
        )
        planner = build_live_providers(settings).planner
        assert planner is not None and hasattr(planner, "connect")
        ctx = connect_context("Meg Ryan")
        gemini.fail_next(503, "UNAVAILABLE")
        # When connecting (one 503 absorbed): pairs that validate, tokens as the server reported
        reply = planner.connect(ctx)
        links, errors = validate_connect(reply, ctx)
        assert errors == [] and links is not None and len(links) == 2
        assert gemini.kinds == ["connect"] and len(gemini.calls) == 2
        assert reply.tokens_in == sum(gemini.reported("promptTokenCount"))
        body = json.loads(gemini.calls[-1].body)
        assert set(body["generationConfig"]["responseSchema"]["properties"]) == {"links", "narration"}
        # And prose is a provider error for the service to count and feed back
        gemini.reply_text = "Gary Sinise worked with both."
        with pytest.raises(ProviderError, match="no usable JSON list of links"):
            planner.connect(ctx)
