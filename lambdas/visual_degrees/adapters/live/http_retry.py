"""Bounded retries for one logical provider call: backoff with jitter, honouring Retry-After.

A call retried here is still one call for the budget (the caller reserved it once). When the
provider asks us to wait longer than we are willing to (`max_delay`), we stop at once and raise
TransientProviderError: the state machine's own Retry is the better place to wait that long.
A call that ends on the provider's rate limit raises ProviderThrottled instead (not billed); with
`retry_throttled=False` it does so at the first throttled answer, for a caller that paces its calls
through a shared limiter and retries them there (adapters/pacing.py).
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
from pydantic import SecretStr

from visual_degrees.domain.errors import (
    ConfigurationError,
    ProviderError,
    ProviderThrottled,
    TransientProviderError,
)

T = TypeVar("T")


class RetryableFailure(Exception):
    """Raised by an attempt that may succeed if repeated; `retry_after` is the provider's hint;
    `throttled`: the provider refused it for its rate limit (a call it does not bill)."""

    def __init__(self, message: str, retry_after: float | None = None, *, throttled: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after
        self.throttled = throttled

    def give_up(self, what: str, why: str) -> TransientProviderError:
        """The error the caller sees once this failure is retried no more."""
        message = f"{what}: {self.message} ({why})"
        if self.throttled:
            return ProviderThrottled(message, self.retry_after)
        return TransientProviderError(message)


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 3
    base_delay: float = 0.5
    max_delay: float = 8.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False, compare=False)
    rng: Callable[[], float] = field(default=random.random, repr=False, compare=False)
    retry_throttled: bool = True  # False: a throttled answer is the caller's to retry (pacing)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.base_delay < 0 or self.max_delay < 0:
            raise ValueError("delays must not be negative")

    def backoff(self, attempt: int) -> float:
        """Delay after failed attempt number `attempt` (1-based): exponential, capped, half jittered."""
        ceiling = min(self.max_delay, self.base_delay * (2 ** (attempt - 1)))
        return ceiling / 2 + self.rng() * ceiling / 2

    def run(self, attempt: Callable[[], T], *, what: str) -> T:
        """Call `attempt` until it returns, raises something other than RetryableFailure, or the
        attempts run out (then TransientProviderError naming `what`)."""
        for number in range(1, self.max_attempts + 1):
            try:
                return attempt()
            except RetryableFailure as failure:
                if number == self.max_attempts:
                    raise failure.give_up(what, f"gave up after {number} attempts") from None
                if failure.throttled and not self.retry_throttled:
                    raise failure.give_up(what, "throttled") from None
                if failure.retry_after is not None and failure.retry_after > self.max_delay:
                    raise failure.give_up(what, f"asked to wait {failure.retry_after:.0f} s") from None
                delay = failure.retry_after if failure.retry_after is not None else self.backoff(number)
                self.sleep(max(0.0, delay))
        raise AssertionError("unreachable")  # pragma: no cover - the loop always returns or raises


DEFAULT_RETRY = RetryPolicy()
NO_RETRY = RetryPolicy(max_attempts=1)


def parse_retry_after(value: str | None, *, now: Callable[[], float] = time.time) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date), or None."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now())


RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})
THROTTLED_STATUS = 429


def retryable_status(response: httpx.Response) -> RetryableFailure:
    """A retryable HTTP answer (RETRYABLE_STATUS) with its Retry-After; a 429 is a throttled one."""
    status = response.status_code
    return RetryableFailure(
        f"HTTP {status}",
        parse_retry_after(response.headers.get("retry-after")),
        throttled=status == THROTTLED_STATUS,
    )


# ---- one JSON-over-HTTP call with the retry policy and the shared error mapping ---------------

Interpret = Callable[[httpx.Response], None]


def request_json(
    client: httpx.Client,
    url: str,
    *,
    what: str,
    policy: RetryPolicy,
    params: dict[str, str | int] | None = None,
    headers: dict[str, str] | None = None,
    interpret: Interpret | None = None,
    method: str = "GET",
    body: dict[str, Any] | None = None,
) -> Any:
    """GET `url` (or `method` with a JSON `body`) and return its JSON body.

    `interpret` sees every non-2xx response first and may raise a provider-specific error (or a
    RetryableFailure with a better wait hint). Then: 401/403 -> ConfigurationError; 408/429/5xx and
    timeouts -> retried, finally TransientProviderError; other statuses and bad JSON -> ProviderError.
    """

    def attempt() -> Any:
        try:
            response = client.request(method, url, params=params, headers=headers, json=body)
        except httpx.TimeoutException:
            raise RetryableFailure("timed out") from None
        except httpx.TransportError as exc:
            raise RetryableFailure(f"connection failed ({type(exc).__name__})") from None
        if response.is_success:
            try:
                return response.json()
            except ValueError:
                raise ProviderError(f"{what}: answer is not JSON") from None
        if interpret is not None:
            interpret(response)
        status = response.status_code
        if status in (401, 403):
            raise ConfigurationError(f"{what}: credentials rejected (HTTP {status})")
        if status in RETRYABLE_STATUS:
            raise retryable_status(response)
        raise ProviderError(f"{what}: request rejected (HTTP {status})")

    return policy.run(attempt, what=what)


class JsonApi:
    """What an adapter of one JSON API over HTTP keeps: its key (hidden in repr and logs), an httpx
    client built on first use (or the one given: tests, a proxy), a timeout and a retry policy."""

    def __init__(
        self,
        api_key: SecretStr | str | None,
        *,
        client: httpx.Client | None = None,
        timeout: httpx.Timeout | None = None,
        retry: RetryPolicy = DEFAULT_RETRY,
    ) -> None:
        self._key = api_key if isinstance(api_key, SecretStr) or api_key is None else SecretStr(api_key)
        self._client = client
        self._timeout = timeout or httpx.Timeout(15.0, connect=5.0)
        self._retry = retry

    def _http(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(timeout=self._timeout)
        return self._client

    def _api_key(self) -> str:
        """The key, stripped; empty when none is configured."""
        return self._key.get_secret_value().strip() if self._key is not None else ""


# AWS error codes that mean "over your rate": the call was refused, not served (nor billed).
AWS_THROTTLING = frozenset(
    {
        "ThrottlingException",
        "ProvisionedThroughputExceededException",
        "TooManyRequestsException",
        "ThrottledException",
    }
)


def aws_call(
    call: Callable[[], dict[str, Any]],
    *,
    service: str,
    transient: Collection[str],
    configuration: Collection[str],
    refused: str,
    rejected: str,
) -> dict[str, Any]:
    """One boto3 call, its failures sorted as every adapter's retry loop expects: transient codes
    and lost connections retry (RetryableFailure, throttled for AWS_THROTTLING codes);
    `configuration` codes and missing credentials or region are ConfigurationError ("{service}
    refused {refused}"); anything else is ProviderError ("{service} rejected {rejected}"). Messages
    carry the AWS error code only, never AWS's message."""
    from botocore.exceptions import (
        BotoCoreError,
        ClientError,
        ConnectionError,
        HTTPClientError,
        NoCredentialsError,
        NoRegionError,
        PartialCredentialsError,
    )

    try:
        return call()
    except ClientError as exc:
        code = str(exc.response.get("Error", {}).get("Code", "Unknown"))
        if code in transient:
            raise RetryableFailure(code, throttled=code in AWS_THROTTLING) from None
        if code in configuration:
            raise ConfigurationError(f"{service} refused {refused.format(code=code)}") from None
        raise ProviderError(f"{service} rejected {rejected} ({code})") from None
    except (NoCredentialsError, PartialCredentialsError, NoRegionError) as exc:
        raise ConfigurationError(f"{service} is not configured: {type(exc).__name__}") from None
    except (ConnectionError, HTTPClientError) as exc:  # timeouts and refused connections
        raise RetryableFailure(type(exc).__name__) from None
    except BotoCoreError as exc:
        raise ProviderError(f"{service} call failed: {type(exc).__name__}") from None
