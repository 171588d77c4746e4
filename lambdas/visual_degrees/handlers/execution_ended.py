"""EventBridge: an execution of the workflow ended FAILED, TIMED_OUT or ABORTED ("Step Functions
Execution Status Change"). A run whose final step, HandleError or a cancel wrote its ending keeps it
(the usual FAILED after HandleError changes nothing); a run the execution left without one (a timeout
between steps, a StopExecution from the console, a failure outside every Catch) gets an ending that
says how its execution ended, pushed to whoever follows it (lifecycle/endings.end_after_execution).
Idempotent under EventBridge's retries: every ending goes under the one logical key.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.parser.models import EventBridgeModel
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from visual_degrees.domain.ids import run_of_execution
from visual_degrees.domain.models import DEFAULT_TTL_SECONDS
from visual_degrees.domain.outcomes import BY_EVENT
from visual_degrees.handlers.catalog import EXECUTION_ENDS, EXECUTION_EVENT_SOURCE, EXECUTION_STATUS_CHANGE
from visual_degrees.handlers.observability import instrumented, logger
from visual_degrees.handlers.run_metrics import report_finished
from visual_degrees.handlers.wiring import current_runtime
from visual_degrees.lifecycle.endings import end_after_execution
from visual_degrees.lifecycle.run_access import stored_ttl


class ExecutionDetail(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    execution_arn: str
    state_machine_arn: str
    # The run id, or `<run id>--c<segment>` for a continuation (domain/ids.execution_name).
    name: str = Field(min_length=1, max_length=80)
    status: str


class ExecutionStatusChange(EventBridgeModel):
    """Powertools' EventBridge event, its detail Step Functions' execution status change."""

    detail: ExecutionDetail


@instrumented
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        change = ExecutionStatusChange.model_validate(event)
    except ValidationError:
        logger.warning("not an execution status change")
        return {"ended": None}
    detail = change.detail
    run_id, segment = run_of_execution(detail.name)
    logger.append_keys(runId=run_id, segment=segment, executionStatus=detail.status)
    expected = (EXECUTION_EVENT_SOURCE, EXECUTION_STATUS_CHANGE)
    if (change.source, change.detail_type) != expected or detail.status not in EXECUTION_ENDS:
        logger.warning("not an execution end this function handles")
        return {"ended": None}
    runtime = current_runtime()
    ending = end_after_execution(
        runtime.memory, runtime.sink, run_id, detail.status, at=runtime.clock.now(), segment=segment
    )
    if ending is None:
        logger.info("no such run; nothing to end")
        return {"ended": None}
    # Once per run whoever ended it (a marker), under the outcome of the ending that holds.
    ttl = stored_ttl(runtime.memory, run_id) or DEFAULT_TTL_SECONDS
    report_finished(runtime.memory, run_id, BY_EVENT[ending.type].metric, ttl, segment=segment)
    logger.info("run ending after its execution", extra={"event": ending.type, "seq": ending.seq})
    return {"ended": ending.type, "seq": ending.seq}
