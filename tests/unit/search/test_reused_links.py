"""Links reused from earlier runs (the evidence graph) on hand-built runs: a gone photo's link is
withdrawn before anything claims or shows it, and the run then decides by the chains still held
(search/answer_chain.py, search/confirm.py, S6). A photo whose host could not be reached now keeps
its link out of the run only: the deployment's graph forgets a link only when its photo is gone."""

from __future__ import annotations

import pytest

from tests.support.fakes import FakeWeb, face
from tests.support.search_scopes import A, B, Run, key, link, run_of
from visual_degrees.adapters.live.image_convert import ImageRejected
from visual_degrees.domain.errors import ProviderError, TransientProviderError
from visual_degrees.domain.graph_links import GraphLink
from visual_degrees.domain.models import Edge, Evidence, FetchedImage
from visual_degrees.search.answer_chain import reused_photos_resolve, standing
from visual_degrees.search.confirm import settle
from visual_degrees.search.evidence import accept_edge
from visual_degrees.search.known_edges import MAX_READS, MAX_RECHECKS, chain_in_memory, import_known
from visual_degrees.search.observe import photo_check
from visual_degrees.search.progress import partial_paths_payload, show_progress
from visual_degrees.steps import finalize_success

# The seed's walk, with no second photo asked of a weakly matched face (a step may claim a chain)
WALK = {"caption_leads": False, "planner_matching": False, "corroborate_weak_edges": False}
X, Y = "Gary Sinise", "Tom Hanks"


def reused(run: Run, x: str, y: str, *, gone: bool, timeouts: int = 0) -> str:
    """A link x–y an earlier run proved, joined to the run unchecked (as an end's component joins);
    its photo still up on the web unless `gone`, its host timing out `timeouts` times first. Its
    photo's URL."""
    edge = remembered(run, x, y, gone=gone, timeouts=timeouts)
    accept_edge(run.scope, edge.a, edge.b, edge.evidence, card=False, remember=False)
    run.scope.graph.flush()
    return edge.evidence.image_url


def remembered(
    run: Run, x: str, y: str, *, gone: bool = False, timeouts: int = 0, url: str | None = None
) -> Edge:
    """A link x–y an earlier run proved, held by the deployment's graph (see `reused`); `url`: the
    photo backing it, when another link's photo does too (a group photo)."""
    url = url or f"https://earlier.test/{key(x)}-{key(y)}.jpg".replace(" ", "-")
    if not gone:
        run.web.photo(url, face(x), face(y))
    run.web.timeouts[url] = timeouts
    ev = Evidence(
        image_url=url,
        confidence_a=99.0,
        confidence_b=99.0,
        id_a=face(x).celebrity_id,
        id_b=face(y).celebrity_id,
        proven_at="2026-01-02T03:04:05Z",
        earlier_run=True,
    )
    edge = Edge(a=key(x), b=key(y), name_a=x, name_b=y, evidence=ev)
    known = run.scope.known
    known.store.add(known.web, GraphLink.of(edge, proven_at=1_767_225_600.0, run_id="earlier"))
    return edge


def test_a_step_that_proved_the_last_link_itself_claims_no_chain_once_a_link_on_it_is_withdrawn() -> None:
    # Given A — X reused from an earlier run (its photo gone), and X — B proven by this step
    run = run_of(FakeWeb(), knobs=WALK)
    reused(run, A, X, gone=True)
    link(run.scope, X, B)
    # When the step settles, claiming the chain its own link closed
    reached, _ = settle(run.scope, "s5", claimed=True)
    # Then the gone link is withdrawn, and with no chain left the run may not finish: it looks on
    assert not reached
    assert run.scope.graph.confidence(key(A), key(X)) is None
    assert any("no longer has its photo" in s for s in run.statuses())


