"""Bounded retries: one logical call, backoff within limits, Retry-After honoured."""

from __future__ import annotations

import httpx
import pytest

from visual_degrees.adapters.live.http_retry import (
    RetryableFailure,
    RetryPolicy,
    aws_call,
    parse_retry_after,
    request_json,
)
from visual_degrees.domain.errors import (
    ConfigurationError,
    ProviderError,
    ProviderThrottled,
    TransientProviderError,
)


def policy(sleeps: list[float], attempts: int = 3, max_delay: float = 8.0) -> RetryPolicy:
    return RetryPolicy(
        max_attempts=attempts, base_delay=0.5, max_delay=max_delay, sleep=sleeps.append, rng=lambda: 1.0
    )


def flaky(failures: list[Exception], result: str = "ok"):
    calls: list[int] = []

    def attempt() -> str:
        calls.append(1)
        if failures:
            raise failures.pop(0)
        return result

    return attempt, calls


def test_retries_until_success_and_backs_off_exponentially() -> None:
    # Given two transient failures, then success
    sleeps: list[float] = []
    attempt, calls = flaky([RetryableFailure("HTTP 503"), RetryableFailure("HTTP 503")])
    # When run under a 3-attempt policy
    result = policy(sleeps).run(attempt, what="thing")
    # Then the call succeeds on the third attempt after growing waits
    assert result == "ok"
    assert len(calls) == 3
    assert sleeps == [0.5, 1.0]


def test_gives_up_after_the_last_attempt_with_a_transient_error() -> None:
    sleeps: list[float] = []
    attempt, calls = flaky([RetryableFailure("HTTP 500")] * 5)
    with pytest.raises(TransientProviderError, match="thing: HTTP 500 \\(gave up after 3 attempts\\)"):
        policy(sleeps).run(attempt, what="thing")
    assert len(calls) == 3
    assert len(sleeps) == 2


def test_retry_after_is_honoured_instead_of_backoff() -> None:
    sleeps: list[float] = []
    attempt, _ = flaky([RetryableFailure("HTTP 429", retry_after=2.5)])
    assert policy(sleeps).run(attempt, what="thing") == "ok"
    assert sleeps == [2.5]


def test_a_wait_longer_than_the_bound_stops_at_once() -> None:
    # Given a provider asking us to come back in an hour
    sleeps: list[float] = []
    attempt, calls = flaky([RetryableFailure("HTTP 429", retry_after=3600)])
    # Then we neither sleep nor call again: the workflow's own retry can wait that long
    with pytest.raises(TransientProviderError, match="asked to wait 3600 s"):
        policy(sleeps).run(attempt, what="thing")
    assert sleeps == []
    assert len(calls) == 1


def test_other_errors_pass_through_untouched() -> None:
    sleeps: list[float] = []
    attempt, calls = flaky([ProviderError("bad input")])
    with pytest.raises(ProviderError, match="bad input"):
        policy(sleeps).run(attempt, what="thing")
    assert len(calls) == 1


@pytest.mark.parametrize("attempt_no", [1, 2, 3, 4, 10])
def test_backoff_stays_within_half_and_full_ceiling(attempt_no: int) -> None:
    low = RetryPolicy(base_delay=1.0, max_delay=5.0, rng=lambda: 0.0).backoff(attempt_no)
    high = RetryPolicy(base_delay=1.0, max_delay=5.0, rng=lambda: 0.999).backoff(attempt_no)
    ceiling = min(5.0, 2 ** (attempt_no - 1))
    assert ceiling / 2 <= low <= high <= ceiling


def test_policy_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("3", 3.0),
        (" 0 ", 0.0),
        ("-4", 0.0),
        ("Wed, 21 Oct 2015 07:28:10 GMT", 10.0),
        ("soon", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_retry_after(header: str | None, expected: float | None) -> None:
    now = 1445412480.0  # 2015-10-21 07:28:00 UTC
    assert parse_retry_after(header, now=lambda: now) == expected


def test_request_json_maps_statuses() -> None:
    # Given a server answering each path with a different status
    def handler(request: httpx.Request) -> httpx.Response:
        status = int(request.url.path.strip("/"))
        return httpx.Response(status, json={"status": status})

    client = httpx.Client(transport=httpx.MockTransport(handler))
    sleeps: list[float] = []
    call = lambda path: request_json(client, f"http://api.test/{path}", what="api", policy=policy(sleeps))  # noqa: E731
    # Then
    assert call("200") == {"status": 200}
    with pytest.raises(ConfigurationError):
        call("401")
    with pytest.raises(ConfigurationError):
        call("403")
    with pytest.raises(ProviderError):
        call("404")
    with pytest.raises(TransientProviderError):
        call("503")


def test_a_call_that_ends_throttled_says_so_and_one_that_ends_failing_does_not() -> None:
    # Given a provider that keeps refusing for its rate, and one that keeps failing
    throttled, _ = flaky([RetryableFailure("HTTP 429", retry_after=0.1, throttled=True)] * 5)
    failing, _ = flaky([RetryableFailure("HTTP 503")] * 5)
    # Then the first ends ProviderThrottled (not billed), with the wait it asked for; the second not
    with pytest.raises(ProviderThrottled, match="thing: HTTP 429 \\(gave up after 3 attempts\\)") as raised:
        policy([]).run(throttled, what="thing")
    assert raised.value.retry_after == 0.1
    with pytest.raises(TransientProviderError) as failed:
        policy([]).run(failing, what="thing")
    assert not isinstance(failed.value, ProviderThrottled)


def test_a_paced_policy_hands_a_throttled_answer_back_at_once_but_still_retries_other_failures() -> None:
    # Given a policy whose caller retries throttled answers itself (on a new slot of the limiter)
    sleeps: list[float] = []
    paced = RetryPolicy(max_attempts=3, base_delay=0.5, sleep=sleeps.append, retry_throttled=False)
    throttled, calls = flaky([RetryableFailure("HTTP 429", throttled=True)])
    # Then a throttled answer comes back after one attempt, without waiting
    with pytest.raises(ProviderThrottled, match="throttled"):
        paced.run(throttled, what="thing")
    assert len(calls) == 1 and sleeps == []
    # And a 503 is still retried here
    failing, calls = flaky([RetryableFailure("HTTP 503")])
    assert paced.run(failing, what="thing") == "ok"
    assert len(calls) == 2


def test_request_json_takes_429_for_throttling() -> None:
    client = httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(429)))
    with pytest.raises(ProviderThrottled):
        request_json(client, "http://api.test/", what="api", policy=policy([]))


@pytest.mark.parametrize(
    ("code", "throttled"),
    [
        ("ThrottlingException", True),
        ("ProvisionedThroughputExceededException", True),
        ("TooManyRequestsException", True),
        ("InternalServerError", False),
    ],
)
def test_aws_throttling_codes_are_throttled_failures(code: str, throttled: bool) -> None:
    from botocore.exceptions import ClientError

    def call() -> dict:
        raise ClientError({"Error": {"Code": code, "Message": "m"}}, "RecognizeCelebrities")

    with pytest.raises(RetryableFailure) as raised:
        aws_call(
            call,
            service="Rekognition",
            transient={code},
            configuration=set(),
            refused="x",
            rejected="y",
        )
    assert raised.value.throttled is throttled
