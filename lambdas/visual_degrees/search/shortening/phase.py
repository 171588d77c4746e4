"""Looking for a shorter chain once one is proven, before answering.

The first chain proven is the cheapest to prove, not the shortest. In the step that proves it, the
run spends a bounded extra (`budgets.shortenShare` of what it spent so far, 25 % by default) on the
cheapest chains of fewer pairs that what it already holds suggests: a caption naming two people of
the chain who are not next to each other, someone seen with both ends, a pair the planner said
worked together (the strategy prices and proves them: port.Shortener); when none is left, the
planner is asked once, for chains of fewer pairs, if its call fits the allowance. Every shorter
chain proven is shown as a `path_update`, and the search goes on for one shorter still (a +2 answer
made +1 is not the fewest). It stops at one degree, when nothing cheap is left to try, or before an
attempt that could pass the allowance or a budget: an attempt is priced at the most it may cost
first, so the run's budgets are never the ones that stop it. Every decision is journalled, so a
re-run step repeats the same attempts; what was tried is kept in the run's meta for the answer
(verdict.py).

An answer read from the evidence graph cost nothing, so no share of it buys a check. An operator may
give every answer at least `budgets.shortenMinUsd` (0 by default); with it, the titles earlier runs
read naming the chain's people are read back first (free), as leads to a chain of fewer pairs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

from visual_degrees.domain.degrees import Shortening, Stopped
from visual_degrees.domain.wording import plural
from visual_degrees.search.answer_chain import standing
from visual_degrees.search.observe import Observed
from visual_degrees.search.port import Price, Shortener
from visual_degrees.search.progress import chain_payload
from visual_degrees.search.scope import SearchScope

T = TypeVar("T")
MAX_ATTEMPTS = 8  # pairs one step may try (each is at most a search and two recognitions)
LLM_TOKENS = (2_000, 500)  # a planner call's tokens (in, out), taken before the run made any


@dataclass(frozen=True)
class Allowance:
    """What the search for a shorter chain may spend: `share` of the run's spend when it began, and
    never less than `least_usd`."""

    start_usd: float
    share: float
    least_usd: float = 0.0

    @property
    def limit_usd(self) -> float:
        return max(self.share * self.start_usd, self.least_usd)

    def spent_usd(self, scope: SearchScope) -> float:
        return max(0.0, scope.budget.usage().cost_usd - self.start_usd)

    def affords(self, scope: SearchScope, price: Price) -> bool:
        """Whether an attempt costing at most `price` fits what is left of the allowance and of the
        run's own budgets (so no reservation of it can be refused)."""
        costs = scope.ctx.costs
        most = price.searches * costs.search_usd + price.recognitions * costs.recognition_usd
        most += price.llm_calls * llm_call_usd(scope)
        if self.spent_usd(scope) + most > self.limit_usd + 1e-9:
            return False
        budget = scope.budget
        return (
            budget.remaining("searches") >= price.searches
            and budget.remaining("recognitions") >= price.recognitions
            and budget.remaining("llmCalls") >= price.llm_calls
            and not scope.runtime_exceeded()
        )


def llm_call_usd(scope: SearchScope) -> float:
    """What one more planner call is taken to cost: twice the run's average call so far (its prompts
    grow with what the run has seen), or LLM_TOKENS' price before any."""
    usage, costs = scope.budget.usage(), scope.ctx.costs
    if usage.llm_calls:
        calls = usage.llm_calls
        return 2 * costs.llm_usd(usage.llm_tokens_in // calls, usage.llm_tokens_out // calls)
    return costs.llm_usd(*LLM_TOKENS)


def trusted_chain(scope: SearchScope) -> list[str] | None:
    """The shortest chain A..B of pairs the answer may use (person keys), or None."""
    state, graph = scope.state, scope.graph
    strong = scope.rules.strong_confidence
    return graph.chain(
        state.person_a.key,
        state.person_b.key,
        scope.options.max_hops,
        lambda x, y: graph.trusted(x, y, strong),
    )


def shorten(scope: SearchScope, shortener: Shortener) -> tuple[Observed, ...]:
    """Look for a chain shorter than the one the run just proved (see the module's doc); what the
    attempts observed, for the budget flags."""
    chain = trusted_chain(scope)
    if chain is None:
        return ()
    hops = found = len(chain) - 1
    budgets = scope.options.budgets
    share, least = budgets.shorten_share, budgets.shorten_min_usd
    allowance = Allowance(scope.decide("shorten.start", lambda: scope.budget.usage().cost_usd), share, least)
    observed: list[Observed] = []
    tried: list[list[str]] = []
    proven = 0
    asked = False
    stopped: Stopped = "not_run" if hops <= 1 or (share <= 0 and least <= 0) else "exhausted"
    if stopped == "exhausted" and least > 0:
        shortener.recall(scope, chain)  # what earlier runs read of its people: free leads
    for attempt in range(MAX_ATTEMPTS if stopped == "exhausted" else 0):
        decide = partial(_decide, scope, f"shorten.{attempt}")
        pair = decide("", partial(shortener.shorter, scope, hops - 1))
        if pair == []:  # a shorter chain is proven already (S6 answers with it)
            break
        if pair is None:  # nothing the run holds suggests one: ask the planner, once
            # (not for one pair: that is the pair's own search, which the run reads first)
            if asked or hops <= 2 or not decide(".ask", partial(shortener.can_ask, scope, hops - 1)):
                break
            if not decide(".go", partial(allowance.affords, scope, Price(llm_calls=1))):
                stopped = "allowance"
                break
            scope.status(f"{plural(hops, 'degree')} proven; asking who could connect them in fewer")
            asked = True
            shortener.ask(scope, hops - 1)
            continue
        if not decide(".go", partial(allowance.affords, scope, shortener.price(scope, pair))):
            stopped = "allowance"
            break
        x, y = shortener.names(scope, pair)
        scope.status(f"{plural(hops, 'degree')} proven; is there a shorter chain? Checking {x} — {y}")
        got = shortener.prove(scope, pair, f"shorten.{attempt}.")
        observed.append(got)
        tried.append([x, y])
        proven += scope.graph.confidence(*pair) is not None
        if got.exhausted:
            stopped = "budget"
            break
        # a shorter chain through links reused from earlier runs is shown once their photos resolve
        shorter = standing(scope, f"shorter.{attempt}", partial(trusted_chain, scope))
        if shorter is not None and len(shorter) - 1 < hops:
            hops = len(shorter) - 1
            scope.status(f"A shorter chain: {plural(hops, 'degree')} instead of {found}")
            scope.emit("path_update", {**chain_payload(scope, shorter), "side": "A", "shorter": True})
            if hops <= 1:
                stopped = "shorter_found"
                break
            # A +2 answer made +1 is not yet the fewest: what is left of the allowance looks on.
    else:
        if stopped == "exhausted":
            stopped = "attempts"
    record = Shortening(
        found_hops=found,
        tried=tried,
        proven=proven,
        asked=asked,
        stopped=stopped,
        spent_usd=round(allowance.spent_usd(scope), 6),
        allowance_usd=round(allowance.limit_usd, 6),
    )
    scope.control.update_meta(shortening=record)
    return tuple(observed)


def _decide(scope: SearchScope, prefix: str, name: str, choose: Callable[[], T]) -> T:
    return scope.decide(prefix + name, choose)
