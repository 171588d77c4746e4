"""Links reused from earlier runs (the evidence graph) on hand-built runs: a gone photo's link is
withdrawn before anything claims or shows it, and the run then decides by the chains still held
(search/answer_chain.py, search/confirm.py, S6)."""

from __future__ import annotations

from tests.support.fakes import FakeWeb, face
from tests.support.search_scopes import A, B, Run, key, link, run_of
from visual_degrees.domain.models import Evidence
from visual_degrees.search.answer_chain import standing
from visual_degrees.search.confirm import settle
from visual_degrees.search.evidence import accept_edge
from visual_degrees.search.known_edges import MAX_RECHECKS
from visual_degrees.search.progress import partial_paths_payload, show_progress
from visual_degrees.steps import finalize_success

# The seed's walk, with no second photo asked of a weakly matched face (a step may claim a chain)
WALK = {"caption_leads": False, "planner_matching": False, "corroborate_weak_edges": False}
X, Y = "Gary Sinise", "Tom Hanks"


def reused(run: Run, x: str, y: str, *, gone: bool) -> str:
    """A link x–y an earlier run proved, joined to the run unchecked (as an end's component joins);
    its photo still up on the web unless `gone`. Its photo's URL."""
    url = f"https://earlier.test/{key(x)}-{key(y)}.jpg".replace(" ", "-")
    if not gone:
        run.web.photo(url, face(x), face(y))
    ev = Evidence(
        image_url=url,
        confidence_a=99.0,
        confidence_b=99.0,
        id_a=face(x).celebrity_id,
        id_b=face(y).celebrity_id,
        proven_at="2026-01-02T03:04:05Z",
        earlier_run=True,
    )
    accept_edge(run.scope, key(x), key(y), ev, card=False, remember=False)
    run.scope.graph.flush()
    return url


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
