"""Gemini planner through google-genai: one `generate_content` per `plan()` or `connect()`, JSON by
response schema (the request's wire model).

The SDK gets an httpx client we build (so tests inject a transport and the timeout is ours) and
`attempts=1`: transport retries happen here, honouring Retry-After / RetryInfo, under the same
bounded policy as the other adapters. Validation feedback retries belong to the S3 step.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
from pydantic import SecretStr

from visual_degrees.adapters.live.defaults import DEFAULT_GEMINI_MODEL
from visual_degrees.adapters.live.http_retry import (
    DEFAULT_RETRY,
    RETRYABLE_STATUS,
    THROTTLED_STATUS,
    RetryableFailure,
    RetryPolicy,
    parse_retry_after,
)
from visual_degrees.adapters.live.planner_prompt import (
    PlannerPrompt,
    PromptedPlanner,
    ProviderAnswer,
    ReplyFormat,
    reported_tokens,
)
from visual_degrees.domain.errors import ConfigurationError, ProviderError

_RETRY_DELAY = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


class GeminiPlanner(PromptedPlanner):
    def __init__(
        self,
        api_key: SecretStr | str | None,
        *,
        model: str = DEFAULT_GEMINI_MODEL,
        base_url: str | None = None,
        api_version: str | None = None,
        timeout_seconds: float = 30.0,
        thinking_level: str | None = "low",
        max_output_tokens: int = 1024,
        temperature: float = 0.2,
        client: Any | None = None,
        http_client: httpx.Client | None = None,
        retry: RetryPolicy = DEFAULT_RETRY,
    ) -> None:
        self._key = api_key if isinstance(api_key, SecretStr) or api_key is None else SecretStr(api_key)
        self._model = model
        self._base_url = base_url
        self._api_version = api_version
        self._timeout = timeout_seconds
        self._thinking_level = thinking_level
        self._max_output_tokens = max_output_tokens
        self._temperature = temperature
        self._client = client
        self._http_client = http_client
        self._retry = retry

    @property
    def model(self) -> str:
        return self._model

    @property
    def who(self) -> str:
        return f"Gemini {self._model}"

    def _genai(self) -> Any:
        if self._client is None:
            from google import genai
            from google.genai import types

            key = self._key.get_secret_value().strip() if self._key is not None else ""
            if not key:
                raise ConfigurationError("the Gemini planner needs an API key (VD_GEMINI_API_KEY)")
            http = self._http_client or httpx.Client(timeout=httpx.Timeout(self._timeout, connect=5.0))
            options = types.HttpOptions(
                base_url=self._base_url,
                api_version=self._api_version,
                timeout=int(self._timeout * 1000),  # the SDK counts milliseconds
                httpx_client=http,
                retry_options=types.HttpRetryOptions(attempts=1),
            )
            self._client = genai.Client(api_key=key, http_options=options)
        return self._client

    def _config(self, system: str, schema: type[Any]) -> Any:
        from google.genai import types

        thinking = (
            types.ThinkingConfig(thinking_level=self._thinking_level.upper())
            if self._thinking_level
            else None
        )
        return types.GenerateContentConfig(
            system_instruction=system,
            response_mime_type="application/json",
            response_schema=schema,
            temperature=self._temperature,
            max_output_tokens=self._max_output_tokens,
            candidate_count=1,
            thinking_config=thinking,
        )

    def _send(self, prompt: PlannerPrompt, answer: ReplyFormat[Any, Any]) -> ProviderAnswer:
        client = self._genai()
        config = self._config(prompt.system, answer.model)

        def attempt() -> Any:
            return _generate(client, self._model, prompt.user, config)

        return answer_from_response(self._retry.run(attempt, what=self.who))

    def check_model(self) -> str:
        """Doctor check: look the model up (free), which proves the key and the model id."""
        from google.genai import errors

        client = self._genai()

        def attempt() -> Any:
            try:
                return client.models.get(model=self._model)
            except errors.APIError as exc:
                raise _mapped(exc, self._model) from None
            except httpx.TimeoutException:
                raise RetryableFailure("timed out") from None
            except httpx.TransportError as exc:
                raise RetryableFailure(f"connection failed ({type(exc).__name__})") from None

        found = self._retry.run(attempt, what=self.who)
        return f"model {getattr(found, 'name', None) or self._model} available"


def _generate(client: Any, model: str, user: str, config: Any) -> Any:
    from google.genai import errors

    try:
        return client.models.generate_content(model=model, contents=user, config=config)
    except errors.APIError as exc:
        raise _mapped(exc, model) from None
    except httpx.TimeoutException:
        raise RetryableFailure("timed out") from None
    except httpx.TransportError as exc:
        raise RetryableFailure(f"connection failed ({type(exc).__name__})") from None
    except ValueError as exc:  # the SDK's UnknownApiResponseError: the body was not JSON
        raise ProviderError(f"Gemini answered something unreadable: {type(exc).__name__}") from None


def _mapped(exc: Any, model: str) -> Exception:
    code = int(getattr(exc, "code", 0) or 0)
    status = str(getattr(exc, "status", "") or "")
    message = str(getattr(exc, "message", "") or "").lower()
    if code in (401, 403) or "api key" in message or status in ("UNAUTHENTICATED", "PERMISSION_DENIED"):
        return ConfigurationError(f"Gemini rejected the API key or project (HTTP {code} {status})")
    if code == 404:
        return ConfigurationError(f"Gemini model {model!r} not found (HTTP 404): check VD_GEMINI_MODEL")
    if code in RETRYABLE_STATUS:
        return RetryableFailure(
            f"HTTP {code} {status}".strip(), _retry_hint(exc), throttled=code == THROTTLED_STATUS
        )
    return ProviderError(f"Gemini refused the request (HTTP {code} {status})")


def _retry_hint(exc: Any) -> float | None:
    """Retry-After, else google.rpc.RetryInfo's retryDelay ("37s") from the error body."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is not None:
        explicit = parse_retry_after(headers.get("retry-after"))
        if explicit is not None:
            return explicit
    details = getattr(exc, "details", None)
    error = details.get("error", details) if isinstance(details, dict) else None
    for item in (error or {}).get("details", []) if isinstance(error, dict) else []:
        if isinstance(item, dict) and str(item.get("@type", "")).endswith("RetryInfo"):
            match = _RETRY_DELAY.match(str(item.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None


def answer_from_response(response: Any) -> ProviderAnswer:
    """A GenerateContentResponse as an answer: `parsed` when the SDK managed, else the text for our
    own parse; token usage from usage_metadata (thinking tokens are billed as output)."""
    usage = getattr(response, "usage_metadata", None)
    prompt_tokens = reported_tokens(getattr(usage, "prompt_token_count", None))
    output_tokens = reported_tokens(getattr(usage, "candidates_token_count", None))
    thoughts = reported_tokens(getattr(usage, "thoughts_token_count", None))
    return ProviderAnswer(
        text=_text(response),
        tokens_in=prompt_tokens,
        tokens_out=None
        if output_tokens is None and thoughts is None
        else (output_tokens or 0) + (thoughts or 0),
        structured=getattr(response, "parsed", None),
        stop=_stop_reason(response),
    )


def _text(response: Any) -> str | None:
    try:
        text = response.text  # None when there is no candidate; may warn on non-text parts
    except (ValueError, AttributeError):
        return None
    return text if isinstance(text, str) else None


def _stop_reason(response: Any) -> str:
    feedback = getattr(response, "prompt_feedback", None)
    if feedback is not None and getattr(feedback, "block_reason", None):
        return f"prompt blocked: {feedback.block_reason}"
    candidates = getattr(response, "candidates", None) or []
    if candidates and getattr(candidates[0], "finish_reason", None):
        return f"finish reason {candidates[0].finish_reason}"
    return "no candidates"
