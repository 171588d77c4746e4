"""Every function the CDK app deploys has its handler module, bound to the right step or route, and
the handlers' catalog agrees with the state machine definition."""

from __future__ import annotations

from importlib import import_module

import pytest

from visual_degrees.constants import STATE_TASKS, WEBSOCKET_ROUTES
from visual_degrees.handlers.catalog import (
    FINAL_STEPS,
    OUTCOMES,
    PLANNING_STEPS,
    PROVIDER_STEPS,
    SEARCHING_STEPS,
)
from visual_degrees.handlers.routes import route_handler
from visual_degrees.handlers.step_handler import step_handler
from visual_degrees_tools.local.asl.definition import load_definition

STEPS = {task.step for task in STATE_TASKS}


@pytest.mark.parametrize("task", STATE_TASKS, ids=lambda t: t.step)
def test_each_task_state_has_a_handler_running_its_step(task):
    module = import_module(f"visual_degrees.handlers.{task.step}")
    assert module.handler.step == task.step


@pytest.mark.parametrize(("route_key", "module_name"), WEBSOCKET_ROUTES.items())
def test_each_route_has_a_handler_serving_its_route(route_key, module_name):
    module = import_module(f"visual_degrees.handlers.{module_name}")
    assert module.handler.route_key == route_key


def test_the_authorizer_module_has_a_handler():
    assert callable(import_module("visual_degrees.handlers.ws_authorizer").handler)


def test_unknown_steps_and_routes_are_refused_when_wiring():
    with pytest.raises(KeyError):
        step_handler("s8_teleport")
    with pytest.raises(KeyError):
        route_handler("deleteEverything")


def test_the_catalog_names_only_real_steps():
    assert SEARCHING_STEPS | PLANNING_STEPS == PROVIDER_STEPS <= STEPS
    assert set(FINAL_STEPS) <= STEPS and set(FINAL_STEPS.values()) == set(OUTCOMES)
    assert not PROVIDER_STEPS & set(FINAL_STEPS)


def test_the_final_steps_are_exactly_the_task_states_that_end_a_run():
    # A run ends in a Task that ends the execution or hands over to a Fail state.
    definition = load_definition()
    states = definition["States"]
    step_of = {task.state: task.step for task in STATE_TASKS}
    ending = {
        step_of[name]
        for name, state in states.items()
        if state["Type"] == "Task"
        and (state.get("End") or states.get(state.get("Next", ""), {}).get("Type") in {"Fail", "Succeed"})
    }
    assert ending == set(FINAL_STEPS)
