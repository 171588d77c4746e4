"""Validating a request to start a run: two names and options, one clear message per problem."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from visual_degrees.domain.errors import InvalidInput
from visual_degrees.domain.models import Person, RunOptions
from visual_degrees.domain.names import validate_name


def describe_validation_error(exc: ValidationError, prefix: str = "") -> str:
    """pydantic's errors as one line: `options.budgets.searches: must be >= 0; …` (no input echo)."""
    parts = []
    for err in exc.errors(include_url=False, include_input=False):
        where = ".".join(str(p) for p in (prefix, *err["loc"]) if p != "")
        parts.append(f"{where}: {err['msg']}" if where else err["msg"])
    return "; ".join(parts)


def parse_options(raw: Any, *, strict: bool = False) -> RunOptions:
    """Options from JSON-like data. `strict` (a client's request): numbers must be numbers and flags
    booleans, as sent; nothing is coerced (`"3"` or `true` is no maxHops)."""
    if raw is None:
        return RunOptions()
    if isinstance(raw, RunOptions):
        return raw
    if not isinstance(raw, dict):
        raise InvalidInput("options must be an object")
    try:
        return RunOptions.model_validate(raw, strict=strict)
    except ValidationError as exc:
        raise InvalidInput(describe_validation_error(exc, "options")) from None


def validate_pair(person_a: object, person_b: object) -> tuple[Person, Person]:
    a = Person.of(validate_name(person_a, field="personA"))
    b = Person.of(validate_name(person_b, field="personB"))
    if a.key == b.key:
        raise InvalidInput(f"personA and personB are the same person ({a.name!r})")
    return a, b


def validate_hint(via: object, a: Person, b: Person) -> Person:
    """The person a hint (`via`) names: a valid name, and neither end of the run."""
    hint = Person.of(validate_name(via, field="via"))
    if hint.key in (a.key, b.key):
        raise InvalidInput(f"via must be someone other than {a.name} and {b.name}")
    return hint
