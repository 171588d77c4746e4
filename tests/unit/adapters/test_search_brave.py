"""Brave image search against canned answers of the real shape (no sockets)."""

from __future__ import annotations

import httpx
import pytest

from tests.support.fake_wire_servers import FakeHit, brave_document
from tests.support.wire import Handler, Wire
from visual_degrees.adapters.live.http_retry import RetryPolicy
from visual_degrees.adapters.live.search_brave import BraveImageSearch
from visual_degrees.domain.errors import (
    ConfigurationError,
    ProviderError,
    ProviderThrottled,
    TransientProviderError,
)
from visual_degrees.domain.models import ImageHit

TOKEN = "brave-secret-token-123"
ENDPOINT = "https://brave.test/res/v1/images/search"


def search_with(wire: Wire, sleeps: list[float] | None = None, key: str | None = TOKEN) -> BraveImageSearch:
    client = httpx.Client(transport=httpx.MockTransport(wire))
    retry = RetryPolicy(
        max_attempts=3, base_delay=0.1, max_delay=5.0, sleep=(sleeps if sleeps is not None else []).append
    )
    return BraveImageSearch(key, endpoint=ENDPOINT, client=client, retry=retry)


def ok(document: object) -> Handler:
    return lambda _request: httpx.Response(200, json=document)


def error(status: int, code: str = "", **headers: str) -> Handler:
    body = {"type": "ErrorResponse", "error": {"id": "x", "status": status, "code": code, "detail": "d"}}
    return lambda _request: httpx.Response(status, json=body, headers=headers)


HITS = [
    FakeHit("https://img.example/a.jpg", "https://news.example/a", "Kevin Bacon and Tom Hanks"),
    FakeHit("https://img.example/b.jpg", "https://news.example/b", "Premiere"),
    FakeHit("https://img.example/c.jpg", "https://news.example/c", "Gala"),
]


def test_results_map_to_image_hits_and_the_request_has_the_documented_parameters() -> None:
    # Given Brave answering with three image results
    wire = Wire(ok(brave_document("Kevin Bacon Tom Hanks", HITS)))
    # When we ask for two
    hits = search_with(wire).search("Kevin Bacon Tom Hanks", 2)
    # Then the original image URL, page URL and title come through, capped at the count
    assert hits == [
        ImageHit(
            image_url="https://img.example/a.jpg",
            page_url="https://news.example/a",
            title="Kevin Bacon and Tom Hanks",
        ),
        ImageHit(image_url="https://img.example/b.jpg", page_url="https://news.example/b", title="Premiere"),
    ]
    sent = wire.requests[0]
    assert sent.url.path == "/res/v1/images/search"
    assert sent.url.params["q"] == "Kevin Bacon Tom Hanks"
    assert sent.url.params["count"] == "2"
    assert sent.url.params["safesearch"] == "strict"
    assert sent.url.params["spellcheck"] == "false"
    assert sent.headers["x-subscription-token"] == TOKEN
    assert TOKEN not in str(sent.url)


def test_empty_results_are_an_empty_list() -> None:
    assert search_with(Wire(ok(brave_document("nobody", [])))).search("nobody", 5) == []


def test_odd_entries_are_skipped_and_duplicates_collapsed() -> None:
    document = brave_document("q", HITS[:1])
    document["results"] += [
        {"type": "image_result", "properties": "not an object"},
        {"type": "image_result", "title": "no url at all"},
        {"type": "image_result", "properties": {"url": "ftp://img.example/x.jpg"}},
        {"type": "image_result", "thumbnail": {"src": "https://imgs.search.brave.com/t.jpg"}},
        document["results"][0],
    ]
    hits = search_with(Wire(ok(document))).search("q", 10)
    assert [h.image_url for h in hits] == ["https://img.example/a.jpg", "https://imgs.search.brave.com/t.jpg"]


@pytest.mark.parametrize(
    "handler",
    [
        lambda _r: httpx.Response(200, text="<html>gateway</html>"),
        lambda _r: httpx.Response(200, json=["not", "an", "object"]),
        lambda _r: httpx.Response(200, json={"type": "images", "results": "nope"}),
    ],
)
def test_malformed_answers_are_provider_errors(handler: Handler) -> None:
    with pytest.raises(ProviderError):
        search_with(Wire(handler)).search("q", 5)


