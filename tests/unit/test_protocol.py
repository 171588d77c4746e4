"""The protocol's parsing: depth-safe JSON and strict types (issue 9.8), without a socket."""

from __future__ import annotations

import json

import pytest

from visual_degrees.protocol import (
    INVALID_JSON,
    INVALID_MESSAGE,
    MAX_JSON_DEPTH,
    GetRun,
    ProtocolError,
    Subscribe,
    json_depth,
    parse_message,
)


def nested(depth: int) -> str:
    """A getRun whose extra field nests `depth` levels in all (the message object counts as one)."""
    return '{"action": "getRun", "runId": "r", "x": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("{}", 0),  # too few brackets to matter: not scanned
        ("[" * 40, 40),
        ("[" * 40 + "]" * 40, 40),
        ('"' + "[" * 40 + '"', 0),  # brackets inside a string are text
        ('["\\"' + "[" * 40 + '"]', 1),  # …also after an escaped quote
        ('{"a": [' + "{}," * 40 + "{}]}", 3),
    ],
)
def test_depth_counts_only_the_brackets_that_nest(text: str, depth: int) -> None:
    assert json_depth(text) == depth


@pytest.mark.parametrize("frame", ["[" * 50_000, b"[" * 50_000, "{" * 50_000, nested(MAX_JSON_DEPTH + 1)])
def test_nesting_beyond_the_limit_is_invalid_json_before_the_parser_recurses(frame: str | bytes) -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_message(frame)
    assert refused.value.code == INVALID_JSON


def test_nesting_up_to_the_limit_is_parsed() -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_message(nested(MAX_JSON_DEPTH))
    assert refused.value.code == INVALID_MESSAGE  # parsed; the extra field is what is wrong


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"action": "subscribe", "runId": "r", "fromSeq": "3"}, "fromSeq"),
        ({"action": "subscribe", "runId": "r", "fromSeq": True}, "fromSeq"),
        ({"action": "subscribe", "runId": "r", "fromSeq": 3.0}, "fromSeq"),
        ({"action": "getRun", "runId": 7}, "runId"),
        ({"action": "startRun", "personA": 1, "personB": "b"}, "personA"),
        ({"action": "startRun", "personA": "a", "personB": "b", "options": []}, "options"),
    ],
)
def test_fields_of_the_wrong_json_type_are_refused_not_coerced(body: dict[str, object], field: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_message(json.dumps(body))
    assert refused.value.code == INVALID_MESSAGE
    assert field in refused.value.message


def test_well_typed_messages_parse() -> None:
    assert parse_message('{"action": "subscribe", "runId": "r", "fromSeq": 3}') == Subscribe(
        action="subscribe", run_id="r", from_seq=3
    )
    assert isinstance(parse_message('{"action": "getRun", "runId": "r", "runToken": "t"}'), GetRun)
