"""The capacity model (scripts/capacity_model.py): questions an hour a deployment sustains, from
per-run figures measured through the Lambda handlers (scripts/aws_figures.py --runs), and what a
question costs on Step Functions Standard or Express.

Each resource allows `quota / use per question` questions a second; the least of them binds. A
repeat question is answered from the deployment's memory at no provider call; its AWS side is
counted as a first question's (an upper bound). The shared limiter adds two conditional writes a
paid call (its client's queue, then the provider's: adapters/aws/dynamodb_slots.py).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# List prices, us-east-1 (docs/operators.md names the sources).
SFN_STANDARD_PER_TRANSITION = 0.025 / 1000
SFN_EXPRESS_PER_REQUEST = 1.00 / 1_000_000
SFN_EXPRESS_PER_GB_SECOND = 0.00001667  # billed in 64 MB steps and 100 ms
EXPRESS_MEMORY_GB = 64 / 1024
EXPRESS_MAX_SECONDS = 300  # an Express execution's hard limit
LAMBDA_PER_REQUEST = 0.20 / 1_000_000
LAMBDA_ARM_PER_GB_SECOND = 0.0000133334
DYNAMODB_PER_WRU = 0.625 / 1_000_000
DYNAMODB_PER_RRU = 0.125 / 1_000_000
WEBSOCKET_PER_MESSAGE = 1.00 / 1_000_000  # per 32 KB frame sent (first billion a month)
SEARCH_USD, RECOGNITION_USD = 0.005, 0.001

# Default quotas (docs/operators.md): Step Functions Standard state transitions and StartExecution a
# second (token-bucket refill), in us-east-1 / us-west-2 / eu-west-1 ("major") and elsewhere;
# on-demand DynamoDB throughput a table may take by default.
SFN_TRANSITIONS_PER_SECOND = {"major": 5000, "other": 800}
SFN_STARTS_PER_SECOND = {"major": 300, "other": 150}
DYNAMODB_TABLE_UNITS_PER_SECOND = 40_000
LIMITER_WRITES_PER_CALL = 2

HOW_TO_RAISE = {
    "search": "a higher Brave plan (or a second key per deployment); set VD_SEARCH_RPS / -c searchRps",
    "recognition": "a Service Quotas increase of RecognizeCelebrities TPS in the region (or a region "
    "with 50); set VD_RECOGNITION_RPS / -c recognitionRps",
    "llm": "a higher Gemini tier or Bedrock quota; set VD_LLM_RPS / -c llmRps",
    "lambda concurrency": "a Service Quotas increase of Lambda concurrent executions",
    "step functions transitions": "a Service Quotas increase of StateTransition (or Express workflows)",
    "step functions starts": "a Service Quotas increase of StartExecution",
    "dynamodb": "on-demand tables grow by themselves up to the table quota; ask for more above it",
}


@dataclass(frozen=True)
class Quotas:
    search_rps: float = 50.0  # Brave's Search plan
    recognition_rps: float = 5.0  # RecognizeCelebrities outside us-east-1, us-west-2, eu-west-1
    llm_rps: float = 16.0  # Gemini Tier 1, Flash
    lambda_concurrency: int = 1000  # the account's default
    region_class: str = "major"  # "major": us-east-1, us-west-2, eu-west-1; "other"


def per_run(runs: list[dict[str, Any]]) -> dict[str, float]:
    """Means over `runs` (aws_figures.py --runs --json), plus the limiter's writes."""

    def mean(key: Callable[[dict[str, Any]], float]) -> float:
        return statistics.fmean(key(r) for r in runs)

    def calls(run: dict[str, Any], provider: str) -> float:
        return float(run["provider_calls"][provider])

    paid = mean(lambda r: calls(r, "search") + calls(r, "recognize") + calls(r, "planner"))
    return {
        "runs measured": len(runs),
        "solved": sum(1 for r in runs if r["outcome"] == "final"),
        "searches": mean(lambda r: calls(r, "search")),
        "recognitions": mean(lambda r: calls(r, "recognize")),
        "llm calls": mean(lambda r: calls(r, "planner")),
        "state transitions": mean(lambda r: r["state_transitions"]),
        "lambda invocations": mean(lambda r: r["lambda_invocations_with_routes"]),
        "lambda seconds": mean(lambda r: r["lambda_seconds_estimate"]),
        "lambda GB-seconds": mean(lambda r: r["lambda_gb_seconds_estimate"]),
        "run seconds": mean(lambda r: r["sim_seconds"] or 0.0),
        "dynamodb RRU": mean(lambda r: r["dynamodb_rru"]),
        "dynamodb WRU (run memory)": mean(lambda r: r["dynamodb_wru"]),
        "dynamodb WRU (limiter)": LIMITER_WRITES_PER_CALL * paid,
        "websocket messages": mean(lambda r: r["post_to_connection"] + 2),
    }


def capacity(run: dict[str, float], quotas: Quotas, repeat: float) -> dict[str, float]:
    """Questions an hour each resource allows when `repeat` of them are answered from memory."""
    fresh = 1.0 - repeat

    def hourly(per_second: float, per_question: float) -> float:
        return float("inf") if per_question <= 0 else per_second * 3600.0 / per_question

    writes = run["dynamodb WRU (run memory)"] + fresh * run["dynamodb WRU (limiter)"]
    return {
        "search": hourly(quotas.search_rps, fresh * run["searches"]),
        "recognition": hourly(quotas.recognition_rps, fresh * run["recognitions"]),
        "llm": hourly(quotas.llm_rps, fresh * run["llm calls"]),
        "lambda concurrency": hourly(quotas.lambda_concurrency, run["lambda seconds"]),
        "step functions transitions": hourly(
            SFN_TRANSITIONS_PER_SECOND[quotas.region_class], run["state transitions"]
        ),
        "step functions starts": hourly(SFN_STARTS_PER_SECOND[quotas.region_class], 1.0),
        "dynamodb": hourly(DYNAMODB_TABLE_UNITS_PER_SECOND, max(writes, run["dynamodb RRU"])),
    }


def binding(limits: dict[str, float]) -> str:
    """The resource that allows the fewest questions."""
    return min(limits, key=lambda name: limits[name])


def costs(run: dict[str, float], repeat: float) -> dict[str, float]:
    """What a question costs, item by item (Step Functions both ways)."""
    fresh = 1.0 - repeat
    express_seconds = max(0.1, run["run seconds"])
    writes = run["dynamodb WRU (run memory)"] + fresh * run["dynamodb WRU (limiter)"]
    return {
        "providers": fresh * (run["searches"] * SEARCH_USD + run["recognitions"] * RECOGNITION_USD),
        "step functions standard": run["state transitions"] * SFN_STANDARD_PER_TRANSITION,
        "step functions express": SFN_EXPRESS_PER_REQUEST
        + express_seconds * EXPRESS_MEMORY_GB * SFN_EXPRESS_PER_GB_SECOND,
        "lambda": run["lambda invocations"] * LAMBDA_PER_REQUEST
        + run["lambda GB-seconds"] * LAMBDA_ARM_PER_GB_SECOND,
        "dynamodb": run["dynamodb RRU"] * DYNAMODB_PER_RRU + writes * DYNAMODB_PER_WRU,
        "websocket": run["websocket messages"] * WEBSOCKET_PER_MESSAGE,
    }
