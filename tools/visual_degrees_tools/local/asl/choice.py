"""Choice rules (JSONPath flavour) compiled into predicates over the Choice state's effective input.

Semantics follow the Step Functions documentation:
- a comparison whose `Variable` (or `...Path` operand) names nothing fails the execution with
  States.Runtime ("the choice state's condition path references an invalid value");
- a value of the wrong type makes the comparison false (guard with IsNumeric, IsString, ...);
- `IsPresent` tests presence; the other `Is...` tests are false for a missing variable;
- timestamps are RFC 3339 strings with an uppercase `T` and a `Z` or numeric offset.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from visual_degrees_tools.local.asl.errors import (
    RUNTIME,
    AslDefinitionError,
    StateError,
    UnsupportedAslFeature,
)
from visual_degrees_tools.local.asl.paths import PathNotFound, ReferencePath, parse_path

Predicate = Callable[[Any], bool]

_NOT_COMPARABLE = object()

_TIMESTAMP = re.compile(
    r"(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})\Z",
)


def parse_timestamp(value: Any) -> datetime | None:
    """An aware datetime for an RFC 3339 timestamp string, else None."""
    if not isinstance(value, str):
        return None
    match = _TIMESTAMP.match(value)
    if match is None:
        return None
    date, time, fraction, zone = match.groups()
    micros = f".{(fraction or '')[:6].ljust(6, '0')}"
    try:
        return datetime.fromisoformat(f"{date}T{time}{micros}{'+00:00' if zone == 'Z' else zone}")
    except ValueError:
        return None


def _number(value: Any) -> Any:
    if type(value) is int or type(value) is float:
        return value
    return _NOT_COMPARABLE


def _string(value: Any) -> Any:
    return value if type(value) is str else _NOT_COMPARABLE


def _boolean(value: Any) -> Any:
    return value if type(value) is bool else _NOT_COMPARABLE


def _timestamp(value: Any) -> Any:
    parsed = parse_timestamp(value)
    return _NOT_COMPARABLE if parsed is None else parsed


_KINDS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "Numeric": ("a number", _number),
    "String": ("a string", _string),
    "Boolean": ("a boolean", _boolean),
    "Timestamp": ("an RFC 3339 timestamp", _timestamp),
}
_RELATIONS: dict[str, Callable[[Any, Any], bool]] = {
    "Equals": operator.eq,
    "GreaterThan": operator.gt,
    "GreaterThanEquals": operator.ge,
    "LessThan": operator.lt,
    "LessThanEquals": operator.le,
}

# Every comparison operator: name -> (kind, relation, operand is a path).
COMPARISONS: dict[str, tuple[str, str, bool]] = {}
for _kind in _KINDS:
    for _relation in _RELATIONS:
        if _kind == "Boolean" and _relation != "Equals":
            continue
        COMPARISONS[f"{_kind}{_relation}"] = (_kind, _relation, False)
        COMPARISONS[f"{_kind}{_relation}Path"] = (_kind, _relation, True)

TYPE_TESTS: dict[str, Callable[[Any], bool]] = {
    "IsNull": lambda value: value is None,
    "IsBoolean": lambda value: type(value) is bool,
    "IsNumeric": lambda value: _number(value) is not _NOT_COMPARABLE,
    "IsString": lambda value: type(value) is str,
    "IsTimestamp": lambda value: parse_timestamp(value) is not None,
}
OPERATORS = frozenset({*COMPARISONS, *TYPE_TESTS, "IsPresent", "StringMatches", "And", "Or", "Not"})


def compile_rule(rule: Any, where: str, *, top_level: bool) -> Predicate:
    """A predicate for one Choice rule. Top-level rules carry `Next`; nested ones must not."""
    if not isinstance(rule, dict):
        raise AslDefinitionError(f"{where}: a choice rule must be an object")
    unknown = set(rule) - OPERATORS - {"Variable", "Next", "Comment"}
    if unknown:
        raise UnsupportedAslFeature(
            f"{where}: choice rule field(s) {', '.join(sorted(unknown))} not supported by the local engine"
        )
    if top_level and not isinstance(rule.get("Next"), str):
        raise AslDefinitionError(f"{where}: a top-level choice rule needs a 'Next' state name")
    if not top_level and "Next" in rule:
        raise AslDefinitionError(f"{where}: a nested choice rule must not have 'Next'")
    operators = [key for key in rule if key in OPERATORS]
    if len(operators) != 1:
        raise AslDefinitionError(
            f"{where}: a choice rule needs exactly one operator, found {operators or 'none'}"
        )
    name = operators[0]
    value = rule[name]
    if name in ("And", "Or", "Not"):
        if "Variable" in rule:
            raise AslDefinitionError(f"{where}: '{name}' does not take a 'Variable'")
        return _compile_boolean(name, value, f"{where}.{name}")
    if "Variable" not in rule:
        raise AslDefinitionError(f"{where}: '{name}' needs a 'Variable'")
    variable = parse_path(rule["Variable"], f"{where}, field 'Variable'")
    if name == "IsPresent" or name in TYPE_TESTS:
        if type(value) is not bool:
            raise AslDefinitionError(f"{where}: '{name}' takes true or false, got {value!r}")
        return _compile_type_test(name, variable, value)
    if name == "StringMatches":
        if not isinstance(value, str):
            raise AslDefinitionError(f"{where}: 'StringMatches' takes a string pattern, got {value!r}")
        return _compile_matches(variable, value, where)
    return _compile_comparison(name, variable, value, where)


def _compile_boolean(name: str, value: Any, where: str) -> Predicate:
    if name == "Not":
        inner = compile_rule(value, where, top_level=False)
        return lambda data: not inner(data)
    if not isinstance(value, list) or not value:
        raise AslDefinitionError(f"{where}: '{name}' takes a non-empty list of rules")
    rules = tuple(compile_rule(item, f"{where}[{i}]", top_level=False) for i, item in enumerate(value))
    if name == "And":
        return lambda data: all(rule(data) for rule in rules)
    return lambda data: any(rule(data) for rule in rules)


def _read(path: ReferencePath, data: Any) -> Any:
    try:
        return path.get(data)
    except PathNotFound:
        message = f"Invalid path {path.text!r}: the choice state's condition path references an invalid value"
        raise StateError(RUNTIME, message) from None


def _compile_type_test(name: str, variable: ReferencePath, expected: bool) -> Predicate:
    if name == "IsPresent":

        def present(data: Any) -> bool:
            try:
                variable.get(data)
            except PathNotFound:
                return not expected
            return expected

        return present
    test = TYPE_TESTS[name]

    def has_type(data: Any) -> bool:
        try:
            value = variable.get(data)
        except PathNotFound:
            return not expected
        return test(value) is expected

    return has_type


def _compile_matches(variable: ReferencePath, pattern: str, where: str) -> Predicate:
    # '*' matches any run of characters; '\*' is a literal star and '\\' a literal backslash.
    parts: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern) and pattern[index + 1] in "*\\":
            parts.append(re.escape(pattern[index + 1]))
            index += 2
            continue
        parts.append(".*" if char == "*" else re.escape(char))
        index += 1
    regex = re.compile("".join(parts), re.DOTALL)

    def matches(data: Any) -> bool:
        value = _read(variable, data)
        return type(value) is str and regex.fullmatch(value) is not None

    return matches


def _compile_comparison(name: str, variable: ReferencePath, operand: Any, where: str) -> Predicate:
    kind, relation_name, operand_is_path = COMPARISONS[name]
    described, coerce = _KINDS[kind]
    relation = _RELATIONS[relation_name]
    if operand_is_path:
        other = parse_path(operand, f"{where}, field {name!r}")

        def compare_paths(data: Any) -> bool:
            left = coerce(_read(variable, data))
            right = coerce(_read(other, data))
            return left is not _NOT_COMPARABLE and right is not _NOT_COMPARABLE and relation(left, right)

        return compare_paths
    constant = coerce(operand)
    if constant is _NOT_COMPARABLE:
        raise AslDefinitionError(f"{where}: '{name}' needs {described}, got {operand!r}")

    def compare(data: Any) -> bool:
        left = coerce(_read(variable, data))
        return left is not _NOT_COMPARABLE and relation(left, constant)

    return compare
