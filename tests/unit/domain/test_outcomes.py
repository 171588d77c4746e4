"""The one table of endings: every name a run's ending goes by is read from it."""

from __future__ import annotations

from typing import get_args

import pytest

from visual_degrees.constants import STATE_TASKS
from visual_degrees.domain.models import EventType
from visual_degrees.domain.outcomes import (
    BY_EVENT,
    ENDINGS,
    EXECUTION_ENDED,
    FINISHED_STATUSES,
    TERMINAL_EVENTS,
    run_status,
)
from visual_degrees.handlers.catalog import FINAL_STEPS, OUTCOMES


def test_every_ending_is_an_event_type_with_its_own_status_outcome_exit_code_and_final_step():
    assert set(get_args(EventType)) >= TERMINAL_EVENTS
    for column in ("event", "status", "outcome", "metric", "exit_code", "final_step"):
        values = [getattr(e, column) for e in ENDINGS]
        assert len(set(values)) == len(ENDINGS), column  # no two endings share a name
    assert {e.final_step for e in ENDINGS} <= {t.step for t in STATE_TASKS}
    # The README's exit codes: 0 a path, 3 no_path, 4 cancelled, 1 the run failed (2 is bad input)
    assert {e.outcome: e.exit_code for e in ENDINGS} == {"path": 0, "no_path": 3, "cancelled": 4, "error": 1}


def test_the_handlers_catalog_and_the_metrics_read_the_same_table():
    assert {e.final_step: e.metric for e in ENDINGS} == FINAL_STEPS
    assert OUTCOMES == ("success", "no_path", "cancelled", "error")
    assert set(EXECUTION_ENDED.values()) <= FINISHED_STATUSES


@pytest.mark.parametrize(
    ("terminal", "meta_status", "execution", "expected"),
    [
        (None, None, None, "queued"),
        (None, None, "RUNNING", "running"),
        (None, "running", None, "running"),
        (None, "running", "RUNNING", "running"),
        (None, "no_path", "SUCCEEDED", "no_path"),
        (None, "running", "TIMED_OUT", "failed"),
        (None, "running", "ABORTED", "cancelled"),
        (None, None, "FAILED", "failed"),
        # The terminal event is stored before the meta catches up: it wins over both
        ("final", "running", "RUNNING", "succeeded"),
        ("error", None, "SUCCEEDED", "failed"),
        ("cancelled", "running", None, "cancelled"),
    ],
)
def test_one_status_rule_from_the_best_witness(terminal, meta_status, execution, expected):
    assert run_status(terminal, meta_status, execution) == expected
    if terminal is not None:
        assert expected == BY_EVENT[terminal].status
