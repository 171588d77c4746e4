"""Run ids: sortable by start time (UTC, to the second) and unique, valid as execution names."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime

# `--` never occurs in a run id new_run_id draws (whose last part is hex and may well read `c12345`).
_CONTINUATION = re.compile(r"^(?P<run>.+)--c(?P<segment>[1-9][0-9]*)$")


def new_run_id() -> str:
    return f"{datetime.now(UTC):%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"


def execution_name(run_id: str, segment: int = 0) -> str:
    """The execution of a run's segment: the run id itself, then `<run id>--c1`, `--c2`, … for its
    continuations (Step Functions execution names are unique per state machine)."""
    return run_id if segment == 0 else f"{run_id}--c{segment}"


def run_of_execution(name: str) -> tuple[str, int]:
    """(run id, segment) of an execution named by `execution_name`."""
    found = _CONTINUATION.match(name)
    return (found["run"], int(found["segment"])) if found else (name, 0)
