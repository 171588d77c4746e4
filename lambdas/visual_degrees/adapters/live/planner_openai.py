"""Planner for OpenAI-compatible chat endpoints: Ollama, vLLM, LM Studio, llama.cpp's server, or
OpenAI itself. One `POST {base}/chat/completions` per `plan()` or `connect()` (the base URL
includes `/v1`).

Two parts, the transport and the requests:
- `ChatEndpoint` is the transport: messages in, the reply's text and token usage out. It owns the
  key (a Bearer token, optional: local servers rarely want one), timeouts, the bounded retries on
  408/429/5xx (honouring Retry-After), the error mapping, and structured output: it asks for
  `response_format` `json_schema` (strict) first, and when the server refuses that with a 400/422
  naming the response format (servers differ: LM Studio takes no `json_object`, older vLLM and
  Ollama builds no `json_schema`), it asks again at once with `json_object`, then with none, and
  remembers what the server took for as long as the instance lives.
- `OpenAICompatiblePlanner` sends either request (planner_prompt: the shared prompts and reply
  formats) as a system and a user message asking for that request's schema; the reply is read by
  the shared parser (fences and preambles tolerated), token usage from `usage` or estimated when
  the server reports none. Validation and the feedback retry belong to the services, as for every
  provider.

The base URL is operator configuration (VD_OPENAI_BASE_URL), trusted like the other configurable
endpoints and usually a private address (a GPU box, a sidecar), so it does not go through the
image fetcher's public-address guard; it never comes from a user, and redirects are not followed.
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx
from pydantic import SecretStr

from visual_degrees.adapters.live.defaults import DEFAULT_OPENAI_RESPONSE_FORMAT
from visual_degrees.adapters.live.http_retry import (
    DEFAULT_RETRY,
    RETRYABLE_STATUS,
    RetryPolicy,
    request_json,
    retryable_status,
)
from visual_degrees.adapters.live.planner_prompt import (
    PlannerPrompt,
    PromptedPlanner,
    ProviderAnswer,
    ReplyFormat,
    reported_tokens,
)
from visual_degrees.constants import ENV_PREFIX
from visual_degrees.domain.errors import ConfigurationError, ProviderError

logger = logging.getLogger(__name__)

ResponseFormat = Literal["json_schema", "json_object", "none"]
# The order structured output degrades in when a server refuses a response_format.
RESPONSE_FORMATS: tuple[ResponseFormat, ...] = ("json_schema", "json_object", "none")

BASE_URL_VARIABLE = f"{ENV_PREFIX}OPENAI_BASE_URL"
MODEL_VARIABLE = f"{ENV_PREFIX}OPENAI_MODEL"
API_KEY_VARIABLE = f"{ENV_PREFIX}OPENAI_API_KEY"

_IDENTIFIER = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
_FORMAT_WORDS = ("response_format", "response format", "json_schema", "json_object")
_NO_MODEL_WORDS = ("not found", "does not exist", "no such model", "unknown model", "model_not_found")


@dataclass(frozen=True)
class ChatMessage:
    role: Literal["system", "user"]
    content: str


@dataclass(frozen=True)
class StructuredOutput:
    """The JSON schema the answer should follow (OpenAI's `json_schema` response format)."""

    name: str
    schema: dict[str, Any]


@dataclass(frozen=True)
class ChatCompletion:
    text: str | None
    finish_reason: str
    prompt_tokens: int | None  # None: the server did not say
    completion_tokens: int | None


class _FormatRejected(Exception):
    """The server refused the response_format it was sent (not retried: asked again without it)."""


class _NoModelList(Exception):
    """The server has no `GET /models` (404/405)."""


class ChatEndpoint:
    """`POST {base_url}/chat/completions` and `GET {base_url}/models`, with the project's retries
    and error mapping. Builds its httpx client on first use unless given one."""

    def __init__(
        self,
        base_url: str,
        *,
        model: str,
        api_key: SecretStr | str | None = None,
        timeout_seconds: float = 30.0,
        response_format: ResponseFormat = DEFAULT_OPENAI_RESPONSE_FORMAT,
        client: httpx.Client | None = None,
        retry: RetryPolicy = DEFAULT_RETRY,
    ) -> None:
        if response_format not in RESPONSE_FORMATS:
            raise ConfigurationError(f"response format {response_format!r} is not one of {RESPONSE_FORMATS}")
        self._base = base_url.strip().rstrip("/")
        self._model = model.strip()
        self._key = api_key if isinstance(api_key, SecretStr) or api_key is None else SecretStr(api_key)
        self._timeout = httpx.Timeout(timeout_seconds, connect=min(5.0, timeout_seconds))
        self._format: ResponseFormat = response_format
        self._format_lock = threading.Lock()
        self._client = client
        self._retry = retry
        parts = urlsplit(self._base)
        host = f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname or "")
        self.what = f"chat endpoint {host} ({self._model})"  # never the URL's userinfo or the key

    @property
    def model(self) -> str:
        return self._model

    @property
    def response_format(self) -> ResponseFormat:
        """What is sent now: the configured format, or what the server fell back to."""
        return self._format

    def _http(self) -> httpx.Client:
        if not self._base or not self._model:
            raise ConfigurationError(
                f"the OpenAI-compatible planner needs {BASE_URL_VARIABLE} and {MODEL_VARIABLE}"
            )
        if self._client is None:
            self._client = httpx.Client(timeout=self._timeout, follow_redirects=False)
        return self._client

    def _headers(self) -> dict[str, str]:
        key = self._key.get_secret_value().strip() if self._key is not None else ""
        return {"Authorization": f"Bearer {key}"} if key else {}

    def body(
        self,
        messages: list[ChatMessage],
        *,
        max_tokens: int,
        temperature: float,
        structured: StructuredOutput | None,
        response_format: ResponseFormat | None = None,
    ) -> dict[str, Any]:
        """The request body (exposed so tests can check what is sent)."""
        body: dict[str, Any] = {
            "model": self._model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "temperature": temperature,
            "max_tokens": max_tokens,
            "stream": False,
        }
        kind = response_format or self._format
        if structured is not None and kind == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": structured.name, "schema": structured.schema, "strict": True},
            }
        elif structured is not None and kind == "json_object":
            body["response_format"] = {"type": "json_object"}
        return body

    def complete(
        self,
        messages: list[ChatMessage],
        *,
        max_tokens: int,
        temperature: float = 0.2,
        structured: StructuredOutput | None = None,
    ) -> ChatCompletion:
        """One logical chat completion: transport retries and response-format fallbacks included."""
        client = self._http()
        url = f"{self._base}/chat/completions"
        headers = self._headers()
        while True:
            kind = self._format
            body = self.body(
                messages,
                max_tokens=max_tokens,
                temperature=temperature,
                structured=structured,
                response_format=kind,
            )
            try:
                document = request_json(
                    client,
                    url,
                    what=self.what,
                    policy=self._retry,
                    headers=headers,
                    interpret=partial(self._refused, sends_format="response_format" in body),
                    method="POST",
                    body=body,
                )
            except _FormatRejected:
                self._fall_back_from(kind)
                continue
            return _completion(document, self.what)

    def _fall_back_from(self, kind: ResponseFormat) -> None:
        with self._format_lock:
            if self._format != kind or kind == "none":
                return  # another thread fell back already
            self._format = RESPONSE_FORMATS[RESPONSE_FORMATS.index(kind) + 1]
        logger.warning(
            "chat endpoint refused a response format; falling back",
            extra={"endpoint": self.what, "refused": kind, "now": self._format},
        )

    def _refused(self, response: httpx.Response, *, sends_format: bool) -> None:
        """A non-2xx answer to a completion: a refused response format (the caller falls back),
        else the error _failure names."""
        text = response.text.lower()
        if (
            sends_format
            and response.status_code in (400, 422)
            and any(word in text for word in _FORMAT_WORDS)
        ):
            raise _FormatRejected()
        raise self._failure(response, text)

    def _failure(self, response: httpx.Response, text: str) -> Exception:
        """A non-2xx answer as the exception the retry loop and the S3 step expect."""
        status = response.status_code
        if status in (401, 403):
            return ConfigurationError(
                f"{self.what} rejected the API key (HTTP {status}): check {API_KEY_VARIABLE}"
            )
        if status in (400, 404) and "model" in text and any(word in text for word in _NO_MODEL_WORDS):
            return ConfigurationError(
                f"{self.what}: model {self._model!r} not found (HTTP {status}): check {MODEL_VARIABLE}"
            )
        if status in (404, 405):
            return ConfigurationError(
                f"{self.what}: no OpenAI-compatible API at this base URL (HTTP {status}): check "
                f"{BASE_URL_VARIABLE} (it usually ends in /v1)"
            )
        if status in RETRYABLE_STATUS:
            return retryable_status(response)
        code = _error_code(response)
        return ProviderError(f"{self.what} refused the request (HTTP {status}{f' {code}' if code else ''})")

    def models(self) -> list[str]:
        """The model ids `GET {base}/models` lists (_NoModelList when the server has no such list)."""

        def interpret(response: httpx.Response) -> None:
            if response.status_code in (404, 405):
                raise _NoModelList()

        document = request_json(
            self._http(),
            f"{self._base}/models",
            what=self.what,
            policy=self._retry,
            headers=self._headers(),
            interpret=interpret,
        )
        data = document.get("data") if isinstance(document, dict) else None
        if not isinstance(data, list):
            raise ProviderError(f"{self.what}: the model list is not an OpenAI list")
        return [str(m["id"]) for m in data if isinstance(m, dict) and isinstance(m.get("id"), str)]


