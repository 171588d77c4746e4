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
    compact,
    encode,
    fit,
    json_depth,
    parse_message,
    wire_size,
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

    # Then it is still event 9, the final, with its path and each link's photo; the graph is empty
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