def test_the_answer_claims_only_links_it_proved_or_re_checked_however_many_shorter_chains_are_gone() -> None:
    # Given A — X — Y — B proven by the run, and more shorter chains A — P — B than the answer re-checks,
    # each through a reused link whose photo is gone
    run = run_of(FakeWeb(), knobs=WALK)
    for x, y in ((A, X), (X, Y), (Y, B)):
        link(run.scope, x, y)
    gone = set()
    for n in range(MAX_RECHECKS + 1):
        p = f"Person {n}"
        link(run.scope, A, p)
        gone.add(reused(run, p, B, gone=True))
    # When S6 answers
    finalize_success.run(run.state, run.scope.ctx)
    # Then it claims the chain that stands, and shows no link on a gone photo in its graph either
    (final,) = run.sink.of("final")
    assert final["path"] == [A, X, Y, B]
    assert not gone & {e["evidence"]["imageUrl"] for e in final["edges"]}
    pb = {frozenset((key(f"Person {n}"), key(B))) for n in range(MAX_RECHECKS + 1)}
    assert not pb & {frozenset((e["source"], e["target"])) for e in final["graph"]["edges"]}


def test_a_chain_is_shown_once_its_reused_links_are_re_checked_and_marked_so() -> None:
    # Given A — X reused (its photo still up), X — Y reused (gone), and A — Y proven by the run
    run = run_of(FakeWeb(), knobs=WALK)
    reused(run, A, X, gone=False)
    reused(run, X, Y, gone=True)
    link(run.scope, A, Y)
    # When the chain A — X — Y is to be shown
    shown = standing(run.scope, "t", lambda: [key(A), key(X), key(Y)])
    # Then it is not (X — Y is withdrawn), and A — X, re-checked, may be shown from now on
    assert shown is None and run.scope.graph.confidence(key(X), key(Y)) is None
    ax = run.scope.evidence.edge(key(A), key(X))
    assert ax is not None and ax.evidence.rechecked and ax.evidence.shown
    assert standing(run.scope, "u", lambda: [key(Y), key(A), key(X)]) == [key(Y), key(A), key(X)]


def test_progress_and_partial_paths_show_no_reused_link_whose_photo_is_gone() -> None:
    # Given A — X reused from an earlier run (its photo gone), and X — Y just proven by the run
    run = run_of(FakeWeb(), knobs=WALK)
    url = reused(run, A, X, gone=True)
    link(run.scope, X, Y)
    # When the run shows its progress, and later how far each side got
    show_progress(run.scope, key(X), key(Y))
    partial = partial_paths_payload(run.scope)
    # Then the chain shown is the pair alone, A's side got nowhere, and the gone photo has no card
    (update,) = run.sink.of("path_update")
    assert update["path"] == [X, Y] and partial["partialPath"] == [A]
    assert url not in {e["imageUrl"] for e in run.sink.of("evidence")}


REACHED_NOT, GONE = "could not be reached now", "no longer has its photo"


@pytest.mark.parametrize(
    ("timeouts", "gone", "said", "unsaid"),
    [
        (1, False, REACHED_NOT, GONE),  # the host was briefly down
        (0, True, GONE, REACHED_NOT),  # the URL answers 404
    ],
)
def test_a_reused_link_leaves_the_run_when_its_photo_fails_and_the_graph_only_when_it_is_gone(
    timeouts: int, gone: bool, said: str, unsaid: str
) -> None:
    # Given A — X reused from an earlier run (its photo's host timing out once, or its photo gone),
    # and X — B proven by this step
    run = run_of(FakeWeb(), knobs=WALK)
    reused(run, A, X, gone=gone, timeouts=timeouts)
    link(run.scope, X, B)
    # When the step settles, claiming the chain its own link closed
    reached, _ = settle(run.scope, "s5", claimed=True)
    # Then the link is neither claimed nor shown by this run, which says why in the right words
    assert not reached and run.scope.graph.confidence(key(A), key(X)) is None
    assert any(said in s for s in run.statuses()) and not any(unsaid in s for s in run.statuses())
    # And the deployment's graph forgets it only when the photo is gone
    assert (run.scope.known.link(key(A), key(X)) is None) is gone
    # And brought in again from the graph, it does not come back in this run
    import_known(run.scope, key(X))
    assert run.scope.graph.confidence(key(A), key(X)) is None


