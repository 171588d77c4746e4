from __future__ import annotations

import random

import pytest

from visual_degrees.domain.errors import TransientProviderError
from visual_degrees.domain.planning import CandidateSummary, PlannerContext, validate_reply
from visual_degrees_tools.sandbox.clock import EPOCH, VirtualClock
from visual_degrees_tools.sandbox.faults import FaultConfig, FaultInjector
from visual_degrees_tools.sandbox.planner import SimulatedPlanner
from visual_degrees_tools.sandbox.world import World


def contexts(world: World, count: int, seed: int = 0) -> list[PlannerContext]:
    """Contexts like S3's: a frontier, a target, and six candidates (one a co-star of the target)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        frontier, target = rng.sample(range(world.size), 2)
        costar = rng.choice([p for e in world.person_events[target] for p in world.members[e] if p != target])
        others = rng.sample(range(world.size), 5)
        offered = [p for p in dict.fromkeys([*others, costar]) if p not in (frontier, target)]
        out.append(
            PlannerContext(
                target=world.name(target),
                frontier=world.name(frontier),
                path=[world.name(frontier)],
                candidates=[
                    CandidateSummary(name=world.name(p), count=1 + rng.randrange(3), best_confidence=90.0)
                    for p in offered
                ],
                remaining_searches=10,
            )
        )
    return out


def test_replies_are_mostly_valid_with_occasional_rule_breaking(default_world):
    # Given a planner answering 400 contexts
    planner = SimulatedPlanner(default_world, seed=1)
    problems: list[str] = []
    valid = 0
    for context in contexts(default_world, 400):
        plan, errors = validate_reply(planner.plan(context), context)
        valid += plan is not None
        problems += errors
    # Then most replies pass validation, and both kinds of mistake happen now and then
    assert valid / 400 > 0.8
    assert any("is not one of the offered candidates" in p for p in problems)
    assert any("is not a template query" in p for p in problems)


def test_feedback_makes_mistakes_rarer(default_world):
    planner = SimulatedPlanner(default_world, seed=2)
    first = retried = 0
    for context in contexts(default_world, 400, seed=3):
        _, errors = validate_reply(planner.plan(context), context)
        if errors:
            first += 1
            again = context.model_copy(update={"feedback": errors})
            retried += bool(validate_reply(planner.plan(again), again)[1])
    assert first > 10
    assert retried < first / 2


def test_famous_collaborations_are_known_more_often(default_world):
    # Given every pair of people who truly shared an event
    planner = SimulatedPlanner(default_world, seed=0)
    fame = default_world.fame
    known: dict[str, list[bool]] = {"famous": [], "obscure": []}
    for cast in default_world.members:
        for a in cast:
            for b in cast:
                if a < b and (min(fame[a], fame[b]) >= 10 or max(fame[a], fame[b]) <= 2):
                    _, why = planner.belief(default_world.name(a), default_world.name(b))
                    known["famous" if fame[a] >= 10 else "obscure"].append(why == "worked with")
    # Then it recalls most collaborations of two famous people, few of two bit-part players
    famous = sum(known["famous"]) / len(known["famous"])
    obscure = sum(known["obscure"]) / len(known["obscure"])
    assert len(known["famous"]) > 50 and len(known["obscure"]) > 50
    assert famous > 0.7 and 0.0 < obscure < 0.2


def test_a_known_costar_of_the_target_is_ranked_first(default_world):
    # Given contexts whose offered candidates include one co-star of the target
    planner = SimulatedPlanner(default_world, seed=4)
    hits = trials = 0
    for context in contexts(default_world, 300, seed=5):
        costars = {
            c.name for c in context.candidates if planner.belief(c.name, context.target)[1] == "worked with"
        }
        if costars:
            trials += 1
            hits += planner.plan(context).next_candidates[0] in costars
    # Then, when it believes one of them worked with the target, that one usually leads
    assert trials > 30
    assert hits / trials > 0.7


def test_answers_are_deterministic_plain_and_costed(default_world):
    clock = VirtualClock()
    planner = SimulatedPlanner(default_world, seed=6, clock=clock)
    context = contexts(default_world, 1, seed=7)[0]
    reply = planner.plan(context)
    assert reply == SimulatedPlanner(default_world, seed=6).plan(context)
    assert clock.now() == pytest.approx(EPOCH + 1.5)
    assert reply.tokens_in > 400 and 10 < reply.tokens_out < 400
    assert len(reply.narration) <= 280 and "<" not in reply.narration
    assert 1 <= len(reply.next_candidates) <= 5
    seeds = {tuple(SimulatedPlanner(default_world, seed=s).plan(context).next_candidates) for s in range(8)}
    assert len(seeds) > 1


def test_planner_errors_are_transient(default_world):
    planner = SimulatedPlanner(default_world, faults=FaultInjector(FaultConfig(planner_error=1.0)))
    with pytest.raises(TransientProviderError):
        planner.plan(contexts(default_world, 1)[0])


def test_with_nothing_offered_it_offers_nothing_valid(default_world):
    # Given no candidates, whatever it says cannot pass validation (the fallback decides)
    context = PlannerContext(target="Vesna Hawthorne", frontier="Niall Halloran", candidates=[])
    reply = SimulatedPlanner(default_world).plan(context)
    assert validate_reply(reply, context)[0] is None
