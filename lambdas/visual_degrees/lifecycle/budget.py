"""Budgets, reserved before every paid call with an atomic counter that refuses to pass its ceiling.

A refused reservation means the call is not made; no retry or concurrent step can overrun because the
ceiling is checked by the store in the same write that counts.
"""

from __future__ import annotations

from typing import Literal

from visual_degrees.domain.costs import CostTable
from visual_degrees.domain.models import Budgets
from visual_degrees.domain.records import Usage
from visual_degrees.lifecycle.event_log import run_pk
from visual_degrees.ports import Increment, Memory

Resource = Literal["searches", "recognitions", "llmCalls"]
_SK = "budget"
_MICRO = 1_000_000


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
        if new is None:
            return False
        unit = {"searches": self._costs.search_usd, "recognitions": self._costs.recognition_usd}.get(resource)
        if unit:
            self._add("spendMicroUsd", round(unit * _MICRO))
        return True

    def record_llm_tokens(self, tokens_in: int, tokens_out: int) -> None:
        self._add("llmTokensIn", tokens_in)
        self._add("llmTokensOut", tokens_out)
        self._add("spendMicroUsd", round(self._costs.llm_usd(tokens_in, tokens_out) * _MICRO))

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

    def usage(self) -> Usage:
        """What the run spent so far (every ending carries it)."""
        used = self.used()
        return Usage(
            searches=used.get("searches", 0),
            recognitions=used.get("recognitions", 0),
            llm_calls=used.get("llmCalls", 0),
            llm_tokens_in=used.get("llmTokensIn", 0),
            llm_tokens_out=used.get("llmTokensOut", 0),
            cost_usd=round(used.get("spendMicroUsd", 0) / _MICRO, 6),
            failed_searches=used.get("searchFailures", 0),
        )

    def _add(self, name: str, amount: int) -> None:
        if amount:
            self._memory.increment(Increment(self._pk, _SK, name, amount=amount, ttl_seconds=self._ttl))
