"""Errors of the local ASL engine: definition problems (raised when an engine is built) and the
errors a running state reports (carried as Step Functions error names).
"""

from __future__ import annotations

# Error names Step Functions itself reports (https://states-language.net/spec.html#appendix-a).
STATES_ALL = "States.ALL"
TASK_FAILED = "States.TaskFailed"
TIMEOUT = "States.Timeout"
RUNTIME = "States.Runtime"
NO_CHOICE_MATCHED = "States.NoChoiceMatched"
RESULT_PATH_MATCH_FAILURE = "States.ResultPathMatchFailure"
DATA_LIMIT_EXCEEDED = "States.DataLimitExceeded"

# Terminal errors: no Retry or Catch handles them, not even States.ALL.
TERMINAL_ERRORS = frozenset({RUNTIME, DATA_LIMIT_EXCEEDED})


class AslDefinitionError(ValueError):
    """The definition is malformed (a dangling Next, a missing StartAt, a wrong field type, ...)."""


class UnsupportedAslFeature(AslDefinitionError):
    """The definition uses ASL the local engine does not implement (Wait, Map, JSONata, ...)."""


class StateError(Exception):
    """An error a state reports while the execution runs; Retry and Catch match on `error`."""

    def __init__(self, error: str, cause: str) -> None:
        super().__init__(f"{error}: {cause}")
        self.error = error
        self.cause = cause
