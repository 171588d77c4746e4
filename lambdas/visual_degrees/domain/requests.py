"""Validating a request to start a run: two names and options, one clear message per problem."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from visual_degrees.domain.errors import InvalidInput
from visual_degrees.domain.models import START_MINIMUM, Budgets, Person, RunOptions
from visual_degrees.domain.names import validate_name

MAX_ERRORS_SAID = 5  # problems one message names (a request may hold thousands)
MAX_FIELD_SAID = 40  # characters of a field's name said back (a client's key may be any length)


def describe_validation_error(exc: ValidationError, prefix: str = "") -> str:
    """pydantic's errors as one line: `options.budgets.searches: must be >= 0; …` (no input echo;
    the first few problems, each field name cut short)."""
    parts = []
    errors = exc.errors(include_url=False, include_input=False)
    for err in errors[:MAX_ERRORS_SAID]:
        where = ".".join(_short(str(p)) for p in (prefix, *err["loc"]) if p != "")
        parts.append(f"{where}: {err['msg']}" if where else err["msg"])
    more = len(errors) - MAX_ERRORS_SAID
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def _short(name: str) -> str:
    return name if len(name) <= MAX_FIELD_SAID else name[:MAX_FIELD_SAID] + "…"


def require_startable(
    budgets: Budgets, name: Callable[[str], str] = lambda wire: f"options.budgets.{wire}"
) -> None:
    """InvalidInput naming each budget too small for a run to start (START_MINIMUM); `name` says a
    field as the caller wrote it (`options.budgets.searches`, `--budget-searches`)."""
    given = budgets.dump()
    said = name if name is not None else (lambda wire: f"options.budgets.{wire}")
    problems = [
        f"{said(field)} must be at least {least:g}{unit} to start a run ({why})"
        for field, (least, unit, why) in START_MINIMUM.items()
        if given[field] < least
    ]
    if problems:
        raise InvalidInput("; ".join(problems))


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
