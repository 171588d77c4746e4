"""The search strategy port: the decisions the states S1–S5 need, one method each, and what they come to.

A step builds the run's strategy (search/strategies: `seed`, `both_ends` or `caption_leads`, chosen
by the run's knobs) and its scope, calls the one method of its state, and turns the `StepResult`
into the flags its Choice state routes on. The steps never ask which strategy runs; a strategy
never touches the payload's flags. What `reached` means is the strategy's: a step only reports it,
so a strategy may go on after its first proven chain (looking for a shorter one, say) by returning
`reached=False` with something left to do, without a step changing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from visual_degrees.domain.records import Position
from visual_degrees.domain.strategy import Knobs
from visual_degrees.search.observe import Observed
from visual_degrees.search.scope import Rules, SearchScope


@dataclass(frozen=True)
class StepResult:
    """What one decision came to, in the state machine's terms.

    `reached`: the run may finish now (its strategy judged a chain proven and settled). `verified`:
    S4 proved the pair it was given. `found`: there is something to try next (S2: someone to
    prove a link to; S3: a pair picked; S4: candidates left). `exhausted`: nobody is left to
    search (discovery is over). `position`: where the search stands now (None: where it stood).
    `observed`: what the decision's paid calls saw, for the budget flags; None when it made none
    and left the flags as they were.
    """

    reached: bool = False
    verified: bool = False
    found: bool = False
    exhausted: bool = False
    position: Position | None = None
    observed: tuple[Observed, ...] | None = ()

    def flags(self, scope: SearchScope) -> dict[str, Any]:
        """The payload fields every step sets from a result: the position and the budget flags."""
        changes = self.position.fields() if self.position is not None else {}
        if self.observed is not None:
            changes.update(budget_flags(scope, *self.observed))
        return changes


def budget_flags(scope: SearchScope, *observed: Observed) -> dict[str, Any]:
    """Which budget (if any) ended this step's spending: a refused reservation or the runtime."""
    exhausted = next((o.exhausted for o in observed if o.exhausted), None)
    if exhausted is None and scope.runtime_exceeded():
        exhausted = "runtime"
    return {"budget_exhausted": exhausted is not None, "exhausted": exhausted}


class SearchStrategy(Protocol):
    """One way to search, behind the states S1–S5. `knobs` are the run's (its strategy's row with its
    switches); only the strategy reads them. `rules` is what they say about observing and keeping
    evidence, which the search core applies the same way for every strategy."""

    knobs: Knobs
    rules: Rules

    def direct(self, scope: SearchScope) -> StepResult:
        """S1: is there one photo of A with B (or a chain already known)?"""
        ...

    def discover(self, scope: SearchScope) -> StepResult:
        """S2: find someone to try next, or say nobody is left."""
        ...

    def select(self, scope: SearchScope) -> StepResult:
        """S3: pick the pair to prove next (`position.frontier` — `position.selected`)."""
        ...

    def verify(self, scope: SearchScope) -> StepResult:
        """S4: prove the picked pair."""
        ...

    def bridge(self, scope: SearchScope) -> StepResult:
        """S5: move on from the pair just proven towards the other end."""
        ...


@dataclass(frozen=True)
class Price:
    """The most one attempt to prove a pair may cost: paid searches and recognitions."""

    searches: int = 0
    recognitions: int = 0
    llm_calls: int = 0


@runtime_checkable
class Shortener(Protocol):
    """A strategy that can look for a shorter chain once one is proven (search/shortening), from
    what its run already holds: leads, people seen with both ends, the planner's hunches."""

    def shorter(self, scope: SearchScope, hops: int) -> list[str] | None:
        """The first unproven pair of the cheapest chain A..B of at most `hops` pairs the run's
        evidence suggests; [] when the run graph holds one already, None when nothing suggests one."""
        ...

    def recall(self, scope: SearchScope, chain: list[str]) -> None:
        """Bring what earlier runs read about the chain's people into the run's leads, at no paid
        call (an answer read from the evidence graph holds no lead of its own)."""
        ...

    def can_ask(self, scope: SearchScope, hops: int) -> bool:
        """Is there someone to ask (the planner) for chains of at most `hops` pairs, not asked yet?"""
        ...

    def ask(self, scope: SearchScope, hops: int) -> bool:
        """Ask, in one call, for chains of at most `hops` pairs; True if it named new pairs."""
        ...

    def price(self, scope: SearchScope, pair: list[str]) -> Price:
        """The most proving `pair` (as `prove` would) may cost."""
        ...

    def prove(self, scope: SearchScope, pair: list[str], tag: str) -> Observed:
        """Spend on proving `pair`, its decisions journalled under `tag`."""
        ...

    def pair_page(self, scope: SearchScope, pair: list[str]) -> tuple[str, int] | None:
        """The pair's own search as the run read it, and how many results it gave (None: unread)."""
        ...

    def names(self, scope: SearchScope, pair: list[str]) -> list[str]:
        """The pair's display names, as the run's titles or its planner wrote them: someone only a
        hunch names was never recognised, so the run's evidence has no name for them."""
        ...