def test_a_chain_in_the_graph_on_a_photo_not_reached_now_is_passed_over_for_the_next_one() -> None:
    # Given the deployment's graph holding A — X — B (X — B's photo host timing out once) and
    # A — Y — Z — B, all photos up
    run = run_of(FakeWeb(), knobs=WALK)
    remembered(run, A, X)
    xb = remembered(run, X, B, timeouts=1).evidence.image_url
    for x, y in ((A, Y), (Y, "Meg Ryan"), ("Meg Ryan", B)):
        remembered(run, x, y)
    # When the run asks the graph first
    found = chain_in_memory(run.scope)
    # Then the longer chain answers, X — B stays out of the run (fetched once), and the graph keeps it
    assert found and run.scope.graph.confidence(key(X), key(B)) is None
    assert run.scope.graph.connects(key(A), key(B), 3) and run.web.calls["fetch"] == 5
    assert run.scope.known.link(key(X), key(B)) is not None
    assert xb not in {e["imageUrl"] for e in run.sink.of("evidence")}


def test_a_group_photo_not_reached_now_spends_one_re_check_however_many_chains_go_through_it() -> None:
    # Given the deployment's graph holding A — P — B for P of a group photo with A whose host times
    # out (more chains through it than the run re-checks), and A — Y — Z — B, all photos up
    run = run_of(FakeWeb(), knobs=WALK)
    group = "https://earlier.test/group.jpg"
    people = [f"Person {n}" for n in range(MAX_RECHECKS)]
    for p in people:
        remembered(run, A, p, timeouts=99, url=group)
        remembered(run, p, B)
    for x, y in ((A, Y), (Y, "Meg Ryan"), ("Meg Ryan", B)):
        remembered(run, x, y)
    # When the run asks the graph first
    found = chain_in_memory(run.scope)
    # Then the chain on good photos answers: the group photo counted once, its links kept out of the
    # run only, and the graph keeps them for later runs
    assert found and run.scope.graph.connects(key(A), key(B), 3) and run.web.timeouts[group] == 98
    assert all(run.scope.graph.kept_out(key(A), key(p)) for p in people)
    assert all(run.scope.known.link(key(A), key(p)) is not None for p in people)
    assert group not in {e["imageUrl"] for e in run.sink.of("evidence")}


@pytest.mark.parametrize("gone", [True, False])
def test_a_group_photo_that_fails_takes_its_other_links_out_with_it_before_the_answer(gone: bool) -> None:
    # Given A — X — Y — B proven by the run, and more chains A — P — B than the answer re-checks, each
    # through a reused link of one group photo with A, whose photo is gone (or its host down)
    run = run_of(FakeWeb(), knobs=WALK)
    for x, y in ((A, X), (X, Y), (Y, B)):
        link(run.scope, x, y)
    group = "https://earlier.test/group.jpg"
    people = [f"Person {n}" for n in range(MAX_RECHECKS + 1)]
    for p in people:
        edge = remembered(run, A, p, gone=gone, timeouts=0 if gone else 99, url=group)
        accept_edge(run.scope, edge.a, edge.b, edge.evidence, card=False, remember=False)
        link(run.scope, p, B)
    run.scope.graph.flush()
    # When the answer's chain is checked, then one failed re-check takes every link on that photo out
    assert reused_photos_resolve(run.scope, "t")
    assert all(run.scope.graph.confidence(key(A), key(p)) is None for p in people)
    # And the graph forgets them only when the photo is gone
    assert all((run.scope.known.link(key(A), key(p)) is None) == gone for p in people)


def test_a_pair_the_run_proved_itself_stands_when_a_stronger_reused_link_of_it_has_lost_its_photo() -> None:
    # Given A — X proven by the run, the same pair reused from an earlier run on a stronger photo
    # since gone, and X — B proven by this step
    run = run_of(FakeWeb(), knobs=WALK)
    own = link(run.scope, A, X, 90.0).evidence.image_url
    reused(run, A, X, gone=True)
    link(run.scope, X, B)
    # When the step settles, claiming the chain its own link closed
    reached, _ = settle(run.scope, "s5", claimed=True)
    # Then the chain stands on the run's own photo of A — X: nothing was withdrawn
    assert reached and not any("no longer has" in s for s in run.statuses())
    ax = run.scope.evidence.edge(key(A), key(X))
    assert ax is not None and ax.evidence.image_url == own


