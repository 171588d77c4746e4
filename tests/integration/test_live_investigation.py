"""A whole `visual-degrees run --providers live` investigation against fake Brave, Rekognition and
Gemini (or OpenAI-compatible) servers on 127.0.0.1 that speak the real wire formats: the live
adapters run unchanged, configured only through environment variables (base URLs, boto3's
AWS_ENDPOINT_URL_REKOGNITION).

The planner's two requests are both exercised: the seed strategy asks it to rank candidates
(`plan`), the default strategy to match the two sides (`connect`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_wire_servers import (
    CelebrityFace,
    FakeBraveSearch,
    FakeGemini,
    FakeHit,
    FakeOpenAI,
    FakeRekognition,
    StaticImageServer,
    photo_bytes,
)
from visual_degrees_tools.cli import main

BACON = CelebrityFace("Kevin Bacon", "1R7Vj9", 99.1)
SINISE = CelebrityFace("Gary Sinise", "4Gs1n", 97.3)
HANKS = CelebrityFace("Tom Hanks", "2Ab3Cd", 95.8)
SEDGWICK = CelebrityFace("Kyra Sedgwick", "5Ks9x", 91.2)


@dataclass
class Wire:
    brave: FakeBraveSearch
    rekognition: FakeRekognition
    gemini: FakeGemini
    images: StaticImageServer


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Wire]:
    with (
        FakeBraveSearch(token="brave-secret-token") as brave,
        FakeRekognition() as rekognition,
        FakeGemini(api_key="gemini-secret-key") as gemini,
        StaticImageServer() as images,
    ):
        env = {
            "VD_BRAVE_API_KEY": "brave-secret-token",
            "VD_BRAVE_ENDPOINT": brave.endpoint,
            "VD_GEMINI_API_KEY": "gemini-secret-key",
            "VD_GEMINI_BASE_URL": gemini.url,
            "VD_FETCH_ALLOW_NETWORKS": "127.0.0.1/32",  # the test's image server; off by default
            "VD_RETRY_BASE_DELAY": "0",
            "AWS_ENDPOINT_URL_REKOGNITION": rekognition.url,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
            "VISUAL_DEGREES_STATE_DIR": str(tmp_path / "state"),
        }
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        yield Wire(brave, rekognition, gemini, images)


def script_two_hop_web(wire: Wire) -> dict[str, bytes]:
    """Bacon and Hanks: no photo together; Bacon with Sinise; Sinise with Hanks. Titles name people
    in full where a caption would (the default strategy reads them as leads); no title names Hanks
    on the first page, so only the planner can say where to look for him."""
    photos = {
        "bacon-sinise": photo_bytes("bacon-sinise"),
        "bacon-solo": photo_bytes("bacon-solo", fmt="WEBP"),
        "sinise-hanks": photo_bytes("sinise-hanks"),
        "bacon-sedgwick": photo_bytes("bacon-sedgwick"),
    }
    wire.rekognition.register(photos["bacon-sinise"], [BACON, SINISE])
    wire.rekognition.register(photos["bacon-solo"], [BACON], unrecognized=1)
    wire.rekognition.register(photos["sinise-hanks"], [SINISE, HANKS])
    wire.rekognition.register(photos["bacon-sedgwick"], [BACON, SEDGWICK])
    url = {name: wire.images.add(f"/{name}", data) for name, data in photos.items()}
    solo_webp = wire.images.add("/bacon-solo.webp", photos["bacon-solo"], "image/webp")
    hostile = FakeHit("http://169.254.169.254/latest/meta-data/iam/", "https://evil.example", "metadata")
    wire.brave.add("Kevin Bacon Tom Hanks", [FakeHit(solo_webp, "https://news.example/1", "Bacon"), hostile])
    copy = wire.images.add("/copy-of-bacon-sinise", photos["bacon-sinise"])
    bacon_sinise = FakeHit(
        url["bacon-sinise"], "https://news.example/2", "Kevin Bacon and Gary Sinise at the Apollo 13 premiere"
    )
    bacon_hits = [
        bacon_sinise,
        # the same picture at a second address is recognised (and paid for) once
        FakeHit(copy, "https://mirror.example/2"),
        FakeHit(url["bacon-sedgwick"], "https://news.example/4", "Bacon and Sedgwick"),
    ]
    # discovery asks for group photos first ("X cast"), then the bare name
    wire.brave.add("Kevin Bacon cast", bacon_hits)
    wire.brave.add("Kevin Bacon", bacon_hits)
    wire.brave.add("Kevin Bacon Gary Sinise", [bacon_sinise])
    sinise_hanks = FakeHit(
        url["sinise-hanks"], "https://news.example/3", "Gary Sinise and Tom Hanks, Forrest Gump reunion"
    )
    wire.brave.add("Gary Sinise Tom Hanks", [sinise_hanks])
    # a chain's query: the engine ranks photos naming two of its names first
    wire.brave.add("Kevin Bacon Gary Sinise Tom Hanks", [bacon_sinise, sinise_hanks])
    return photos


def run_live(capsys: pytest.CaptureFixture[str], strategy: str = "seed") -> tuple[int, list[dict], str]:
    code = main(["run", "Kevin Bacon", "Tom Hanks", "--providers", "live", "--json", "--strategy", strategy])
    out = capsys.readouterr()
    return code, [json.loads(line) for line in out.out.splitlines()], out.out + out.err


def test_a_live_investigation_runs_end_to_end_on_the_wire(
    wire: Wire, capsys: pytest.CaptureFixture[str]
) -> None:
    script_two_hop_web(wire)
    # When the CLI runs with the live providers (the seed strategy: discovery, then plans)
    code, events, _ = run_live(capsys)
    # Then it proves Bacon — Sinise — Hanks with the photos the fake web holds
    assert code == 0
    final = events[-1]
    assert final["type"] == "final"
    assert final["data"]["path"] == ["Kevin Bacon", "Gary Sinise", "Tom Hanks"]
    assert [e["evidence"]["imageUrl"] for e in final["data"]["edges"]] == [
        wire.images.url + "/bacon-sinise",
        wire.images.url + "/sinise-hanks",
    ]
    # The metadata address was refused (never requested), the copy at a second URL not recognised again
    assert all("169.254" not in r.path for r in wire.images.requests)
    recognised = [r.body for r in wire.rekognition.calls]
    assert len(recognised) == len(set(recognised))
    # Every paid call the services saw is in the run's usage, and the planner was asked on the wire
    usage = final["data"]["usage"]
    assert usage["searches"] == len(wire.brave.searches)
    assert usage["recognitions"] == len(wire.rekognition.calls)
    assert usage["llmCalls"] == len(wire.gemini.calls) >= 1
    assert set(wire.gemini.kinds) == {"plan"}
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))


def test_keys_never_reach_the_events_or_the_terminal(wire: Wire, capsys: pytest.CaptureFixture[str]) -> None:
    script_two_hop_web(wire)
    wire.gemini.connect = knows_the_route
    main(["run", "Kevin Bacon", "Tom Hanks", "--providers", "live"])
    out = capsys.readouterr()
    for secret in ("brave-secret-token", "gemini-secret-key"):
        assert secret not in out.out and secret not in out.err


def test_a_search_engine_that_keeps_failing_ends_in_an_error_event(wire: Wire, capsys) -> None:
    script_two_hop_web(wire)
    wire.brave.fail_next(503, "UNAVAILABLE", times=50)
    code, events, _ = run_live(capsys, "default")
    assert code == 1
    assert events[-1]["type"] == "error"
    assert events[-1]["data"]["code"] == "provider_unavailable"
    assert len(wire.brave.searches) <= 4 * 3  # state-machine attempts x adapter attempts, all bounded


# ---- the same investigation with a self-hosted planner (VD_PLANNER=openai) ---------------------

OPENAI_KEY = "openai-secret-key"


@pytest.fixture
def openai(wire: Wire, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    """An OpenAI-compatible server (an Ollama, say) as the planner, instead of Gemini."""
    with FakeOpenAI(models=["llama3.1:8b"], api_key=OPENAI_KEY) as server:
        monkeypatch.setenv("VD_PLANNER", "openai")
        monkeypatch.setenv("VD_OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("VD_OPENAI_MODEL", "llama3.1:8b")
        monkeypatch.setenv("VD_OPENAI_API_KEY", OPENAI_KEY)
        yield server


def test_a_live_investigation_with_a_self_hosted_planner(
    wire: Wire, openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    script_two_hop_web(wire)
    # When the CLI runs with the OpenAI-compatible planner
    code, events, output = run_live(capsys)
    # Then it proves the same path, the plan came from that server, never from Gemini
    assert code == 0
    assert events[-1]["data"]["path"] == ["Kevin Bacon", "Gary Sinise", "Tom Hanks"]
    usage = events[-1]["data"]["usage"]
    assert usage["llmCalls"] == len(openai.calls) >= 1
    assert usage["llmTokensIn"] > 0 and usage["llmTokensOut"] > 0
    assert wire.gemini.calls == []
    assert any(e["type"] == "status" and "strongest co-appearances" in e["data"]["message"] for e in events)
    # And the key only ever travelled in the Authorization header
    assert OPENAI_KEY not in output
    assert all(c.headers["authorization"] == f"Bearer {OPENAI_KEY}" for c in openai.calls)


def test_a_model_answering_prose_is_fed_back_then_the_fallback_decides(
    wire: Wire, openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a model that answers prose, never JSON
    script_two_hop_web(wire)
    openai.reply_text = "I would start with Gary Sinise; he worked with Tom Hanks on Apollo 13."
    # When the run plans
    code, events, _ = run_live(capsys)
    # Then the deterministic fallback still finds the path
    assert code == 0
    assert events[-1]["data"]["path"] == ["Kevin Bacon", "Gary Sinise", "Tom Hanks"]
    # And each plan asked twice: the second attempt carried the failure back as data, naming it
    bodies = openai.bodies()
    assert len(bodies) >= 2 and len(bodies) % 2 == 0
    first, second = (json.loads(b["messages"][1]["content"].split("\n")[1]) for b in bodies[:2])
    assert first["previousErrors"] == []
    (fed_back,) = second["previousErrors"]
    assert fed_back.startswith("the previous answer could not be used (provider_error): ")
    assert "no usable JSON plan" in fed_back and "nextCandidates" in fed_back
    # And every attempt was counted against the LLM budget, with the tokens the server reported
    usage = events[-1]["data"]["usage"]
    assert usage["llmCalls"] == len(bodies)
    assert usage["llmTokensIn"] == sum(openai.reported("prompt_tokens"))
    assert usage["llmTokensOut"] == sum(openai.reported("completion_tokens"))


def test_a_planner_server_failing_with_500s_falls_back_within_budget(
    wire: Wire, openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    script_two_hop_web(wire)
    openai.fail_next(500, times=1000)
    code, events, _ = run_live(capsys)
    assert code == 0
    assert events[-1]["data"]["path"] == ["Kevin Bacon", "Gary Sinise", "Tom Hanks"]
    # each logical call (counted once) was tried three times on the wire, then the fallback decided
    assert len(openai.calls) == 3 * events[-1]["data"]["usage"]["llmCalls"] > 0


# ---- the default strategy: the planner matches the two sides (connect) -------------------------


def knows_the_route(data: dict[str, Any]) -> dict[str, Any]:
    """A planner that remembers Apollo 13 and Forrest Gump: a route from Bacon's side to Hanks'."""
    return {
        "links": [
            {"a": "Kevin Bacon", "b": "Gary Sinise", "film": "Apollo 13", "confidence": 0.9},
            {"a": "Gary Sinise", "b": "Tom Hanks", "film": "Forrest Gump", "confidence": 0.95},
        ],
        "narration": "Gary Sinise made a film with each of them.",
    }


def planner_hunches(events: list[dict]) -> list[dict]:
    return [h for e in events if e["data"].get("source") == "planner" for h in e["data"].get("hunches", [])]


def assert_the_hunches_were_proven_by_photos(events: list[dict]) -> None:
    """The path the planner suggested, every edge citing a photo an evidence event showed."""
    final = events[-1]
    assert final["type"] == "final"
    assert final["data"]["path"] == ["Kevin Bacon", "Gary Sinise", "Tom Hanks"]
    assert {"a": "Kevin Bacon", "b": "Gary Sinise", "film": "Apollo 13"} in planner_hunches(events)
    shown = {e["data"]["imageUrl"] for e in events if e["type"] == "evidence"}
    assert {edge["evidence"]["imageUrl"] for edge in final["data"]["edges"]} <= shown


def test_the_default_strategy_asks_gemini_to_connect_the_sides(
    wire: Wire, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a web where no title names Tom Hanks until someone says where to look, and a planner
    # that knows who worked with whom
    script_two_hop_web(wire)
    wire.gemini.connect = knows_the_route
    # When the CLI runs with the default strategy
    code, events, _ = run_live(capsys, "default")
    # Then the planner was asked to connect the sides, and its hunches were checked with photos
    assert code == 0
    assert_the_hunches_were_proven_by_photos(events)
    assert "connect" in wire.gemini.kinds and "plan" not in wire.gemini.kinds
    # And the run's LLM usage is exactly what went over the wire
    usage = events[-1]["data"]["usage"]
    assert usage["llmCalls"] == len(wire.gemini.calls) >= 1
    assert usage["llmTokensIn"] == sum(wire.gemini.reported("promptTokenCount"))
    assert usage["llmTokensOut"] == sum(wire.gemini.reported("candidatesTokenCount"))


def test_a_self_hosted_planner_connects_the_sides(
    wire: Wire, openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    script_two_hop_web(wire)
    openai.connect = knows_the_route
    code, events, output = run_live(capsys, "default")
    assert code == 0
    assert_the_hunches_were_proven_by_photos(events)
    # The connect request asked for its own strict schema, and only this server was called
    bodies = openai.bodies()
    assert {b["response_format"]["json_schema"]["name"] for b in bodies} == {"connect_reply"}
    assert wire.gemini.calls == []
    usage = events[-1]["data"]["usage"]
    assert usage["llmCalls"] == len(bodies) >= 1
    assert usage["llmTokensIn"] == sum(openai.reported("prompt_tokens"))
    assert usage["llmTokensOut"] == sum(openai.reported("completion_tokens"))
    assert OPENAI_KEY not in output


def test_a_model_answering_prose_to_connect_is_fed_back_then_no_hunch_is_kept(
    wire: Wire, openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a model that answers prose naming a plausible route, never JSON
    script_two_hop_web(wire)
    openai.reply_text = "Gary Sinise worked with both of them, on Apollo 13 and on Forrest Gump."
    # When the run asks it where to look for Tom Hanks
    code, events, _ = run_live(capsys, "default")
    # Then nothing of the prose becomes a hunch, let alone a link: the run ends honestly
    assert code != 0
    assert events[-1]["type"] == "no_path"
    assert planner_hunches(events) == []
    assert not any(e["type"] in ("evidence", "path_update") for e in events)
    # And it was asked twice, the second time with the failure as data; both attempts counted
    bodies = openai.bodies()
    assert len(bodies) == 2
    first, second = (json.loads(b["messages"][1]["content"].split("\n")[1]) for b in bodies)
    assert "sideA" in first and first["previousErrors"] == []
    assert second["previousErrors"][0].startswith("the previous answer could not be used (provider_error)")
    assert events[-1]["data"]["usage"]["llmCalls"] == len(bodies)
