"""What the handlers and the CDK app must agree on: which steps call which providers, how a run's
final step names its outcome, and the custom metrics the alarms read. Pure data: infra imports it at
synth time, so nothing here may touch AWS or import a heavy module.
"""

from __future__ import annotations

from typing import Literal

# Steps that call the image search, fetcher and recogniser (they get the provider-key secret and
# Rekognition), and the one that calls the planner. Every other step only uses run memory and events.
SEARCHING_STEPS = frozenset(
    {"direct_edge_attempt", "candidate_discovery", "verify_next_edge", "bridge_toward_target"}
)
PLANNING_STEPS = frozenset({"select_next_expansion"})
PROVIDER_STEPS = SEARCHING_STEPS | PLANNING_STEPS

Outcome = Literal["success", "no_path", "cancelled", "error"]
OUTCOMES: tuple[Outcome, ...] = ("success", "no_path", "cancelled", "error")
# The final step of each ending; the state machine reaches exactly one of them per run.
FINAL_STEPS: dict[str, Outcome] = {
    "finalize_success": "success",
    "finalize_failure": "no_path",
    "cancel_run": "cancelled",
    "handle_error": "error",
}
BUDGET_STOP_REASON = "budget"  # RunState.stopReason the BudgetExhausted Pass state writes

# Custom metrics (Powertools Metrics, EMF). Powertools adds the `service` dimension to each.
METRICS_NAMESPACE = "VisualDegrees"
SERVICE_DIMENSION = "service"
RUNS_FINISHED = "RunsFinished"  # Count, + dimension Outcome; once per run, by its final step
OUTCOME_DIMENSION = "Outcome"
BUDGET_EXHAUSTED = "BudgetExhausted"  # Count; once per run that a budget ended
SPEND_USD = "SpendUsd"  # provider dollars, emitted by each step for what it paid (the budget's delta)
