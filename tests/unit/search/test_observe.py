"""observe(): a search and the recognition of its first results."""

from __future__ import annotations

from tests.support.fakes import FakeWeb, face
from tests.support.search_scopes import A, run_of
from visual_degrees.search.observe import Observed, observe, read_page


def test_a_query_whose_whole_page_was_read_is_recognised_only_as_far_as_its_first_results() -> None:
    # Given an engine whose one request returns 20 results, and a run that read the whole page of
    # a query for its titles (as a pair search reads "A B")
    web = FakeWeb()
    web.page_size = 20  # type: ignore[attr-defined]
    web.answer("A B", *(web.photo(f"https://p/{n}.jpg", face(A), face(f"Guest {n}")) for n in range(20)))
    run = run_of(web)
    assert len(read_page(run.scope, "A B", shared=False, result=Observed()) or []) == 20
    # When a step searches that query again to recognise its first results (as a confirmation does)
    observed = observe(run.scope, "A B", parallel=False)
    # Then the page is not bought again, and only its first results are recognised, not all 20
    first = run.scope.options.images_per_search
    assert (web.calls["search"], web.calls["recognize"]) == (1, first)
    assert len(observed.observations) == first < 20


def test_a_search_to_recognise_keeps_its_whole_page_for_a_later_read_of_the_query() -> None:
    # Given an engine whose one request returns 20 results
    web = FakeWeb()
    web.page_size = 20  # type: ignore[attr-defined]
    web.answer("A B", *(web.photo(f"https://p/{n}.jpg", face(A), face(f"Guest {n}")) for n in range(20)))
    run = run_of(web)
    # When a step searches the query to recognise its first results (shared with later runs), and
    # the run later reads the query's page for its titles
    observe(run.scope, "A B", parallel=False, shared=True)
    page = read_page(run.scope, "A B", shared=True, result=Observed())
    # Then the one paid request serves both, with every title, and a later run finds it whole too
    assert web.calls["search"] == 1
    assert len(page or []) == 20
    assert len(run.scope.shared.search("A B", 20) or []) == 20
