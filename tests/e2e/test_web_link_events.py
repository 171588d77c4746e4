"""Each link explained on the page, on a phone: the event its photo comes from, in full (not clamped,
no tooltip), or that none is named; a link to the photo's page; the confidences in words; what a
photo does not prove. Events from the web are shown as text, and a run replayed from a server that
sent no events (evidence without `event`) still shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.browser import PHONE, artifact, open_page, start_run, wait_for_seq
from tests.support.replay_server import replaying
from visual_degrees.domain.names import name_key
from visual_degrees.domain.photo_event import MAX_EVENT_CHARS
from visual_degrees.domain.wording import PHOTO_CAVEAT

pytestmark = pytest.mark.browser

A, X, B = "Vesna Hawthorne", "Dorian Ivesdale", "Niall Halloran"
PHOTOS = "https://sandbox.visual-degrees.invalid/photos/"
# The longest event the server sends: 120 characters, words a phone must wrap over several lines.
LONG_EVENT = (
    "a charity event at the Twenty-Seventh Annual Northern Lights Film and Television Awards Gala "
    "and Benefit Dinners (1998)"
)
HOSTILE = "<img src=x onerror=window.__pwned=1> gala"


def photo(photo_id: str, a: str, b: str, confidence: float, **fields: Any) -> dict[str, Any]:
    return {
        "from": a,
        "to": b,
        "fromKey": name_key(a),
        "toKey": name_key(b),
        "imageUrl": f"{PHOTOS}{photo_id}.svg",
        "pageUrl": f"{PHOTOS}{photo_id}",
        "confidenceA": 99.0,
        "confidenceB": confidence,
        "confidence": confidence,
        **fields,
    }


def events() -> list[dict[str, Any]]:
    gala = photo("aaaaaaaaaa", A, X, 97.5, title=f"{A} and {X} at {LONG_EVENT}", event=LONG_EVENT)
    unnamed = photo("bbbbbbbbbb", X, B, 91.0, title=f"{X} news and photos", event=None)
    older = photo("cccccccccc", A, B, 85.0, title=f"{A} and {B} at the premiere of Balto (1995)")  # no event
    hostile = photo("dddddddddd", X, A, 88.0, title="a crafted page", event=HOSTILE)
    chain = [gala, unnamed]
    final = {
        "path": [A, X, B],
        "hops": 2,
        "edges": [
            {"from": e["from"], "to": e["to"], "confidence": e["confidence"], "evidence": e} for e in chain
        ],
        "bottleneckConfidence": 91.0,
        "cumulativeConfidence": 0.8873,
        "caveat": PHOTO_CAVEAT,
        "usage": {"searches": 2, "recognitions": 4, "llmCalls": 0, "costUsd": 0.014},
    }
    return [
        {"type": "run_started", "data": {"personA": A, "personB": B}},
        *({"type": "evidence", "data": e} for e in (gala, unnamed, older, hostile)),
        {"type": "final", "data": final},
    ]


def test_on_a_phone_each_link_names_its_event_in_full_and_links_its_photos_page(tmp_path: Path) -> None:
    assert len(LONG_EVENT) >= MAX_EVENT_CHARS - 1
    with replaying(events()) as srv, open_page(PHONE) as page:
        # Given a run replayed to its end on a phone
        start_run(page, srv.http_url, A, B)
        srv.release_all()
        wait_for_seq(page, len(srv.events))
        page.wait_for_selector("#result:not([hidden])")
        page.screenshot(path=str(artifact("link_events_phone.png")), full_page=True)

        # Then each hop of the path names its photo's event: the long one whole, and readable in full
        hops = page.query_selector_all("#path > li")
        assert len(hops) == 2
        first = hops[0].query_selector(".event")
        assert first.inner_text() == f"Event: {LONG_EVENT}"
        shown = first.evaluate(
            """e => { const s = getComputedStyle(e), r = e.getBoundingClientRect();
              return { clamp: s.webkitLineClamp, overflow: s.overflow, cut: s.textOverflow,
                       hidden: e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1,
                       tip: e.hasAttribute("title"), lines: Math.round(r.height / parseFloat(s.lineHeight)),
                       right: r.right, width: window.innerWidth } }"""
        )
        assert shown["clamp"] in ("none", "") and shown["cut"] != "ellipsis" and not shown["hidden"]
        assert not shown["tip"] and shown["right"] <= shown["width"]
        assert shown["lines"] > 2  # wrapped over more than the two lines a caption gets
        # And a link whose caption names no event says so in words
        assert (
            hops[1].query_selector(".event").inner_text()
            == "Event: not named by the photo's caption or page."
        )
        # And each hop links the page its photo was found on
        for hop, photo_id in zip(hops, ("aaaaaaaaaa", "bbbbbbbbbb"), strict=True):
            link = hop.query_selector("a.source")
            assert link.inner_text() == "the photo's page"
            assert link.get_attribute("href").endswith(f"/photos/{photo_id}")

        # And the confidences are explained in words, then what a photo shows and does not
        words = page.eval_on_selector_all("#result-confidence li", "ls => ls.map(l => l.textContent)")
        assert words == [
            f"Bottleneck 91.0: the least sure link: {X} — {B}; a chain is as sure as its weakest photo.",
            "Cumulative 0.887: how sure every link is at once, taking them as independent (97.5% × 91.0%).",
        ]
        assert page.text_content("#result-caveat") == PHOTO_CAVEAT
        assert page.is_visible("#result-caveat")

        # And the evidence cards name events the same way; a card from an older server (no event)
        # shows its caption and claims nothing; an event full of markup is shown as text
        cards = {
            c["photo"].rsplit("/", 1)[-1]: c
            for c in page.eval_on_selector_all(
                "#cards .card",
                "cs => cs.map(c => ({ photo: c.dataset.photo,"
                " event: c.querySelector('.event')?.textContent ?? null,"
                " caption: c.querySelector('.caption')?.textContent ?? null }))",
            )
        }
        assert cards["aaaaaaaaaa.svg"]["event"] == f"Event: {LONG_EVENT}"
        assert cards["bbbbbbbbbb.svg"]["event"] == "Event: not named by the photo's caption or page."
        assert cards["cccccccccc.svg"]["event"] is None
        assert cards["cccccccccc.svg"]["caption"] == f"{A} and {B} at the premiere of Balto (1995)"
        assert cards["dddddddddd.svg"]["event"] == f"Event: {HOSTILE}"
        assert page.evaluate("window.__pwned") is None
        assert page.query_selector_all("#cards img[src='x'], main img:not([src^='/photos/'])") == []
