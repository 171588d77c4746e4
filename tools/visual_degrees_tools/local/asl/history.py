"""An execution history shaped like Step Functions' GetExecutionHistory events.

Each event: `id` (1, 2, ...), `previousEventId` (the event before it; 0 for the first),
`timestamp` (ISO 8601, UTC, from the engine's clock), `type`, and the event's `...EventDetails`.
Inputs and outputs are compact JSON strings, as Step Functions records them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any


class HistoryLimitReached(Exception):
    """Appending one more event would leave no room for the closing execution event."""


class History:
    def __init__(self, now: Callable[[], float], max_events: int) -> None:
        self.events: list[dict[str, Any]] = []
        self._now = now
        self._max_events = max_events
        self._second = -1
        self._second_text = ""

    def add(self, event_type: str, details_key: str | None = None, details: Any = None) -> None:
        # The last slot is kept for ExecutionFailed, so a runaway execution still ends well-formed.
        if len(self.events) >= self._max_events - 1:
            raise HistoryLimitReached
        self._append(event_type, details_key, details)

    def close(self, event_type: str, details_key: str, details: dict[str, Any]) -> None:
        """The execution's last event (ExecutionSucceeded / Failed / TimedOut)."""
        self._append(event_type, details_key, details)

    def _append(self, event_type: str, details_key: str | None, details: Any) -> None:
        number = len(self.events) + 1
        event: dict[str, Any] = {
            "id": number,
            "previousEventId": number - 1,
            "timestamp": self._timestamp(self._now()),
            "type": event_type,
        }
        if details_key is not None:
            event[details_key] = details
        self.events.append(event)

    def _timestamp(self, now: float) -> str:
        # Formatting a datetime per event is a large share of the engine's cost; events of one
        # execution mostly share their second, so only the milliseconds are formatted each time.
        second = int(now // 1)
        if second != self._second:
            self._second = second
            self._second_text = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        millis = min(int((now - second) * 1000), 999)
        return f"{self._second_text}.{millis:03d}+00:00"

    # ---- the shapes of the events the engine writes ------------------------------------------------

    def state_entered(self, state_type: str, name: str, input_text: str) -> None:
        self.add(
            f"{state_type}StateEntered",
            "stateEnteredEventDetails",
            {"name": name, "input": input_text, "inputDetails": {"truncated": False}},
        )

    def state_exited(self, state_type: str, name: str, output_text: str) -> None:
        self.add(
            f"{state_type}StateExited",
            "stateExitedEventDetails",
            {"name": name, "output": output_text, "outputDetails": {"truncated": False}},
        )