class Failing(FakeWeb):
    """A web whose every fetch fails with `error`."""

    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error

    def fetch(self, url: str) -> FetchedImage:
        self.calls["fetch"] += 1
        raise self.error


@pytest.mark.parametrize(
    ("error", "check"),
    [
        (TransientProviderError("image download timed out"), "unreachable"),  # the sandbox's timeout
        (ImageRejected("timeout", "image host timed out"), "unreachable"),  # the live fetcher's
        (ImageRejected("http_503", "image host answered HTTP 503"), "unreachable"),
        (ImageRejected("unreachable", "image host unreachable: ConnectError"), "unreachable"),
        (ImageRejected("http_404", "image host answered HTTP 404"), "gone"),
        (ImageRejected("not_an_image", "content type 'text/html' is not an image"), "gone"),
        (ProviderError("dead link"), "gone"),
    ],
)
def test_only_an_answer_about_the_photo_itself_says_it_is_gone(error: Exception, check: str) -> None:
    run = run_of(Failing(error))
    assert photo_check(run.scope, "https://earlier.test/a.jpg", "abc") == check


@pytest.mark.parametrize(
    ("error", "check"),
    [
        (TransientProviderError("image download timed out"), "unreachable"),
        (ProviderError("dead link"), "gone"),
    ],
)
def test_a_failed_fetch_is_told_gone_or_unreachable_from_one_read_of_the_runs_fetch_item(
    error: Exception, check: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a run whose fetch items are counted as they are read
    run = run_of(Failing(error))
    caches = run.scope.caches
    reads: list[str] = []
    read = caches.cached_fetch
    monkeypatch.setattr(caches, "cached_fetch", lambda url: reads.append(url) or read(url))
    # When a reused link's photo fails its re-check, then is asked about again
    url = "https://earlier.test/a.jpg"
    said = [photo_check(run.scope, url, "abc") for _ in range(2)]
    # Then each answer read the fetch item once, and the second came from it, as the first said
    assert said == [check, check] and reads == [url, url] and run.web.calls["fetch"] == 1


def test_a_pair_the_run_proved_itself_is_not_withdrawn_when_the_graphs_link_for_it_is_set_aside() -> None:
    # Given A — X proven by this run, and the deployment's graph holding A — X — B, A — X's photo gone
    run = run_of(FakeWeb(), knobs=WALK)
    link(run.scope, A, X)
    remembered(run, A, X, gone=True)
    remembered(run, X, B)
    # When the run asks the graph first
    assert not chain_in_memory(run.scope)
    # Then the graph's A — X is forgotten, but the run keeps its own photo of the pair
    assert run.scope.known.link(key(A), key(X)) is None
    assert run.scope.graph.confidence(key(A), key(X)) is not None


def test_the_graphs_chain_between_the_ends_is_found_past_the_reads_of_a_look_for_a_named_person() -> None:
    # Given a graph where A and B have many neighbours each, and the one chain between them,
    # A — Zz Bridge — Zz Middle — B, goes through the last of A's neighbours to be read
    run = run_of(FakeWeb(), knobs=WALK)
    crowd = MAX_READS + 5
    for n in range(crowd):
        remembered(run, A, f"Filler {n:02d}")
        remembered(run, B, f"Other {n:02d}")
    for x, y in ((A, "Zz Bridge"), ("Zz Bridge", "Zz Middle"), ("Zz Middle", B)):
        remembered(run, x, y)
    # When the run asks the graph first (S1)
    found = chain_in_memory(run.scope)
    # Then the chain is read from it, although meeting in the middle takes more reads than MAX_READS
    assert found and run.scope.graph.connects(key(A), key(B), 3)
