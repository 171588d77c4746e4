"""Budgets, reserved before every paid call with an atomic counter that refuses to pass its ceiling.

A refused reservation means the call is not made; no retry or concurrent step can overrun because the
ceiling is checked by the store in the same write that counts. Spend is counted from the units (and
the planner's tokens), so it is what was billed. A call the provider throttled was not billed: its
reservation is given back (`refund`, once per reservation), and the throttled answers a run may see
are bounded apart (`note_throttled`: as many again as its budget), so a budget still caps what a run
can ask of a provider.
"""

from __future__ import annotations

from typing import Literal

from visual_degrees.domain.costs import CostTable
from visual_degrees.domain.errors import ConditionFailed
from visual_degrees.domain.models import Budgets
from visual_degrees.ports import Increment, Memory, Put
from visual_degrees.services.event_log import run_pk

Resource = Literal["searches", "recognitions", "llmCalls"]
_SK = "budget"
_MICRO = 1_000_000
_LLM_SPEND = "llmSpendMicroUsd"
# The usage counter of each resource's throttled calls (none of them billed).
THROTTLED: dict[Resource, str] = {
    "searches": "throttledSearches",
    "recognitions": "throttledRecognitions",
    "llmCalls": "throttledLlmCalls",
}


class Budget:
    def __init__(self, memory: Memory, run_id: str, limits: Budgets, costs: CostTable, ttl_seconds: int):
        self._memory = memory
        self._pk = run_pk(run_id)
        self._limits = {
            "searches": limits.searches,
            "recognitions": limits.recognitions,
            "llmCalls": limits.llm_calls,
        }
        self._costs = costs
        self._ttl = ttl_seconds

    def reserve(self, resource: Resource) -> bool:
        """Claim one unit of `resource`; False (and nothing counted) when the budget is spent."""
        new = self._memory.increment(
            Increment(self._pk, _SK, resource, ceiling=self._limits[resource], ttl_seconds=self._ttl)
        )
        return new is not None

    def refund(self, resource: Resource, key: str) -> bool:
        """Give back one reservation of `resource` whose call was throttled (never billed): its unit
        and with it its spend (spend is counted from the units), in one atomic write with a mark of
        `key`, the reservation's name, so it is given back once whatever retries the write or its
        step (False: it was already). The call is then counted as throttled."""
        mark = Put(self._pk, f"refund#{key}", {"resource": resource}, self._ttl, if_absent=True)
        give_back = Increment(self._pk, _SK, resource, amount=-1, ttl_seconds=self._ttl)
        try:
            self._memory.transact([mark, give_back])
        except ConditionFailed as refused:
            if refused.index == 0:
                return False
            raise
        self._add(THROTTLED[resource], 1)
        return True

    def note_throttled(self, resource: Resource) -> bool:
        """Count one throttled answer to a call of `resource` that will be retried, if the run may
        still retry one: a run sees at most as many as its budget of that resource (False, nothing
        counted: the call ends throttled, and its refund counts it)."""
        inc = Increment(
            self._pk, _SK, THROTTLED[resource], ceiling=self._limits[resource], ttl_seconds=self._ttl
        )
        return self._memory.increment(inc) is not None

    def record_llm_tokens(self, tokens_in: int, tokens_out: int) -> None:
        self._add("llmTokensIn", tokens_in)
        self._add("llmTokensOut", tokens_out)
        self._add(_LLM_SPEND, round(self._costs.llm_usd(tokens_in, tokens_out) * _MICRO))

    def note_search_outcome(self, *, failed: bool) -> int:
        """Count searches failing in a row (reset by a success); the count after this one."""
        if not failed:
            streak = self.used().get("searchFailuresInARow", 0)
            if streak:
                self._add("searchFailuresInARow", -streak)
            return 0
        self._add("searchFailures", 1)
        return (
            self._memory.increment(Increment(self._pk, _SK, "searchFailuresInARow", ttl_seconds=self._ttl))
            or 0
        )

    def remaining(self, resource: Resource) -> int:
        return max(0, self._limits[resource] - self.used().get(resource, 0))

    def used(self) -> dict[str, int]:
        item = self._memory.get(self._pk, _SK)
        return dict(item.counters) if item else {}

    def summary(self) -> dict[str, float | int]:
        used = self.used()
        return {
            "searches": used.get("searches", 0),
            "recognitions": used.get("recognitions", 0),
            "llmCalls": used.get("llmCalls", 0),
            "llmTokensIn": used.get("llmTokensIn", 0),
            "llmTokensOut": used.get("llmTokensOut", 0),
            "costUsd": round(self._spend_micro_usd(used) / _MICRO, 6),
            "failedSearches": used.get("searchFailures", 0),
            **{name: used.get(name, 0) for name in THROTTLED.values()},
        }

    def _spend_micro_usd(self, used: dict[str, int]) -> int:
        """What the billed calls cost: searches and recognitions at their unit price, the planner
        by the tokens of each call (priced when it was made)."""
        units = (
            used.get("searches", 0) * self._costs.search_usd
            + used.get("recognitions", 0) * self._costs.recognition_usd
        )
        return round(units * _MICRO) + used.get(_LLM_SPEND, 0)

    def _add(self, name: str, amount: int) -> None:
        if amount:
            self._memory.increment(Increment(self._pk, _SK, name, amount=amount, ttl_seconds=self._ttl))
