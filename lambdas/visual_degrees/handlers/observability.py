"""One Logger, Tracer and Metrics for every handler, and the one decorator stack they all wear.

Logs are Powertools JSON with structured keys (runId, step, connectionId, …); the runtime package's
own loggers (`visual_degrees.*`) write through the same handler, so every line has one shape and the
keys a handler appended. Events, responses and tokens are never logged (see infra: log_event and
capture_response are off as well).
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit, single_metric

from visual_degrees.constants import SERVICE_NAME
from visual_degrees.handlers.catalog import (
    BUDGET_EXHAUSTED,
    METRICS_NAMESPACE,
    OUTCOME_DIMENSION,
    RUNS_FINISHED,
    SERVICE_DIMENSION,
    SPEND_USD,
)

Handler = Callable[[dict[str, Any], Any], Any]

logger = Logger(service=SERVICE_NAME)
# botocore now (every function calls AWS); httpx only once a step builds the live providers, so the
# functions that never call a provider do not import httpx at cold start (patch_all would).
tracer = Tracer(service=SERVICE_NAME, patch_modules=("botocore",))
metrics = Metrics(namespace=METRICS_NAMESPACE, service=SERVICE_NAME)

# One JSON line per record: neither logger hands its records on to a root handler (Lambda's own).
logging.getLogger(SERVICE_NAME).propagate = False
_package = logging.getLogger("visual_degrees")
_package.handlers = [logger.registered_handler]
_package.setLevel(logger.log_level)
_package.propagate = False
# Most invocations (routes, orchestration steps) have no metric to publish; that is not news.
warnings.filterwarnings("ignore", message="No application metrics to publish", category=UserWarning)


def instrumented(handler: Handler) -> Handler:
    """Lambda context in every log line (state cleared per invocation), an X-Ray segment, metrics
    flushed at the end. The same order on every handler."""
    traced = tracer.capture_lambda_handler(metrics.log_metrics(handler), capture_response=False)
    wrapped: Handler = logger.inject_lambda_context(traced, log_event=False, clear_state=True)
    return wrapped


def trace_http_clients() -> None:
    """X-Ray subsegments for the providers' HTTP calls (search, image fetches, Gemini)."""
    tracer.patch(("httpx",))


def count_finished(outcome: str) -> None:
    """RunsFinished{Outcome}: its own metric set, so the Outcome dimension stays off the others."""
    with single_metric(
        name=RUNS_FINISHED,
        unit=MetricUnit.Count,
        value=1,
        namespace=METRICS_NAMESPACE,
        default_dimensions={SERVICE_DIMENSION: SERVICE_NAME},
    ) as metric:
        metric.add_dimension(name=OUTCOME_DIMENSION, value=outcome)


def count_budget_exhausted() -> None:
    metrics.add_metric(name=BUDGET_EXHAUSTED, unit=MetricUnit.Count, value=1)


def add_spend(usd: float) -> None:
    metrics.add_metric(name=SPEND_USD, unit=MetricUnit.NoUnit, value=usd)