def test_invalid_token_is_a_configuration_error_not_retried() -> None:
    wire = Wire(error(422, "SUBSCRIPTION_TOKEN_INVALID"))
    with pytest.raises(ConfigurationError, match="token rejected") as caught:
        search_with(wire).search("q", 5)
    assert len(wire.requests) == 1
    assert TOKEN not in str(caught.value)


@pytest.mark.parametrize("status", [401, 403])
def test_unauthorised_is_a_configuration_error(status: int) -> None:
    with pytest.raises(ConfigurationError):
        search_with(Wire(error(status, "UNAUTHORIZED"))).search("q", 5)


def test_other_4xx_is_a_provider_error_not_retried() -> None:
    wire = Wire(error(400, "VALIDATION"))
    with pytest.raises(ProviderError):
        search_with(wire).search("q", 5)
    assert len(wire.requests) == 1


def test_429_backs_off_by_the_rate_limit_reset_and_is_one_logical_call() -> None:
    # Given a per-second window exhausted once, then an answer
    sleeps: list[float] = []
    wire = Wire(
        error(
            429, "RATE_LIMITED", **{"X-RateLimit-Remaining": "0, 14000", "X-RateLimit-Reset": "1, 1419704"}
        ),
        ok(brave_document("q", HITS)),
    )
    # When we search once
    hits = search_with(wire, sleeps).search("q", 5)
    # Then we waited for the window's reset and got the answer: one search for the caller's budget
    assert len(hits) == 3
    assert sleeps == [1.0]
    assert len(wire.requests) == 2


def test_exhausted_monthly_quota_stops_without_waiting() -> None:
    sleeps: list[float] = []
    wire = Wire(
        error(429, "RATE_LIMITED", **{"X-RateLimit-Remaining": "5, 0", "X-RateLimit-Reset": "1, 1419704"})
    )
    with pytest.raises(TransientProviderError, match="asked to wait"):
        search_with(wire, sleeps).search("q", 5)
    assert sleeps == []
    assert len(wire.requests) == 1


def test_persistent_429_gives_up_after_the_bounded_attempts() -> None:
    sleeps: list[float] = []
    wire = Wire(error(429, "RATE_LIMITED", **{"Retry-After": "0.5"}))
    with pytest.raises(ProviderThrottled, match="429"):  # refused, so not billed
        search_with(wire, sleeps).search("q", 5)
    assert len(wire.requests) == 3
    assert sleeps == [0.5, 0.5]


def test_5xx_is_retried_then_succeeds() -> None:
    wire = Wire(lambda _r: httpx.Response(502, text="bad gateway"), ok(brave_document("q", HITS)))
    assert len(search_with(wire).search("q", 5)) == 3
    assert len(wire.requests) == 2


def test_timeouts_become_a_transient_error_after_retries() -> None:
    def timeout(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    wire = Wire(timeout)
    with pytest.raises(TransientProviderError, match="timed out"):
        search_with(wire).search("q", 5)
    assert len(wire.requests) == 3


@pytest.mark.parametrize("key", [None, "", "   "])
def test_missing_key_is_a_configuration_error_before_any_request(key: str | None) -> None:
    wire = Wire(ok(brave_document("q", HITS)))
    with pytest.raises(ConfigurationError, match="VD_BRAVE_API_KEY"):
        search_with(wire, key=key).search("q", 5)
    assert wire.requests == []


@pytest.mark.parametrize("query", ["", "   ", "word " * 51, "x" * 401])
def test_unusable_queries_are_refused_before_paying(query: str) -> None:
    wire = Wire(ok(brave_document("q", HITS)))
    with pytest.raises(ProviderError):
        search_with(wire).search(query, 5)
    assert wire.requests == []


def test_the_key_is_not_in_the_adapters_repr() -> None:
    assert TOKEN not in repr(search_with(Wire(ok({}))).__dict__)
