"""Brave Image Search (`GET /res/v1/images/search`, `X-Subscription-Token`) behind ImageSearch."""

from __future__ import annotations

from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict, SecretStr, ValidationError

from visual_degrees.adapters.live.defaults import BRAVE_IMAGES_ENDPOINT
from visual_degrees.adapters.live.http_retry import (
    DEFAULT_RETRY,
    JsonApi,
    RetryableFailure,
    RetryPolicy,
    parse_retry_after,
    request_json,
)
from visual_degrees.domain.errors import ConfigurationError, ProviderError
from visual_degrees.domain.models import ImageHit

MAX_COUNT = 200  # the API's limit for image results
MAX_QUERY_CHARS = 400
MAX_QUERY_WORDS = 50


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Thumbnail(_Lenient):
    src: str | None = None


class _Properties(_Lenient):
    url: str | None = None


class _Result(_Lenient):
    title: str | None = None
    url: str | None = None  # the page the image was found on
    properties: _Properties | None = None
    thumbnail: _Thumbnail | None = None


class BraveImageSearch(JsonApi):
    page_size = MAX_COUNT  # results one paid request returns (up to 200 images, one price)

    def __init__(
        self,
        api_key: SecretStr | str | None,
        *,
        endpoint: str = BRAVE_IMAGES_ENDPOINT,
        safesearch: str = "strict",
        client: httpx.Client | None = None,
        timeout: httpx.Timeout | None = None,
        retry: RetryPolicy = DEFAULT_RETRY,
    ) -> None:
        super().__init__(api_key, client=client, timeout=timeout, retry=retry)
        self._endpoint = endpoint
        self._safesearch = safesearch

    def search(self, query: str, count: int) -> list[ImageHit]:
        key = self._api_key()
        if not key:
            raise ConfigurationError("Brave image search needs an API key (VD_BRAVE_API_KEY)")
        _check_query(query)
        wanted = max(1, min(count, MAX_COUNT))
        answer = request_json(
            self._http(),
            self._endpoint,
            what="Brave image search",
            policy=self._retry,
            params={
                "q": query,
                "count": wanted,
                "safesearch": self._safesearch,
                "spellcheck": "false",  # a "corrected" name would search for somebody else
            },
            headers={"Accept": "application/json", "X-Subscription-Token": key},
            interpret=_interpret_error,
        )
        return _hits(answer, wanted)


def _check_query(query: str) -> None:
    if not query.strip():
        raise ProviderError("Brave image search: empty query")
    if len(query) > MAX_QUERY_CHARS or len(query.split()) > MAX_QUERY_WORDS:
        raise ProviderError(
            f"Brave image search: query longer than {MAX_QUERY_CHARS} chars / {MAX_QUERY_WORDS} words"
        )


def _hits(answer: Any, wanted: int) -> list[ImageHit]:
    results = answer.get("results") if isinstance(answer, dict) else None
    if not isinstance(results, list):
        raise ProviderError("Brave image search: answer has no results list")
    hits: list[ImageHit] = []
    seen: set[str] = set()
    for raw in results:
        try:
            result = _Result.model_validate(raw)
        except ValidationError:
            continue  # one odd entry does not spoil the others
        image_url = (result.properties.url if result.properties else None) or (
            result.thumbnail.src if result.thumbnail else None
        )
        if not image_url or not image_url.startswith(("http://", "https://")) or image_url in seen:
            continue
        seen.add(image_url)
        hits.append(ImageHit(image_url=image_url, page_url=result.url or "", title=result.title or ""))
        if len(hits) == wanted:
            break
    return hits


def _interpret_error(response: httpx.Response) -> None:
    """Brave reports a bad token as 422 SUBSCRIPTION_TOKEN_INVALID and limits via X-RateLimit-*."""
    code = _error_code(response)
    if "TOKEN" in code or "SUBSCRIPTION" in code:
        raise ConfigurationError(f"Brave image search: subscription token rejected ({code})")
    if response.status_code == 429:
        raise RetryableFailure("HTTP 429 (rate limited)", _rate_limit_wait(response), throttled=True)


def _error_code(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return ""
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code.upper() if isinstance(code, str) else ""


def _rate_limit_wait(response: httpx.Response) -> float | None:
    """Retry-After if given; else the reset time of the longest exhausted window
    (X-RateLimit-Remaining / -Reset list one value per window, e.g. "1, 1419704")."""
    explicit = parse_retry_after(response.headers.get("retry-after"))
    if explicit is not None:
        return explicit
    remaining = _numbers(response.headers.get("x-ratelimit-remaining"))
    resets = _numbers(response.headers.get("x-ratelimit-reset"))
    exhausted = [reset for left, reset in zip(remaining, resets, strict=False) if left <= 0]
    if exhausted:
        return max(exhausted)
    return min(resets) if resets else None


def _numbers(header: str | None) -> list[float]:
    values = []
    for part in (header or "").split(","):
        try:
            values.append(float(part.strip()))
        except ValueError:
            continue
    return values