def _completion(document: Any, what: str) -> ChatCompletion:
    """The first choice's text, why it stopped, and the usage the server reported (if any)."""
    if not isinstance(document, dict):
        raise ProviderError(f"{what}: the answer is not a chat completion")
    choices = document.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ProviderError(f"{what}: the answer has no choices")
    choice = choices[0]
    message = _dict(choice.get("message"))
    text = _content_text(message.get("content"))
    refusal = message.get("refusal")
    if not text and isinstance(refusal, str) and refusal.strip():
        raise ProviderError(f"{what}: the model refused to answer")
    usage = _dict(document.get("usage"))
    return ChatCompletion(
        text=text,
        finish_reason=str(choice.get("finish_reason") or "unknown"),
        prompt_tokens=reported_tokens(usage.get("prompt_tokens")),
        completion_tokens=reported_tokens(usage.get("completion_tokens")),
    )


def _content_text(content: Any) -> str | None:
    """`content` is a string, or (some servers) a list of typed parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "".join(parts) or None
    return None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _error_code(response: httpx.Response) -> str:
    """The error's type or code when it is a short identifier (never the server's free text)."""
    try:
        document = response.json()
    except ValueError:
        return ""
    error = document.get("error", document) if isinstance(document, dict) else None
    if not isinstance(error, dict):
        return ""
    for key in ("code", "type"):
        value = error.get(key)
        if isinstance(value, str) and _IDENTIFIER.match(value):
            return value
    return ""


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` as strict structured output takes it: every object, nested ones too, without
    additional properties and with every property required; no `default` keywords."""
    strict: dict[str, Any] = {
        k: strict_schema(v) if k == "items" and isinstance(v, dict) else v
        for k, v in schema.items()
        if k != "default"
    }
    if isinstance(schema.get("properties"), dict):
        properties = {name: strict_schema(prop) for name, prop in schema["properties"].items()}
        strict.update(properties=properties, required=list(properties), additionalProperties=False)
    return strict


