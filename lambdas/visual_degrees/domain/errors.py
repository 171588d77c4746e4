"""Domain exceptions. Each carries a stable `code` that clients see; messages never carry secrets.

The class name doubles as the error name Step Functions sees (a Python Lambda's errorType is the
exception's class name), so the state machine's Retry and Catch rules match on these names.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any


class VisualDegreesError(Exception):
    """Base class: a failure we understand and can describe to a client."""

    code = "internal_error"
    # Fields a client's error reply carries besides code and message (none by default).
    details: Mapping[str, Any] = MappingProxyType({})

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInput(VisualDegreesError):
    """The request itself is wrong: a bad name, option or message. Never retried."""

    code = "invalid_input"


class UnknownPerson(InvalidInput):
    """A name nobody in the sandbox world has; `suggestions` maps the field ("personA", "personB")
    to the closest names the world does have (the reply carries them as `suggestions`)."""

    code = "unknown_person"

    def __init__(self, message: str, suggestions: Mapping[str, list[str]] | None = None) -> None:
        super().__init__(message)
        self.suggestions = dict(suggestions or {})
        if self.suggestions:
            self.details = MappingProxyType({"suggestions": self.suggestions})


class WorldFileError(InvalidInput):
    code = "invalid_world"


class RunNotFound(VisualDegreesError):
    code = "run_not_found"


class ConfigurationError(VisualDegreesError):
    """A provider is misconfigured (missing key, access denied). Not retried: retrying cannot help."""

    code = "configuration_error"


class TransientProviderError(VisualDegreesError):
    """Throttling, a 5xx, a timeout: worth retrying (the state machine retries on this name)."""

    code = "provider_unavailable"


class ProviderThrottled(TransientProviderError):
    """No answer because of a rate: the provider refused the call for its quota (HTTP 429,
    ThrottlingException, RESOURCE_EXHAUSTED...) or the shared limiter gave no slot before the run's
    deadline. Providers do not bill a throttled call, so neither does the run: its reservation is
    given back (services/budget.py)."""

    code = "provider_throttled"

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after  # the provider's hint, seconds


class NoSlotInTime(ProviderThrottled):
    """The shared limiter had no slot for the call before the run's time (its runtime budget, or
    its step function's) was up: the call was not made, and the run has no time left for it."""


class ProviderError(VisualDegreesError):
    """A provider answered, but not usefully (malformed reply, rejected input). Skip, don't retry."""

    code = "provider_error"


class SearchUnavailable(ProviderError):
    """Image search failed too many times in a row (each after the adapter's retries): nothing else
    can proceed, so the run ends with this as its `error` (a single failure only costs its budget)."""

    code = "provider_unavailable"


class ConditionFailed(VisualDegreesError):
    """A conditional write lost: the item exists, or a counter moved. `index` names the write."""

    code = "conflict"

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


class RunInProgress(InvalidInput):
    """The run is still going (or another continuation of it has just begun): nothing to continue."""

    code = "run_in_progress"


class NotContinuable(InvalidInput):
    """The run ended in a way more budget cannot change (a path, a cancel, a failure, the hop limit,
    an end nobody can find); the message says why and what would help instead."""

    code = "not_continuable"

    def __init__(self, message: str, *, ending: str, with_hint: bool = False) -> None:
        super().__init__(message)
        self.details = MappingProxyType({"ending": ending, "continuableWithHint": with_hint})
