"""A sandbox run's events are dated from the run's real start plus simulated time: a run started
today reads as today's in `--json` (and on the page, and over wscat: test_docs_wscat.py)."""

from __future__ import annotations

import time
from datetime import datetime

from tests.support.cli_runs import run_json
from visual_degrees_tools.sandbox import FAR_PAIR


def _epoch(ts: str) -> float:
    return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()


def test_json_events_are_dated_from_the_runs_start_plus_simulated_time(state_dir, capsys) -> None:
    # Given a sandbox run started now
    before = time.time()
    code, events = run_json(capsys, *FAR_PAIR)
    after = time.time()
    assert code == 0

    # Then its first event is dated when it started, and the rest follow in simulated time: the
    # ending comes the run's simulated seconds after the start (the dates are no longer 2024's)
    started, ended = _epoch(events[0]["ts"]), _epoch(events[-1]["ts"])
    assert before - 1 <= started <= after
    assert abs(ended - started - events[-1]["data"]["simSeconds"]) <= 0.002  # times are to the ms
    assert [_epoch(e["ts"]) for e in events] == sorted(_epoch(e["ts"]) for e in events)
