"""The shortening phase in front of a strategy: the strategy searches as it does until it judges a
chain proven; in that same step, before the run answers, phase.py looks for a shorter one. No state
of the machine changes: the step still reports `reached`, and S6 answers with the shortest chain
the run graph then holds."""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from visual_degrees.domain.strategy import Knobs
from visual_degrees.search.observe import Observed
from visual_degrees.search.port import Price, SearchStrategy, Shortener, StepResult
from visual_degrees.search.scope import Rules, SearchScope
from visual_degrees.search.shortening.phase import shorten


class ShortenableStrategy(SearchStrategy, Shortener, Protocol):
    """A strategy that can also look for a shorter chain."""


class ThenShorten:
    def __init__(self, inner: ShortenableStrategy) -> None:
        self.inner = inner
        self.knobs: Knobs = inner.knobs
        self.rules: Rules = inner.rules

    def direct(self, scope: SearchScope) -> StepResult:
        return self._settled(scope, self.inner.direct(scope))

    def discover(self, scope: SearchScope) -> StepResult:
        return self._settled(scope, self.inner.discover(scope))

    def select(self, scope: SearchScope) -> StepResult:
        return self._settled(scope, self.inner.select(scope))

    def verify(self, scope: SearchScope) -> StepResult:
        return self._settled(scope, self.inner.verify(scope))

    def bridge(self, scope: SearchScope) -> StepResult:
        return self._settled(scope, self.inner.bridge(scope))

    def _settled(self, scope: SearchScope, result: StepResult) -> StepResult:
        if not result.reached:
            return result
        observed = shorten(scope, self.inner)
        return replace(result, observed=(*(result.observed or ()), *observed)) if observed else result

    # ---- the strategy's own shortening decisions, for the answer (verdict.py) -----------------

    def shorter(self, scope: SearchScope, hops: int) -> list[str] | None:
        return self.inner.shorter(scope, hops)

    def recall(self, scope: SearchScope, chain: list[str]) -> None:
        self.inner.recall(scope, chain)

    def can_ask(self, scope: SearchScope, hops: int) -> bool:
        return self.inner.can_ask(scope, hops)

    def ask(self, scope: SearchScope, hops: int) -> bool:
        return self.inner.ask(scope, hops)

    def price(self, scope: SearchScope, pair: list[str]) -> Price:
        return self.inner.price(scope, pair)

    def prove(self, scope: SearchScope, pair: list[str], tag: str) -> Observed:
        return self.inner.prove(scope, pair, tag)

    def pair_page(self, scope: SearchScope, pair: list[str]) -> tuple[str, int] | None:
        return self.inner.pair_page(scope, pair)

    def names(self, scope: SearchScope, pair: list[str]) -> list[str]:
        return self.inner.names(scope, pair)
