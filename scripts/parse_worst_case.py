"""The slowest inputs we know of for every place where text from outside meets a regex or a parser
(issue 17), at 100 KB or the component's own cap where that is lower; prints the worst time per kind
of input, and with --verbose every shape.

    python scripts/parse_worst_case.py [--size 100000] [--repeat 3] [--verbose] [--world PATH]

Times are the best of --repeat runs of each shape (caches cleared before each): the CPU time this
process spent, which other work on the machine hardly changes, and the wall-clock time, which it does.
Nothing touches the network.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from visual_degrees.adapters.live.planner_prompt import CONNECT, PLAN
from visual_degrees.constants import MAX_MESSAGE_BYTES
from visual_degrees.domain import captions, photo_event, titles
from visual_degrees.domain.errors import VisualDegreesError
from visual_degrees.domain.models import MAX_TITLE_CHARS, ImageHit
from visual_degrees.domain.names import MAX_NAME_LENGTH, name_key, validate_name
from visual_degrees.domain.planning import (
    CandidateSummary,
    ConnectContext,
    ConnectReply,
    PlannerContext,
    PlannerReply,
    ProposedLink,
    SidePerson,
    shown_text,
    validate_connect,
    validate_reply,
)
from visual_degrees.protocol import parse_message
from visual_degrees_tools.local.server.gate import HostNames
from visual_degrees_tools.local.server.http_static import StaticSite
from visual_degrees_tools.sandbox.world import parse_world

REQUEST_LINE = 8192  # websockets reads no longer request line (or header line): the HTTP inputs' cap
SCAN = 64 * 1024  # planner text: what json_objects reads of an answer


@dataclass(frozen=True)
class Case:
    kind: str
    shape: str
    text: Any
    run: Callable[[Any], object]


def quietly(work: Callable[[Any], object]) -> Callable[[Any], object]:
    """`work`, where a refusal (our error, or pydantic's) is an answer like any other."""

    def run(value: Any) -> object:
        try:
            return work(value)
        except (VisualDegreesError, ValueError) as exc:
            return exc

    return run


def words(count: int) -> Iterator[str]:
    """`count` different capitalised two-word names: "Ab Ab", "Ab Ac", …"""
    letters = "abcdefghijklmnopqrstuvwxyz"
    for i in range(count):
        first, last = divmod(i, 26 * 26)
        yield f"{letters[first % 26].upper()}{letters[first // 26 % 26]} " + (
            f"{letters[last // 26].upper()}{letters[last % 26]}"
        )


def frames(size: int) -> Iterator[Case]:
    size = min(size, MAX_MESSAGE_BYTES)
    run = quietly(parse_message)
    keys = {f"k{i}": 0 for i in range(size // 10)}
    shapes = {
        "nested, never closed": "[" * size,
        "nested and closed": "[" * (size // 2) + "]" * (size // 2),
        "a string never closed, escaped quotes (issue 17)": "[" * 40 + '"' + '\\"' * ((size - 41) // 2),
        "backslashes": '"' + "\\" * (size - 1),
        "many short strings": '["a",' * (size // 5),
        "wide and valid": '{"action":"getRun","runId":"r","x":[' + '"a",[],{"b":"]"},' * (size // 18) + "0]}",
        "startRun, many unknown options": json.dumps(
            {"action": "startRun", "personA": "a", "personB": "b", "options": keys}
        )[:size],
        "startRun, one huge option name": json.dumps(
            {"action": "startRun", "personA": "a", "personB": "b", "options": {"k" * (size - 80): 1}}
        ),
        "not UTF-8": b"\xff" * size,
    }
    for shape, text in shapes.items():
        yield Case("WebSocket frame", shape, text, run)


def names(size: int) -> Iterator[Case]:
    for shape, unit in {
        "roman suffixes": "(IIIIII ",
        "roman suffix, never closed": "(I",
        "commas": "a, ",
        "spaces and tabs": " \t",
        "accents": "é́ ",
        "punctuation": ".-'’",
    }.items():
        text = unit * (size // len(unit))
        yield Case("user's name (validate_name)", shape, text[:MAX_NAME_LENGTH], quietly(validate_name))
        yield Case("name key (of titles, planner names)", shape, text, name_key)
    refused = quietly(validate_name)
    yield Case("user's name (validate_name)", "100 KB (refused by its length)", "a" * size, refused)


def read_title(title: str) -> object:
    for cached in (
        captions.names_in_title,
        captions.people_in_title,
        captions.shows_unnamed,
        captions.event_words,
        captions.event_in_title,
        captions.sentence_cased,
        photo_event.photo_event,
    ):
        cached.cache_clear()
    return (
        captions.keys_in_title(title),
        captions.shows_unnamed(title),
        captions.event_words(title),
        captions.event_in_title(title),
        titles.names_only(title, ["Ab Ab", "Kevin Bacon"]),
        titles.mentions(title, "Kevin Bacon"),
        photo_event.photo_event(title),
    )


def image_titles(size: int) -> Iterator[Case]:
    listed = ", ".join(words(size // 7))
    shapes = {
        "many different names": listed,
        "names, then a colon list": "The cast of X (1995): " + listed,
        "'at the' over and over": "Ab Ab at the " * (size // 13),
        "'premiere of' over and over": "premiere of " * (size // 12),
        "'at the premiere of' with a far year": "at the premiere of Xx " * (size // 22) + "(1995)",
        "years": "(1995) " * (size // 7),
        "parentheses": "(" * size,
        "capitalised words": "Ab " * (size // 3),
        "colons": ":" * size,
        "'and' over and over": "and " * (size // 4),
        "spaces": " " * size,
        # headlines: every word capitalised, read in a sentence's case
        "a headline's names and verbs": "Ab Ab And Cd Cd Attend The " * (size // 27),
        "a headline's small words": "At " * (size // 3),
        "a headline in colon parts": "At The Ab: " * (size // 11),
        # ages, whom someone poses with
        "ages after names": "Ab Ab, 64, " * (size // 11),
        "ages in parentheses": "Ab Ab (64) " * (size // 11),
        "'poses with' over and over": "Ab poses with " * (size // 14),
        # possessives, a title in capitals
        "possessives before relations": "Ab Ab's wife " * (size // 13),
        "a title in capitals": "AB AB AND CD AT THE " * (size // 20),
    }
    for shape, text in shapes.items():
        yield Case("image-search title (any length)", shape, text[:size], read_title)
        yield Case(
            f"image-search title (a search hit: cut at {MAX_TITLE_CHARS})",
            shape,
            text[:size],
            lambda text: read_title(ImageHit(image_url="https://x.invalid/a.jpg", title=text).title),
        )


def planner_texts(size: int) -> Iterator[Case]:
    """Provider text as a planner sends it back: read for a reply (its first 64 KB), then checked."""
    candidates = [CandidateSummary(name=n, count=1, best_confidence=90) for n in words(20)]
    plan_context = PlannerContext(target="Kevin Bacon", frontier="Ab Ab", candidates=candidates)
    side = [SidePerson(name=n, distance=1) for n in words(20)]
    connect_context = ConnectContext(person_a="Ab Ab", person_b="Kevin Bacon", side_a=side, side_b=side)
    reply = json.dumps({"nextCandidates": ["Ab Ab"], "searchQueries": [], "narration": "why"})

    def read(text: str) -> object:
        return PLAN.read_text(text), CONNECT.read_text(text)

    starts = '{"a":[' * 200
    shapes = {
        "braces": "{" * size,
        "nested objects": '{"a":[' * (size // 6),
        "200 openings, then a string never closed": starts + '"' + "x" * (size - len(starts) - 1),
        "a reply's string never closed": '{"narration": "' + "x" * size,
        "escaped quotes": '{"narration": "' + '\\"' * (size // 2),
        "fences, reasoning, prose, then the reply": "<think>"
        + "hmm { " * (size // 6)
        + "</think>\n```json\n"
        + reply
        + "\n```",
        "quotes and braces": '{"' * (size // 2),
    }
    for shape, text in shapes.items():
        yield Case("planner answer (text, first 64 KB read)", shape, text[:size], quietly(read))

    def check_plan(narration: str) -> object:
        many = [narration] * 6
        answer = PlannerReply(next_candidates=many, search_queries=many, narration=narration)
        return validate_reply(answer, plan_context)

    def check_connect(text: str) -> object:
        links = [ProposedLink(a=text, b=text, film=text)] * 12
        return validate_connect(ConnectReply(links=links, narration=text), connect_context)

    for shape, unit in {
        "dotted words": "a.b ",
        "digits": "1 ",
        "letters": "abcdefgh",
        "URL-ish": "http://x.com/",
        "full-width dots": "x．",
    }.items():
        text = (unit * (size // len(unit)))[:size]
        yield Case("planner answer (plan, checked)", shape, text, check_plan)
        yield Case("planner answer (links, checked)", shape, text, check_connect)
        yield Case("text shown to users (shown_text)", shape, text, lambda t: shown_text(t, len(t)))


def world_files(size: int) -> Iterator[Case]:
    run = quietly(parse_world)
    people = "/".join(f"{n.split()[1]}, {n.split()[0]}" for n in words(size // 8))
    shapes = {
        "one event, every person": f"Event (2000)/{people}",
        "many short lines": "".join(f"E{i} (2000)/A, B\n" for i in range(size // 16)),
        "one long name": "Event (2000)/" + "a" * size,
        "slashes": "Event (2000)" + "/" * size,
        "JSON line, nested": '{"title": "t", "people": ' + "[" * size,
        "JSON line, many people": json.dumps({"title": "t", "people": people.split("/")}),
        "a control character at the end": "Event (2000)/A, B\n" * (size // 18) + "\x01",
    }
    for shape, text in shapes.items():
        yield Case("world file (parse_world)", shape, text[:size] if "nested" in shape else text, run)
    yield Case(
        "world file, example pair (serve's start)",
        "one event, every person",
        shapes["one event, every person"],
        lambda text: parse_world(text).example_pair(),
    )


def http_inputs(size: int, web: Any) -> Iterator[Case]:
    size = min(size, REQUEST_LINE)
    site = StaticSite(web)
    hosts = HostNames("127.0.0.1")
    for shape, q in {
        "a name's length of one letter": "a" * MAX_NAME_LENGTH,
        "a name's length of typos": "zq xv " * (MAX_NAME_LENGTH // 6),
        "a name's length of words": "ab " * (MAX_NAME_LENGTH // 3),
        "8 KB query (refused)": "a" * size,
    }.items():
        yield Case("HTTP /api/names?q=", shape, f"/api/names?q={q}"[:size], site.respond)
    yield Case("HTTP /api/names?q=", "8 KB of fields", "/api/names?" + "q&" * (size // 2), site.respond)
    yield Case("HTTP path", "8 KB photo path", "/photos/" + "a" * size, site.respond)
    for shape, header in {"8 KB name": "a", "8 KB of colons": ":", "8 KB of brackets": "["}.items():
        yield Case("HTTP Host header", shape, header * size, hosts.allows)


def time_case(case: Case, repeat: int) -> tuple[float, float]:
    """(CPU ms, wall ms), each the best of `repeat` runs."""
    cpu = wall = float("inf")
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        case.run(case.text)
        cpu = min(cpu, time.process_time() - started_cpu)
        wall = min(wall, time.perf_counter() - started)
    return cpu * 1000, wall * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000, help="bytes of each input (default 100000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each shape; the best counts")
    parser.add_argument("--world", default=None, help="the world whose names /api/names suggests")
    parser.add_argument("--verbose", action="store_true", help="print every shape")
    args = parser.parse_args()
    from visual_degrees_tools.local.environments import sandbox_environment

    web = sandbox_environment(args.world).web
    web.world.name_index().prepare()
    cases = [
        *frames(args.size),
        *names(args.size),
        *image_titles(args.size),
        *planner_texts(args.size),
        *world_files(args.size),
        *http_inputs(args.size, web),
    ]
    worst: dict[str, tuple[float, float, str, int]] = {}
    header = f"{'input kind':45s} {'shape':50s} {'length':>7s} {'CPU':>10s} {'wall':>10s}"
    if args.verbose:
        print(header)
    for case in cases:
        cpu, wall = time_case(case, args.repeat)
        length = len(case.text)
        if args.verbose:
            print(f"{case.kind:45s} {case.shape:50s} {length:>7,} {cpu:7.2f} ms {wall:7.2f} ms")
        if case.kind not in worst or cpu > worst[case.kind][0]:
            worst[case.kind] = (cpu, wall, case.shape, length)
    print(f"\nthe worst shape of each kind (by CPU time); load average {os.getloadavg()[0]:.1f}")
    print(header.replace("shape ", "worst shape"))
    for kind, (cpu, wall, shape, length) in worst.items():
        print(f"{kind:45s} {shape:50s} {length:>7,} {cpu:7.2f} ms {wall:7.2f} ms")


if __name__ == "__main__":
    main()
