"""The run-level metrics the alarms read, emitted exactly once per run.

A run's end is reported by whoever ends it (once per segment for a run continued after a budget ran
out: each segment ends once) (its final step, or a cancel that had to stop the
execution, or a start that failed); a marker item written if absent makes a retried final step or a
race between two enders report once. Spend is reported per step as the growth of the run's budget
ledger across the step (reservations are counted before each paid call), so the spend-per-hour alarm
sees money in the hour it was spent, including runs that fail or are cancelled later.
"""

from __future__ import annotations

from visual_degrees.domain.models import RunState
from visual_degrees.handlers.observability import add_spend, count_budget_exhausted, count_finished, logger
from visual_degrees.lifecycle.budget import Budget
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.lifecycle.event_log import run_pk
from visual_degrees.ports import Memory, Put

_MARKER = "finishReported"


def report_finished(
    memory: Memory,
    run_id: str,
    outcome: str,
    ttl_seconds: int,
    *,
    budget: bool = False,
    segment: int | None = None,
) -> bool:
    """Count the run's segment (None: the one its meta names) as finished with `outcome` unless
    someone already did; True if this call did."""
    if segment is None:
        meta = memory.get(run_pk(run_id), "meta")
        segment = int((meta.data if meta is not None else {}).get("segment", 0))
    marker = _MARKER if segment == 0 else f"{_MARKER}#c{segment}"
    if not memory.put(Put(run_pk(run_id), marker, {"outcome": outcome}, ttl_seconds, if_absent=True)):
        return False
    count_finished(outcome)
    if budget:
        count_budget_exhausted()
    logger.info("run finished", extra={"runId": run_id, "outcome": outcome, "budgetExhausted": budget})
    return True


def spent_usd(ctx: StepContext, state: RunState) -> float:
    ledger = Budget(ctx.memory, state.run_id, state.options.budgets, ctx.costs, state.options.ttl_seconds)
    return ledger.usage().cost_usd


def report_spend(usd: float) -> None:
    if usd > 0:
        add_spend(round(usd, 6))
