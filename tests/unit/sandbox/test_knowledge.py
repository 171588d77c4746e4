"""The simulated planner's knowledge: recall follows prominence, the recall knob scales it, and
confabulation is likelier (and stated less confidently) for obscure names."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

from visual_degrees_tools.sandbox import World
from visual_degrees_tools.sandbox.knowledge import DEFAULT_KNOWLEDGE, Knowledge


def star_world() -> World:
    """Two stars in many films together; each film also has bit players seen nowhere else."""
    events = []
    for i in range(40):
        people = ["Star, Alpha", "Star, Beta"] + [f"Bit{i}, Player{j}" for j in range(8)]
        if i % 2:
            people.append("Regular, Gamma")
        events.append((f"Film {i} ({1960 + i})", people))
    events.append(("Obscure Short (1999)", ["Nobody, Ann", "Nobody, Bob"]))
    return World.from_events(events)


def test_leads_of_prominent_films_are_known_far_better_than_bit_players():
    world = star_world()
    knowledge = Knowledge(world, seed=3)
    star = world.find("Alpha Star")[0]
    film = world.person_events[star][0]
    bits = [p for p in world.members[film] if world.fame[p] == 1 and p not in knowledge.leads(film)]
    assert star in knowledge.leads(film) and len(bits) >= 6
    assert knowledge.credit_recall(star, film) > 0.8
    assert all(knowledge.credit_recall(b, film) < 0.1 for b in bits)
    extras = [
        (p, e)
        for e in range(40)
        for p in world.members[e]
        if world.fame[p] == 1 and p not in knowledge.leads(e)
    ]
    known_bits = sum(knowledge.knows_credit(p, e) for p, e in extras)
    known_stars = sum(knowledge.knows_credit(star, e) for e in world.person_events[star])
    assert known_stars / 40 > 0.8 and known_bits / len(extras) < 0.1


def test_an_obscure_event_is_known_less_than_a_prominent_one():
    world = star_world()
    knowledge = Knowledge(world)
    obscure = world.find("Ann Nobody")[0]
    assert knowledge.prominence(world.person_events[obscure][0]) < knowledge.prominence(0)
    assert knowledge.credit_recall(obscure, world.person_events[obscure][0]) < 0.5


def test_the_recall_knob_scales_what_it_knows():
    world = star_world()
    full = Knowledge(world, seed=1)
    weak = Knowledge(world, seed=1, model=replace(DEFAULT_KNOWLEDGE, recall=0.3))
    star = world.find("Alpha Star")[0]
    gamma = world.find("Gamma Regular")[0]
    assert weak.credit_recall(star, 0) == min(DEFAULT_KNOWLEDGE.max_recall, full.credit_recall(star, 0) * 0.3)
    assert len(weak.films(star)) < len(full.films(star))
    assert len(weak.costars(gamma)) <= len(full.costars(gamma))


def test_confabulations_favour_obscure_names_and_are_stated_less_confidently():
    world = star_world()
    knowledge = Knowledge(world, seed=2, model=replace(DEFAULT_KNOWLEDGE, confabulation=1.0))
    a, b = world.find("Alpha Star")[0], world.find("Beta Star")[0]
    bits = [p for p in range(world.size) if world.fame[p] == 1][:60]
    obscure = sum(knowledge.confabulates(x, y) for x in bits[:30] for y in bits[30:])
    famous = sum(knowledge.confabulates(a, y) for y in bits[30:])
    assert obscure > famous
    assert knowledge.confidence(a, b, true=True) > knowledge.confidence(bits[0], bits[1], true=False)


def test_a_route_goes_through_remembered_collaborations_within_the_hop_limit():
    world = star_world()
    knowledge = Knowledge(world, seed=5)
    alpha, beta = world.find("Alpha Star")[0], world.find("Beta Star")[0]
    route = knowledge.route({alpha: 0}, {beta: 0}, max_len=6)
    assert route is not None and route[0] == alpha and route[-1] == beta
    for x, y in pairwise(route):
        assert y in knowledge.costars(x)
    assert knowledge.route({alpha: 3}, {beta: 3}, max_len=6) is None  # 3 + 1 + 3 hops is too long
    banned = frozenset({(min(alpha, beta), max(alpha, beta))})
    detour = knowledge.route({alpha: 0}, {beta: 0}, max_len=6, banned=banned)
    assert detour is None or len(detour) > 2
    assert knowledge.route({alpha: 0}, {beta: 0}, max_len=6) == route  # deterministic