class OpenAICompatiblePlanner(PromptedPlanner):
    def __init__(
        self,
        base_url: str,
        *,
        model: str,
        api_key: SecretStr | str | None = None,
        timeout_seconds: float = 30.0,
        max_output_tokens: int = 1024,
        temperature: float = 0.2,
        response_format: ResponseFormat = DEFAULT_OPENAI_RESPONSE_FORMAT,
        client: httpx.Client | None = None,
        retry: RetryPolicy = DEFAULT_RETRY,
    ) -> None:
        self.endpoint = ChatEndpoint(
            base_url,
            model=model,
            api_key=api_key,
            timeout_seconds=timeout_seconds,
            response_format=response_format,
            client=client,
            retry=retry,
        )
        self._max_output_tokens = max_output_tokens
        self._temperature = temperature

    @property
    def model(self) -> str:
        return self.endpoint.model

    @property
    def who(self) -> str:
        return self.endpoint.what

    def _send(self, prompt: PlannerPrompt, answer: ReplyFormat[Any, Any]) -> ProviderAnswer:
        completion = self.endpoint.complete(
            [ChatMessage("system", prompt.system), ChatMessage("user", prompt.user)],
            max_tokens=self._max_output_tokens,
            temperature=self._temperature,
            structured=StructuredOutput(answer.name, strict_schema(answer.schema())),
        )
        return ProviderAnswer(
            text=completion.text,
            tokens_in=completion.prompt_tokens,
            tokens_out=completion.completion_tokens,
            stop=f"finish reason {completion.finish_reason}",
        )

    def check_model(self) -> str:
        """Doctor check: the server's model list names the model (free). A server without a list
        is asked for a one-token completion instead."""
        try:
            served = self.endpoint.models()
        except _NoModelList:
            self.endpoint.complete([ChatMessage("user", "Reply with OK.")], max_tokens=1)
            return f"model {self.model} answered (the server lists no models)"
        if self.model in served or f"{self.model}:latest" in served:
            return f"model {self.model} served ({len(served)} model(s) listed)"
        shown = ", ".join(_printable(m) for m in served[:5]) or "none"
        raise ConfigurationError(
            f"{self.endpoint.what}: model {self.model!r} is not served (listed: {shown}); "
            f"check {MODEL_VARIABLE}"
        )


def _printable(text: str) -> str:
    cleaned = "".join(ch for ch in text if ch.isprintable())
    return cleaned if len(cleaned) <= 64 else cleaned[:61] + "..."
