"""The packaged state machine definition: the very file CDK deploys, read from the installed package."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from importlib.resources import files
from typing import Any

from visual_degrees_tools.local.asl.errors import AslDefinitionError

_PLACEHOLDER = re.compile(r"\$\{(\w+)\}")


def definition_text() -> str:
    return (files("visual_degrees_tools") / "statemachine" / "visual_degrees.asl.json").read_text(
        encoding="utf-8"
    )


def load_definition() -> dict[str, Any]:
    """The definition as JSON, Task resources still `${...}` placeholders (the local runner maps them)."""
    definition: dict[str, Any] = json.loads(definition_text())
    return definition


def placeholder_name(resource: str) -> str | None:
    """`InitializeSessionFunctionArn` for `${InitializeSessionFunctionArn}`, None for anything else."""
    match = _PLACEHOLDER.fullmatch(resource)
    return match.group(1) if match else None


def render_definition(substitutions: Mapping[str, str], text: str | None = None) -> str:
    """The definition text with every `${Name}` replaced, as CloudFormation's DefinitionSubstitutions do.

    A placeholder without a substitution is an error, so nothing half-substituted reaches an engine.
    """
    source = definition_text() if text is None else text
    missing = sorted({name for name in _PLACEHOLDER.findall(source) if name not in substitutions})
    if missing:
        raise AslDefinitionError(f"no substitution for placeholder(s): {', '.join(missing)}")
    return _PLACEHOLDER.sub(lambda match: substitutions[match.group(1)], source)
