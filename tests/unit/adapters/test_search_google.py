"""Google Programmable Search (image) against canned answers of the real shape (no sockets)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.wire import Handler, Wire
from visual_degrees.adapters.live.http_retry import RetryPolicy
from visual_degrees.adapters.live.search_google import GoogleImageSearch
from visual_degrees.domain.errors import (
    ConfigurationError,
    ProviderError,
    ProviderThrottled,
    TransientProviderError,
)
from visual_degrees.domain.models import ImageHit

KEY = "AIza-google-secret-key"
CX = "0123456789abcdef0"


def item(n: int) -> dict[str, Any]:
    return {
        "kind": "customsearch#result",
        "title": f"Photo {n}",
        "htmlTitle": f"<b>Photo</b> {n}",
        "link": f"https://img.example/{n}.jpg",
        "displayLink": "img.example",
        "snippet": "snippet",
        "mime": "image/jpeg",
        "fileFormat": "image/jpeg",
        "image": {
            "contextLink": f"https://news.example/{n}",
            "height": 800,
            "width": 1200,
            "byteSize": 123456,
            "thumbnailLink": f"https://encrypted-tbn0.gstatic.com/images?q={n}",
            "thumbnailHeight": 100,
            "thumbnailWidth": 150,
        },
    }


def document(items: list[dict[str, Any]] | None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "kind": "customsearch#search",
        "queries": {"request": [{"searchType": "image"}]},
        "searchInformation": {"totalResults": str(len(items or []))},
    }
    if items is not None:
        doc["items"] = items
    return doc


def google_error(status: int, reason: str, message: str = "error", rpc_status: str = "") -> Handler:
    body = {"error": {"code": status, "message": message, "errors": [{"reason": reason, "domain": "global"}]}}
    if rpc_status:
        body["error"]["status"] = rpc_status
    return lambda _r: httpx.Response(status, json=body)


def search_with(wire: Wire, key: str | None = KEY, cx: str | None = CX) -> GoogleImageSearch:
    client = httpx.Client(transport=httpx.MockTransport(wire))
    retry = RetryPolicy(max_attempts=3, base_delay=0.0, max_delay=5.0, sleep=lambda _s: None)
    return GoogleImageSearch(
        key, cx, endpoint="https://google.test/customsearch/v1", client=client, retry=retry
    )


def test_items_map_to_hits_and_the_key_travels_in_a_header() -> None:
    # Given three image items
    wire = Wire(lambda _r: httpx.Response(200, json=document([item(1), item(2), item(3)])))
    # When asking for two
    hits = search_with(wire).search("Kevin Bacon Tom Hanks", 2)
    # Then the image link and its context page come through
    assert hits == [
        ImageHit(image_url="https://img.example/1.jpg", page_url="https://news.example/1", title="Photo 1"),
        ImageHit(image_url="https://img.example/2.jpg", page_url="https://news.example/2", title="Photo 2"),
    ]
    sent = wire.requests[0]
    assert sent.url.params["searchType"] == "image"
    assert sent.url.params["cx"] == CX
    assert sent.url.params["num"] == "2"
    assert sent.headers["x-goog-api-key"] == KEY
    assert KEY not in str(sent.url)  # never in a URL, where access logs would keep it


def test_num_is_capped_at_ten() -> None:
    wire = Wire(lambda _r: httpx.Response(200, json=document([item(n) for n in range(10)])))
    assert len(search_with(wire).search("q", 50)) == 10
    assert wire.requests[0].url.params["num"] == "10"


def test_no_items_means_no_hits() -> None:
    assert search_with(Wire(lambda _r: httpx.Response(200, json=document(None)))).search("q", 5) == []


@pytest.mark.parametrize(
    "handler",
    [
        lambda _r: httpx.Response(200, text="not json"),
        lambda _r: httpx.Response(200, json=[1, 2]),
        lambda _r: httpx.Response(200, json={"items": {"link": "x"}}),
    ],
)
def test_malformed_answers_are_provider_errors(handler: Handler) -> None:
    with pytest.raises(ProviderError):
        search_with(Wire(handler)).search("q", 5)


def test_invalid_key_is_a_configuration_error() -> None:
    wire = Wire(
        google_error(400, "badRequest", "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT")
    )
    with pytest.raises(ConfigurationError) as caught:
        search_with(wire).search("q", 5)
    assert KEY not in str(caught.value)
    assert len(wire.requests) == 1


def test_api_not_enabled_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError):
        search_with(Wire(google_error(403, "accessNotConfigured"))).search("q", 5)


def test_rate_limit_is_retried_as_one_logical_call() -> None:
    wire = Wire(
        google_error(429, "rateLimitExceeded"), lambda _r: httpx.Response(200, json=document([item(1)]))
    )
    assert len(search_with(wire).search("q", 5)) == 1
    assert len(wire.requests) == 2


def test_a_rate_limit_that_lasts_ends_throttled() -> None:
    wire = Wire(google_error(429, "rateLimitExceeded"))
    with pytest.raises(ProviderThrottled):
        search_with(wire).search("q", 5)
    assert len(wire.requests) == 3


def test_daily_quota_is_transient_without_retrying() -> None:
    wire = Wire(
        google_error(
            429, "rateLimitExceeded", "Quota exceeded for quota metric 'Queries' and limit 'Queries per day'"
        )
    )
    with pytest.raises(ProviderThrottled, match="daily quota") as refused:  # not billed
        search_with(wire).search("q", 5)
    assert refused.value.retry_after is not None and refused.value.retry_after >= 3600
    assert len(wire.requests) == 1


def test_server_errors_and_timeouts_end_transient() -> None:
    def timeout(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectTimeout("slow", request=request)

    for handler in (lambda _r: httpx.Response(500, text="oops"), timeout):
        wire = Wire(handler)
        with pytest.raises(TransientProviderError):
            search_with(wire).search("q", 5)
        assert len(wire.requests) == 3


def test_other_4xx_is_a_provider_error() -> None:
    with pytest.raises(ProviderError):
        search_with(Wire(google_error(400, "invalid", "Invalid value", "INVALID_ARGUMENT"))).search("q", 5)


@pytest.mark.parametrize(("key", "cx"), [(None, CX), (KEY, None), ("", CX)])
def test_missing_key_or_engine_is_a_configuration_error(key: str | None, cx: str | None) -> None:
    wire = Wire(lambda _r: httpx.Response(200, json=document([])))
    with pytest.raises(ConfigurationError, match="VD_GOOGLE"):
        search_with(wire, key=key, cx=cx).search("q", 5)
    assert wire.requests == []
