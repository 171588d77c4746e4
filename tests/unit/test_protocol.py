"""The protocol's parsing: depth-safe JSON and strict types (issue 9.8), without a socket."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from visual_degrees.constants import MAX_MESSAGE_BYTES
from visual_degrees.protocol import (
    INVALID_JSON,
    INVALID_MESSAGE,
    MAX_JSON_DEPTH,
    GetRun,
    ProtocolError,
    Subscribe,
    compact,
    encode,
    fit,
    nests_within_limit,
    parse_message,
    wire_size,
)


def nested(depth: int) -> str:
    """A getRun whose extra field nests `depth` levels in all (the message object counts as one)."""
    return '{"action": "getRun", "runId": "r", "x": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


@pytest.mark.parametrize(
    ("text", "within"),
    [
        ("{}", True),  # too few brackets to matter: not scanned
        ("[" * 40, False),  # never closed: not JSON
        ("[" * 40 + "]" * 40, False),
        ("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH, True),
        ("[" + "[]," * 40 + "[]]", True),  # wide is not deep
        ('"' + "[" * 40 + '"', True),  # brackets inside a string are text
        ('["\\"' + "[" * 40 + '"]', True),  # …also after an escaped quote
        ('["\\\\"' + "[" * 40 + "]" * 40 + "]", False),  # an escaped backslash ends no string
        ('{"a": [' + "{}," * 40 + "{}]}", True),
        ("]" * 40 + "[" * 40, False),  # pairs the wrong way round
    ],
)
def test_depth_counts_only_the_brackets_that_nest(text: str, within: bool) -> None:
    assert nests_within_limit(text) is within


@pytest.mark.parametrize("frame", ["[" * 50_000, b"[" * 50_000, "{" * 50_000, nested(MAX_JSON_DEPTH + 1)])
def test_nesting_beyond_the_limit_is_invalid_json_before_the_parser_recurses(frame: str | bytes) -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_message(frame)
    assert refused.value.code == INVALID_JSON


def test_the_frame_that_froze_the_server_is_refused_as_invalid_json() -> None:
    # Given the frame of issue 17 (a string that never closes, full of escaped quotes)
    frame = "[" * 40 + '"' + '\\"' * 20_000
    # When it is parsed, Then it is refused like any other broken JSON
    with pytest.raises(ProtocolError) as refused:
        parse_message(frame)
    assert refused.value.code == INVALID_JSON


_LIMIT = MAX_MESSAGE_BYTES - 64


@pytest.mark.parametrize(
    "frame",
    [
        "[" * _LIMIT,  # nested, never closed
        "[" * (_LIMIT // 2) + "]" * (_LIMIT // 2),  # nested and closed
        '"' + "\\" * (_LIMIT // 2),  # escapes that never end a string
        "[" * 40 + '"' + '\\"' * (_LIMIT // 2 - 40),  # escaped quotes
        '["a",' * (_LIMIT // 5),  # many short strings, never closed
        '"' * _LIMIT,  # strings that open and close
    ],
    ids=["open", "closed", "backslashes", "escaped-quotes", "short-strings", "quotes"],
)
def test_hostile_frames_up_to_the_size_limit_are_refused_as_invalid_json(frame: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_message(frame)
    assert refused.value.code == INVALID_JSON


def test_a_wide_frame_up_to_the_size_limit_is_parsed() -> None:
    # Given a getRun whose extra field holds many short strings and empty arrays (wide, not deep)
    filler = ",".join(['"a"', "[]", '{"b": "]"}'] * (_LIMIT // 20))
    frame = '{"action": "getRun", "runId": "r", "x": [' + filler + "]}"
    # When it is parsed, Then it is read as JSON: only the extra field is wrong
    with pytest.raises(ProtocolError) as refused:
        parse_message(frame)
    assert refused.value.code == INVALID_MESSAGE


def _depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    return 0


_TEXT = st.text(alphabet='[]{}"\\ a', max_size=6)
_JSON = st.recursive(
    st.none() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=60,
)


@settings(max_examples=300, deadline=None)
@given(value=_JSON, padding=st.integers(0, MAX_JSON_DEPTH + 3))
def test_depth_agrees_with_the_parsed_value(value: object, padding: int) -> None:
    # Given any JSON value, wrapped in enough arrays to be worth scanning
    text = "[" * padding + json.dumps(value) + "]" * padding
    # Then it is within the limit exactly when the parsed value nests no deeper
    assert nests_within_limit(text) is (_depth(value) + padding <= MAX_JSON_DEPTH)


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


# ---- what goes out: every message within one frame (issue 9.4) -----------------------------------


def test_a_message_that_fits_goes_out_as_it_is() -> None:
    event = {"runId": "r", "seq": 3, "type": "status", "ts": "t", "data": {"message": "é" * 100}}
    assert fit(event) is event
    assert encode(event) == json.dumps(event, ensure_ascii=False, separators=(",", ":"))


def test_an_oversize_event_keeps_its_seq_and_leaves_out_the_largest_parts_first() -> None:
    # Given a final whose graph and one chain link are huge
    evidence = {
        "imageUrl": "u",
        "pageUrl": "p",
        "event": "the premiere of Balto (1995)",
        "confidenceA": 99.0,
        "confidenceB": 91.0,
        "title": "t" * 12_000,
    }
    graph = {
        "nodes": [{"id": str(i), "name": "n" * 50} for i in range(3_000)],
        "edges": [],
        "truncated": {"nodes": 5, "edges": 7},
    }
    data = {
        "path": ["A", "X", "B"],
        "edges": [{"from": "A", "to": "X", "confidence": 91.0, "evidence": evidence}],
        "graph": graph,
    }
    event = {"runId": "r", "seq": 9, "type": "final", "ts": "t", "data": data}

    # When it is made to fit 10 KB
    small = fit(event, 10_000)

    # Then it is still event 9, the final, with its path and each link's photo and event; the graph is empty
    # but counts everything it had, and `truncated` says what was shortened
    assert wire_size(small) <= 10_000
    assert {k: small[k] for k in ("runId", "seq", "type", "ts")} == {
        "runId": "r",
        "seq": 9,
        "type": "final",
        "ts": "t",
    }
    assert small["data"]["path"] == ["A", "X", "B"]
    assert small["data"]["graph"] == {"nodes": [], "edges": [], "truncated": {"nodes": 3_005, "edges": 7}}
    assert small["data"]["edges"][0]["evidence"] == {
        "imageUrl": "u",
        "pageUrl": "p",
        "event": "the premiere of Balto (1995)",
        "confidenceA": 99.0,
        "confidenceB": 91.0,
    }
    assert small["data"]["truncated"] == ["edges", "graph"]


def test_a_run_reply_shrinks_its_final_event_and_anything_else_becomes_an_error() -> None:
    final = {
        "runId": "r",
        "seq": 2,
        "type": "no_path",
        "ts": "t",
        "data": {"message": "m", "graph": {"nodes": ["x" * 20_000]}},
    }
    run = {"type": "run", "runId": "r", "status": "no_path", "final": final}
    small = fit(run, 5_000)
    assert wire_size(small) <= 5_000 and small["status"] == "no_path"
    assert small["final"]["seq"] == 2 and small["final"]["data"]["truncated"] == ["graph"]
    assert fit({"type": "mystery", "blob": "x" * 20_000}, 5_000)["code"] == "message_too_large"


def test_compact_drops_whole_fields_last_and_always_fits() -> None:
    data = {"message": "m" * 50_000, "reason": "budget", "usage": {"searches": 20}}
    small = compact(data, 1_000)
    assert wire_size(small) <= 1_000
    assert small == {"reason": "budget", "usage": {"searches": 20}, "truncated": ["message"]}
