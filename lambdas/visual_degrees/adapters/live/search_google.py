"""Google Programmable Search (Custom Search JSON API, `searchType=image`) behind ImageSearch.

Closed to new customers and sunset for existing ones on 2027-01-01; kept for those who have it.
The key travels in the `x-goog-api-key` header rather than `?key=`, so URL logs never show it.
"""

from __future__ import annotations

from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict, SecretStr, ValidationError

from visual_degrees.adapters.live.defaults import GOOGLE_CSE_ENDPOINT
from visual_degrees.adapters.live.http_retry import (
    DEFAULT_RETRY,
    JsonApi,
    RetryableFailure,
    RetryPolicy,
    request_json,
)
from visual_degrees.domain.errors import ConfigurationError, ProviderError, ProviderThrottled
from visual_degrees.domain.models import ImageHit

DAILY_RESET_SECONDS = 3600.0  # at least this long until a spent daily quota comes back

MAX_NUM = 10  # the API refuses num > 10
_KEY_REASONS = {
    "keyinvalid",
    "keyexpired",
    "apikeyinvalid",
    "apikeyexpired",
    "accessnotconfigured",
    "servicedisabled",
    "forbidden",
}
_DAILY_REASONS = {"dailylimitexceeded", "quotaexceeded"}
_RATE_REASONS = {"ratelimitexceeded", "userratelimitexceeded"}


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Image(_Lenient):
    contextLink: str | None = None  # the API's field name


class _Item(_Lenient):
    link: str | None = None
    title: str | None = None
    image: _Image | None = None


class GoogleImageSearch(JsonApi):
    page_size = MAX_NUM  # results one paid request returns (Custom Search: at most 10)

    def __init__(
        self,
        api_key: SecretStr | str | None,
        cx: str | None,
        *,
        endpoint: str = GOOGLE_CSE_ENDPOINT,
        safe: str = "active",
        client: httpx.Client | None = None,
        timeout: httpx.Timeout | None = None,
        retry: RetryPolicy = DEFAULT_RETRY,
    ) -> None:
        super().__init__(api_key, client=client, timeout=timeout, retry=retry)
        self._cx = cx
        self._endpoint = endpoint
        self._safe = safe

    def search(self, query: str, count: int) -> list[ImageHit]:
        key = self._api_key()
        if not key or not self._cx:
            raise ConfigurationError(
                "Google image search needs an API key and an engine id (VD_GOOGLE_API_KEY, VD_GOOGLE_CX)"
            )
        if not query.strip():
            raise ProviderError("Google image search: empty query")
        wanted = max(1, min(count, MAX_NUM))
        answer = request_json(
            self._http(),
            self._endpoint,
            what="Google image search",
            policy=self._retry,
            params={"q": query, "cx": self._cx, "searchType": "image", "num": wanted, "safe": self._safe},
            headers={"Accept": "application/json", "x-goog-api-key": key},
            interpret=_interpret_error,
        )
        return _hits(answer, wanted)


def _hits(answer: Any, wanted: int) -> list[ImageHit]:
    if not isinstance(answer, dict):
        raise ProviderError("Google image search: answer is not a JSON object")
    items = answer.get("items", [])  # absent when nothing matched
    if not isinstance(items, list):
        raise ProviderError("Google image search: items is not a list")
    hits: list[ImageHit] = []
    seen: set[str] = set()
    for raw in items:
        try:
            item = _Item.model_validate(raw)
        except ValidationError:
            continue
        link = item.link
        if not link or not link.startswith(("http://", "https://")) or link in seen:
            continue
        seen.add(link)
        page = item.image.contextLink if item.image and item.image.contextLink else ""
        hits.append(ImageHit(image_url=link, page_url=page, title=item.title or ""))
        if len(hits) == wanted:
            break
    return hits


def _interpret_error(response: httpx.Response) -> None:
    """Google's error body: {"error": {"code", "message", "status", "errors": [{"reason"}]}}."""
    status_text, reasons, message = _error_details(response)
    if reasons & _DAILY_REASONS or (response.status_code == 429 and "per day" in message):
        # Refused, so not billed; no retry helps before the quota resets (midnight Pacific time).
        raise ProviderThrottled("Google image search: daily quota exhausted", retry_after=DAILY_RESET_SECONDS)
    if reasons & _RATE_REASONS and response.status_code in (403, 429):
        raise RetryableFailure(f"HTTP {response.status_code} (rate limited)", throttled=True)
    if reasons & _KEY_REASONS or "api key not valid" in message:
        raise ConfigurationError("Google image search: API key or engine id rejected")
    if response.status_code == 400 and status_text == "INVALID_ARGUMENT" and "cx" in message:
        raise ConfigurationError("Google image search: engine id (cx) rejected")


def _error_details(response: httpx.Response) -> tuple[str, set[str], str]:
    try:
        body = response.json()
    except ValueError:
        return "", set(), ""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return "", set(), ""
    reasons = {
        str(e.get("reason", "")).lower()
        for e in error.get("errors", [])
        if isinstance(e, dict) and e.get("reason")
    }
    for detail in error.get("details", []) or []:
        if isinstance(detail, dict) and detail.get("reason"):
            reasons.add(str(detail["reason"]).lower().replace("_", ""))
    return str(error.get("status", "")), reasons, str(error.get("message", "")).lower()
