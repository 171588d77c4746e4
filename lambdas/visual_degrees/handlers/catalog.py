"""What the handlers and the CDK app must agree on: which steps call which providers, how a run's
final step names its outcome, and the custom metrics the alarms read. Pure data: infra imports it at
synth time, so nothing here may touch AWS or import a heavy module.
"""

from __future__ import annotations

from visual_degrees.domain.outcomes import ENDINGS, MetricOutcome

# Steps that call the image search, fetcher and recogniser (they get the provider-key secret and
# Rekognition), and the one that calls the planner. Every other step only uses run memory and events.
SEARCHING_STEPS = frozenset(
    {"direct_edge_attempt", "candidate_discovery", "verify_next_edge", "bridge_toward_target"}
)
PLANNING_STEPS = frozenset({"select_next_expansion"})
PROVIDER_STEPS = SEARCHING_STEPS | PLANNING_STEPS

# The metric outcome of each ending, and the final step of each (the state machine reaches exactly
# one of them per run): both read from the one table of endings (domain/outcomes.py).
OUTCOMES: tuple[MetricOutcome, ...] = tuple(e.metric for e in ENDINGS)
FINAL_STEPS: dict[str, MetricOutcome] = {e.final_step: e.metric for e in ENDINGS}
BUDGET_STOP_REASON = "budget"  # RunState.stopReason the BudgetExhausted Pass state writes

# Custom metrics (Powertools Metrics, EMF). Powertools adds the `service` dimension to each.
METRICS_NAMESPACE = "VisualDegrees"
SERVICE_DIMENSION = "service"
RUNS_FINISHED = "RunsFinished"  # Count, + dimension Outcome; once per run, by its final step
OUTCOME_DIMENSION = "Outcome"
BUDGET_EXHAUSTED = "BudgetExhausted"  # Count; once per run that a budget ended
SPEND_USD = "SpendUsd"  # provider dollars, emitted by each step for what it paid (the budget's delta)

# Step Functions' event for an execution that ended, and the ends after which a run may still lack its
# ending (the EventBridge rule forwards exactly these to handlers/execution_ended.py).
EXECUTION_EVENT_SOURCE = "aws.states"
EXECUTION_STATUS_CHANGE = "Step Functions Execution Status Change"
EXECUTION_ENDS = ("FAILED", "TIMED_OUT", "ABORTED")
