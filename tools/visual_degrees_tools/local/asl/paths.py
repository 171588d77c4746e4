"""The reference-path subset of JSONPath Step Functions uses to pick and place values.

Supported: `$`, `$.a.b`, `$['a']`, `$["a"]`, `$.a[0]` and combinations. Wildcards, filters, slices,
recursive descent, the context object (`$$`) and intrinsic functions are rejected when the engine is
built, so an execution never meets a path it cannot evaluate the way Step Functions would.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from visual_degrees_tools.local.asl.errors import AslDefinitionError, UnsupportedAslFeature

Segment = str | int

_SEGMENT = re.compile(
    r"""\.(?P<name>[^.\[\]*'"]+)
      | \[(?P<index>\d+)\]
      | \['(?P<single>[^']*)'\]
      | \["(?P<double>[^"]*)"\]""",
    re.VERBOSE,
)


class PathNotFound(LookupError):
    """The path names nothing in the value (a missing key, an index out of range, a scalar in the way)."""


class ReferencePath:
    """A compiled reference path: `get` reads through it, `put` returns a copy with a value placed there."""

    __slots__ = ("segments", "text")

    def __init__(self, text: str, segments: tuple[Segment, ...]) -> None:
        self.text = text
        self.segments = segments

    def __repr__(self) -> str:
        return f"ReferencePath({self.text!r})"

    def get(self, value: Any) -> Any:
        for segment in self.segments:
            if isinstance(segment, str):
                if type(value) is not dict or segment not in value:
                    raise PathNotFound(self.text)
                value = value[segment]
            else:
                if type(value) is not list or segment >= len(value):
                    raise PathNotFound(self.text)
                value = value[segment]
        return value

    def put(self, root: Any, result: Any) -> Any:
        """`root` with `result` at this path, as ResultPath does: missing objects on the way are
        created; only the containers along the path are copied, the rest is shared."""
        if not self.segments:
            return result
        return self._put(root, 0, result)

    def _put(self, node: Any, depth: int, result: Any) -> Any:
        segment = self.segments[depth]
        last = depth == len(self.segments) - 1
        if isinstance(segment, str):
            if type(node) is not dict:
                raise PathNotFound(self.text)
            copy = dict(node)
            copy[segment] = result if last else self._put(node.get(segment, {}), depth + 1, result)
            return copy
        if type(node) is not list or segment >= len(node):
            raise PathNotFound(self.text)
        items = list(node)
        items[segment] = result if last else self._put(node[segment], depth + 1, result)
        return items


ROOT = ReferencePath("$", ())


def parse_path(text: Any, where: str) -> ReferencePath:
    """Compile `text`; `where` ("state 'X', field 'InputPath'") goes into every error message."""
    if not isinstance(text, str):
        raise AslDefinitionError(f"{where}: a path must be a string, got {type(text).__name__}")
    if text.startswith("$$"):
        raise UnsupportedAslFeature(f"{where}: the context object ('$$') is not supported: {text!r}")
    if text.startswith("States."):
        raise UnsupportedAslFeature(f"{where}: intrinsic functions are not supported: {text!r}")
    if not text.startswith("$"):
        raise AslDefinitionError(f"{where}: {text!r} is not a path (a path starts with '$')")
    segments: list[Segment] = []
    position = 1
    while position < len(text):
        match = _SEGMENT.match(text, position)
        if match is None:
            raise UnsupportedAslFeature(
                f"{where}: {text!r} is outside the supported JSONPath subset "
                "($, $.a.b, $['a'], $.a[0]; no wildcards, filters, slices or '..')"
            )
        index = match.group("index")
        if index is not None:
            segments.append(int(index))
        else:
            name = match.group("name") or match.group("single") or match.group("double") or ""
            segments.append(name)
        position = match.end()
    return ReferencePath(text, tuple(segments))


def parse_optional_path(state: dict[str, Any], field: str, where: str) -> ReferencePath | None:
    """A state's InputPath / ResultPath / OutputPath: absent means `$`, JSON null means None."""
    if field not in state:
        return ROOT
    if state[field] is None:
        return None
    return parse_path(state[field], f"{where}, field {field!r}")


# ---- payload templates (Parameters) ------------------------------------------------------------

Template = Callable[[Any], Any]


def compile_template(template: Any, where: str) -> Template:
    """A Parameters payload template: keys ending in `.$` take the value at their path in the input.

    A missing path raises PathNotFound naming the path; the caller turns it into States.Runtime.
    """
    if isinstance(template, dict):
        parts: list[tuple[str, Template]] = []
        for key, value in template.items():
            if key.endswith(".$"):
                path = parse_path(value, f"{where}, key {key!r}")
                parts.append((key[:-2], path.get))
            else:
                parts.append((key, compile_template(value, f"{where}.{key}")))
        return lambda data: {key: build(data) for key, build in parts}
    if isinstance(template, list):
        items = [compile_template(item, f"{where}[{i}]") for i, item in enumerate(template)]
        return lambda data: [build(data) for build in items]
    return lambda _data: template
