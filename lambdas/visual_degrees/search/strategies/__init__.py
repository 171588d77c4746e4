"""The run's search strategy, chosen by its knobs: captions read as leads (the default, which looks
for a shorter chain before answering: search/shortening), meeting in the middle, or the seed's
one-sided rounds. Each implements search/port.SearchStrategy."""

from __future__ import annotations

from visual_degrees.domain.models import RunState
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.search.port import SearchStrategy
from visual_degrees.search.scope import SearchScope
from visual_degrees.search.shortening.strategy import ThenShorten
from visual_degrees.search.strategies.both_ends.strategy import BothEnds
from visual_degrees.search.strategies.caption_leads.strategy import CaptionLeads
from visual_degrees.search.strategies.seed.strategy import Seed


def strategy_for(state: RunState) -> SearchStrategy:
    """The run's strategy with the run's own knobs (its options: `strategy` and `knobs`)."""
    knobs = state.options.resolved_knobs()
    if knobs.caption_leads:
        return ThenShorten(CaptionLeads(knobs))
    if knobs.both_ends:
        return BothEnds(knobs)
    return Seed(knobs)


def begin(ctx: StepContext, state: RunState) -> tuple[SearchStrategy, SearchScope]:
    """A step's strategy, and its scope with the rules that strategy keeps evidence by."""
    strategy = strategy_for(state)
    return strategy, SearchScope(ctx, state, strategy.rules)
