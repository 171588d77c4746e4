"""Compile and validate a state machine definition into the states the local engine runs.

Everything is checked here, once: structure (StartAt, Next targets, exactly one of Next/End,
reachability), field types, and that only supported ASL is used. Any other ASL feature raises
UnsupportedAslFeature naming the state and the field, so a definition either runs with Step
Functions' semantics or is refused up front.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, ClassVar

from visual_degrees_tools.local.asl.choice import Predicate, compile_rule
from visual_degrees_tools.local.asl.errors import AslDefinitionError, UnsupportedAslFeature
from visual_degrees_tools.local.asl.paths import (
    ReferencePath,
    Template,
    compile_template,
    parse_optional_path,
)
from visual_degrees_tools.local.asl.retry import Catcher, Retrier, parse_catch, parse_retry

_MAX_TIMEOUT = 99_999_999
_TOP_LEVEL_FIELDS = frozenset({"StartAt", "States", "Comment", "QueryLanguage", "TimeoutSeconds", "Version"})
_COMMON_FIELDS = frozenset({"Type", "Comment", "QueryLanguage"})
_STATE_FIELDS: dict[str, frozenset[str]] = {
    "Task": frozenset(
        {"Resource", "TimeoutSeconds", "InputPath", "Parameters", "ResultPath", "OutputPath"}
        | {"Retry", "Catch", "Next", "End"}
    ),
    "Choice": frozenset({"Choices", "Default", "InputPath", "OutputPath"}),
    "Pass": frozenset({"Result", "ResultPath", "InputPath", "OutputPath", "Parameters", "Next", "End"}),
    "Succeed": frozenset({"InputPath", "OutputPath"}),
    "Fail": frozenset({"Error", "Cause"}),
}
_UNSUPPORTED_TYPES = frozenset({"Wait", "Parallel", "Map"})
# Optimised service integrations and activities answer in other shapes than a Lambda's payload.
_STATES_RESOURCE = re.compile(r"arn:[^:]+:states:")


@dataclass(frozen=True, slots=True)
class TaskState:
    kind: ClassVar[str] = "Task"
    name: str
    resource: str
    timeout_seconds: int | None
    input_path: ReferencePath | None
    parameters: Template | None
    result_path: ReferencePath | None
    output_path: ReferencePath | None
    retriers: tuple[Retrier, ...]
    catchers: tuple[Catcher, ...]
    next: str | None


@dataclass(frozen=True, slots=True)
class ChoiceState:
    kind: ClassVar[str] = "Choice"
    name: str
    input_path: ReferencePath | None
    output_path: ReferencePath | None
    choices: tuple[tuple[Predicate, str], ...]
    default: str | None


@dataclass(frozen=True, slots=True)
class PassState:
    kind: ClassVar[str] = "Pass"
    name: str
    input_path: ReferencePath | None
    parameters: Template | None
    has_result: bool
    result: Any
    result_path: ReferencePath | None
    output_path: ReferencePath | None
    next: str | None


@dataclass(frozen=True, slots=True)
class SucceedState:
    kind: ClassVar[str] = "Succeed"
    name: str
    input_path: ReferencePath | None
    output_path: ReferencePath | None


@dataclass(frozen=True, slots=True)
class FailState:
    kind: ClassVar[str] = "Fail"
    name: str
    error: str | None
    cause: str | None


State = TaskState | ChoiceState | PassState | SucceedState | FailState


@dataclass(frozen=True, slots=True)
class StateMachine:
    start_at: str
    states: dict[str, State]
    timeout_seconds: int | None


def compile_definition(definition: dict[str, Any] | str) -> StateMachine:
    if isinstance(definition, str):
        try:
            definition = json.loads(definition)
        except json.JSONDecodeError as exc:
            raise AslDefinitionError(f"the definition is not valid JSON: {exc}") from None
    if not isinstance(definition, dict):
        raise AslDefinitionError("the definition must be a JSON object")
    unknown = set(definition) - _TOP_LEVEL_FIELDS
    if unknown:
        raise UnsupportedAslFeature(
            f"top-level field(s) {', '.join(sorted(unknown))} not supported by the local engine"
        )
    _check_query_language(definition, "the definition")
    if "Version" in definition and definition["Version"] != "1.0":
        raise AslDefinitionError(f"'Version' must be \"1.0\", got {definition['Version']!r}")
    raw_states = definition.get("States")
    if not isinstance(raw_states, dict) or not raw_states:
        raise AslDefinitionError("'States' must be a non-empty object")
    start_at = definition.get("StartAt")
    if not isinstance(start_at, str):
        raise AslDefinitionError("'StartAt' must name a state")
    if start_at not in raw_states:
        raise AslDefinitionError(f"'StartAt' names {start_at!r}, which is not a state")
    states = {name: _compile_state(name, raw) for name, raw in raw_states.items()}
    _check_transitions(start_at, states)
    return StateMachine(
        start_at=start_at,
        states=states,
        timeout_seconds=_timeout(definition, "the definition"),
    )


def _check_query_language(block: dict[str, Any], where: str) -> None:
    language = block.get("QueryLanguage", "JSONPath")
    if language != "JSONPath":
        raise UnsupportedAslFeature(f"{where}: QueryLanguage {language!r} is not supported (only JSONPath)")


def _timeout(block: dict[str, Any], where: str) -> int | None:
    if "TimeoutSeconds" not in block:
        return None
    value = block["TimeoutSeconds"]
    if type(value) is not int or not 1 <= value <= _MAX_TIMEOUT:
        raise AslDefinitionError(f"{where}: 'TimeoutSeconds' must be a positive integer, got {value!r}")
    return value


def _compile_state(name: str, raw: Any) -> State:
    where = f"state {name!r}"
    if not isinstance(raw, dict):
        raise AslDefinitionError(f"{where}: a state must be an object")
    kind = raw.get("Type")
    if kind in _UNSUPPORTED_TYPES:
        raise UnsupportedAslFeature(
            f"{where}: field 'Type' is {kind!r}, which the local engine does not support "
            "(supported: Task, Choice, Pass, Succeed, Fail)"
        )
    if kind not in _STATE_FIELDS:
        raise AslDefinitionError(f"{where}: unknown state Type {kind!r}")
    unknown = set(raw) - _STATE_FIELDS[kind] - _COMMON_FIELDS
    if unknown:
        fields = ", ".join(sorted(unknown))
        raise UnsupportedAslFeature(
            f"{where}: field(s) {fields} not supported in a {kind} state by the local engine"
        )
    _check_query_language(raw, where)
    if kind == "Task":
        return _compile_task(name, raw, where)
    if kind == "Choice":
        return _compile_choice(name, raw, where)
    if kind == "Pass":
        return PassState(
            name=name,
            input_path=parse_optional_path(raw, "InputPath", where),
            parameters=_parameters(raw, where),
            has_result="Result" in raw,
            result=raw.get("Result"),
            result_path=parse_optional_path(raw, "ResultPath", where),
            output_path=parse_optional_path(raw, "OutputPath", where),
            next=_next_or_end(raw, where),
        )
    if kind == "Succeed":
        return SucceedState(
            name=name,
            input_path=parse_optional_path(raw, "InputPath", where),
            output_path=parse_optional_path(raw, "OutputPath", where),
        )
    for field in ("Error", "Cause"):
        if field in raw and not isinstance(raw[field], str):
            raise AslDefinitionError(f"{where}: {field!r} must be a string")
    return FailState(name=name, error=raw.get("Error"), cause=raw.get("Cause"))


def _compile_task(name: str, raw: dict[str, Any], where: str) -> TaskState:
    resource = raw.get("Resource")
    if not isinstance(resource, str) or not resource:
        raise AslDefinitionError(f"{where}: a Task needs a 'Resource' string")
    if _STATES_RESOURCE.match(resource):
        raise UnsupportedAslFeature(
            f"{where}: field 'Resource' {resource!r} is a service integration or activity; "
            "the local engine runs Lambda-style resources only"
        )
    return TaskState(
        name=name,
        resource=resource,
        timeout_seconds=_timeout(raw, where),
        input_path=parse_optional_path(raw, "InputPath", where),
        parameters=_parameters(raw, where),
        result_path=parse_optional_path(raw, "ResultPath", where),
        output_path=parse_optional_path(raw, "OutputPath", where),
        retriers=parse_retry(raw["Retry"], where) if "Retry" in raw else (),
        catchers=parse_catch(raw["Catch"], where) if "Catch" in raw else (),
        next=_next_or_end(raw, where),
    )


def _compile_choice(name: str, raw: dict[str, Any], where: str) -> ChoiceState:
    rules = raw.get("Choices")
    if not isinstance(rules, list) or not rules:
        raise AslDefinitionError(f"{where}: 'Choices' must be a non-empty list of rules")
    default = raw.get("Default")
    if default is not None and not isinstance(default, str):
        raise AslDefinitionError(f"{where}: 'Default' must name a state")
    choices = tuple(
        (compile_rule(rule, f"{where}, Choices[{i}]", top_level=True), rule["Next"])
        for i, rule in enumerate(rules)
    )
    return ChoiceState(
        name=name,
        input_path=parse_optional_path(raw, "InputPath", where),
        output_path=parse_optional_path(raw, "OutputPath", where),
        choices=choices,
        default=default,
    )


def _parameters(raw: dict[str, Any], where: str) -> Template | None:
    if "Parameters" not in raw:
        return None
    if not isinstance(raw["Parameters"], dict):
        raise AslDefinitionError(f"{where}: 'Parameters' must be an object")
    return compile_template(raw["Parameters"], f"{where}, field 'Parameters'")


def _next_or_end(raw: dict[str, Any], where: str) -> str | None:
    has_next, has_end = "Next" in raw, "End" in raw
    if has_next == has_end:
        raise AslDefinitionError(f"{where}: needs exactly one of 'Next' and 'End'")
    if has_end:
        if raw["End"] is not True:
            raise AslDefinitionError(f"{where}: 'End' must be true")
        return None
    if not isinstance(raw["Next"], str):
        raise AslDefinitionError(f"{where}: 'Next' must name a state")
    return raw["Next"]


def _targets(state: State) -> list[tuple[str, str]]:
    """(field, target) for every transition out of `state`."""
    if isinstance(state, TaskState):
        found = [("Next", state.next)] if state.next else []
        return found + [(f"Catch[{i}].Next", catcher.next) for i, catcher in enumerate(state.catchers)]
    if isinstance(state, PassState):
        return [("Next", state.next)] if state.next else []
    if isinstance(state, ChoiceState):
        found = [(f"Choices[{i}].Next", target) for i, (_, target) in enumerate(state.choices)]
        return found + ([("Default", state.default)] if state.default else [])
    return []


def _check_transitions(start_at: str, states: dict[str, State]) -> None:
    for name, state in states.items():
        for field, target in _targets(state):
            if target not in states:
                raise AslDefinitionError(f"state {name!r}: {field} names {target!r}, which is not a state")
    reached = {start_at}
    pending = [start_at]
    while pending:
        for _, target in _targets(states[pending.pop()]):
            if target not in reached:
                reached.add(target)
                pending.append(target)
    unreachable = [name for name in states if name not in reached]
    if unreachable:
        names = ", ".join(map(repr, unreachable))
        raise AslDefinitionError(f"state(s) {names} cannot be reached from StartAt")
