"""The per-client cap on runs going at once.

One item per started run under the client (`client#<clientId>` / `run#<runId>`), whose TTL bounds how
long a run can hold a place even if nothing ever reports its end. Admission writes the new run's item
first and counts second, and refuses if the count is over the cap: of any set of concurrent starts,
the one that counts last sees every other's item, so the cap holds without a lock (a close race may
refuse both, never admit too many). A run holds its place until its meta says it finished.
"""

from __future__ import annotations

from visual_degrees.domain.models import DEFAULT_TTL_SECONDS, RunOptions
from visual_degrees.domain.outcomes import FINISHED_STATUSES
from visual_degrees.lifecycle.run_memory import RunControl
from visual_degrees.ports import Memory, Put
from visual_degrees.protocol import TOO_MANY_RUNS, ProtocolError

# Beyond the runtime budget: the step in flight when the budget runs out, finalisation, retries.
HOLD_MARGIN_SECONDS = 600


def _client_pk(client_id: str) -> str:
    return f"client#{client_id}"


class ActiveRuns:
    """The deployed API's Admission (lifecycle/runs_api.py): `limit` runs going per client."""

    def __init__(self, memory: Memory, limit: int = 2) -> None:
        self._memory = memory
        self._limit = limit

    def admit(self, client_id: str, run_id: str, options: RunOptions) -> None:
        """Take a place for `run_id`, or raise ProtocolError(too_many_runs) leaving nothing behind."""
        limit = self._limit
        hold = int(options.budgets.runtime_seconds) + HOLD_MARGIN_SECONDS
        pk = _client_pk(client_id)
        self._memory.put(Put(pk, f"run#{run_id}", {"runId": run_id}, hold))
        going = self.active(client_id)
        if len(going) > limit:
            self.release(client_id, run_id)
            others = len(going) - 1
            raise ProtocolError(
                TOO_MANY_RUNS,
                f"this client already has {others} runs going; the limit is {limit}",
                "startRun",
            )

    def release(self, client_id: str, run_id: str) -> None:
        self._memory.delete(_client_pk(client_id), f"run#{run_id}")

    def active(self, client_id: str) -> list[str]:
        """The client's runs that have not finished; places of finished runs are freed on the way."""
        going = []
        for item in self._memory.query(_client_pk(client_id), "run#"):
            run_id = item.sk.removeprefix("run#")
            meta = RunControl(self._memory, run_id, DEFAULT_TTL_SECONDS).meta()
            if meta is not None and meta.status in FINISHED_STATUSES:
                self._memory.delete(item.pk, item.sk)
            else:
                going.append(run_id)
        return going
