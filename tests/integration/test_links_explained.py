"""Each link explained, wherever a run shows it: the event its photo comes from and the photo's page
(`evidence`, `path_update`, `final`, `getGraph`, the CLI's path and `show`), the confidences in
words, and what a photo does not prove."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.cli_runs import run_json
from tests.support.ws_client import WsClient
from tests.support.ws_server import running_server
from visual_degrees.domain.photo_event import photo_event
from visual_degrees.domain.wording import NO_EVENT, PHOTO_CAVEAT
from visual_degrees_tools.cli import main
from visual_degrees_tools.sandbox import EXAMPLE_PAIR, FAR_PAIR

A, B = EXAMPLE_PAIR


def test_every_event_of_a_run_names_each_photos_event_as_its_title_gives_it(state_dir, capsys) -> None:
    # Given a run across the bundled world (three hops: its chains grow through path_updates)
    code, events = run_json(capsys, *FAR_PAIR)
    assert code == 0

    # Then every photo card names the event its caption gives (the sandbox's captions all name one)
    photos = [e["data"] for e in events if e["type"] == "evidence"]
    assert photos
    for photo in photos:
        assert photo["event"] == photo_event(photo["title"]) and photo["event"]
    # And every link of a chain so far names its photo's page and event
    chains = [e["data"] for e in events if e["type"] == "path_update" and e["data"].get("edges")]
    assert chains
    by_image = {p["imageUrl"]: p for p in photos}
    for chain in chains:
        for link in chain["edges"]:
            card = by_image[link["imageUrl"]]  # announced before the link is shown
            assert (link["pageUrl"], link["event"]) == (card["pageUrl"], card["event"])
    # And the answer names each link's event and page, and says what a photo does not prove
    final = events[-1]["data"]
    assert final["caveat"] == PHOTO_CAVEAT
    for edge in final["edges"]:
        evidence = edge["evidence"]
        assert evidence["event"] == photo_event(evidence["title"]) and evidence["event"]
        assert evidence["pageUrl"].startswith("https://")


def test_the_printed_path_names_each_links_event_and_page_and_explains_the_figures(state_dir, capsys) -> None:
    # When a user runs the example pair without --json
    assert main(["run", A, B]) == 0
    out = capsys.readouterr().out

    # Then each link of the path says where its photo was taken, before its image and its page
    path = out[out.index("Path (") :]
    links = re.findall(
        r"\n  (.+) — (.+): confidence .+\n      event (.+)\n      image (\S+)\n      page  (\S+)", path
    )
    assert len(links) == 2
    for _a, _b, event, image, page in links:
        assert event != NO_EVENT and re.search(r"\b\d{4}\b", event)  # "the premiere of T (1995)"
        assert page == image.removesuffix(".svg")
    # And the figures are told in words, then what a photo shows
    assert re.search(
        r"\nBottleneck \d+\.\d: the least sure link: .+ — .+; a chain is as sure as its weakest photo\.\n",
        path,
    )
    assert re.search(
        r"\nCumulative 0\.\d{3}: how sure every link is at once, taking them as independent \(.+ × .+\)\.\n",
        path,
    )
    assert f"\n{PHOTO_CAVEAT}\n" in path

    # And `show` prints the same answer again
    run_id = re.search(r"run id (\S+)", out)[1]  # type: ignore[index]
    assert main(["show", run_id]) == 0
    shown = capsys.readouterr().out
    answer = path[: path.index("Spent:")]
    assert answer in shown


def test_get_graph_names_each_links_event_as_the_final_does(tmp_path: Path) -> None:
    # Given a finished run on the local server
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        run_id = client.start(A, B)["runId"]
        final = client.events_until_terminal(run_id)[-1]
        # When its graph is read
        client.send("getGraph", runId=run_id)
        page = client.reply()

    # Then every link carries its photo's page and event, and the chain's links the final's
    assert page["edges"] and all("event" in link and link["pageUrl"] for link in page["edges"])
    links = {frozenset((link["source"], link["target"])): link for link in page["edges"]}
    keys = {n["name"]: n["id"] for n in page["nodes"]}
    for edge in final["data"]["edges"]:
        link = links[frozenset((keys[edge["from"]], keys[edge["to"]]))]
        evidence = edge["evidence"]
        assert (link["imageUrl"], link["pageUrl"], link["event"]) == (
            evidence["imageUrl"],
            evidence["pageUrl"],
            evidence["event"],
        )
