"""Whole runs on the realistic web (the bundled world): once a chain is proven the run looks for a
shorter one within its share of the spend, shows each shorter chain as it is proven, and its answer
states its degrees, claiming the fewest only with the proof."""

from __future__ import annotations

from tests.support.fakes import ListSink
from visual_degrees.domain.models import Budgets, RunOptions
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.bench.pairs import sample_pairs
from visual_degrees_tools.local.environments import sandbox_environment
from visual_degrees_tools.local.runner import LocalRunner

ENVIRONMENT = sandbox_environment(None)
PAIRS = [(p.a.name, p.b.name) for p in sample_pairs(ENVIRONMENT.web, 24, 5)]


def run(a: str, b: str, share: float) -> tuple[ListSink, dict]:
    sink = ListSink()
    options = RunOptions(budgets=Budgets(shorten_share=share))
    result = LocalRunner(SqliteMemory(":memory:"), ENVIRONMENT).run(a, b, options, sink=sink)
    return sink, (result.final.data if result.final is not None else {})


def test_every_answer_states_its_degrees_and_claims_the_fewest_only_with_the_proof() -> None:
    answered = 0
    for a, b in PAIRS:
        sink, final = run(a, b, 0.25)
        if "degrees" not in final:
            continue
        answered += 1
        told = final["degrees"]
        hops = final["hops"]
        assert told["degrees"] == hops and told["lines"][0].startswith(f"Degrees: {hops}")
        # the fewest is claimed for one degree, or for two once one is ruled out by the pair's search
        ruled = [check["degrees"] for check in told["ruledOut"]]
        assert told["shortest"] == (hops == 1 or (hops == 2 and ruled == [1]))
        assert all("no photo of both" in check["evidence"] for check in told["ruledOut"])
        assert ruled in ([], [1])
        # what looking for fewer spent stayed within what it was allowed, and the budgets held
        assert told["spentUsd"] <= told["allowanceUsd"] + 1e-9
        usage, budgets = final["usage"], Budgets()
        assert usage["searches"] <= budgets.searches and usage["recognitions"] <= budgets.recognitions
        # a shorter chain was shown as it was proven: shorter than the first, as long as the answer
        shorter = [e for e in sink.of("path_update") if e.get("shorter")]
        if told["shortenedFrom"] is not None:
            assert told["shortenedFrom"] > hops and shorter and shorter[-1]["path"] == final["path"]
        else:
            assert not shorter
    assert answered >= len(PAIRS) // 2


def test_a_share_of_zero_answers_with_the_first_chain_at_the_first_chains_cost() -> None:
    # Given the pairs whose search for fewer degrees spent something
    compared = 0
    for a, b in PAIRS[:12]:
        _, looked = run(a, b, 0.25)
        if not looked.get("degrees", {}).get("spentUsd"):
            continue
        compared += 1
        # Then without it the run answers the same or a longer chain, for exactly that much less
        _, first = run(a, b, 0.0)
        assert first["hops"] >= looked["hops"]
        spent = looked["degrees"]["spentUsd"]
        assert round(looked["usage"]["costUsd"] - first["usage"]["costUsd"], 6) == round(spent, 6)
        assert first["degrees"]["spentUsd"] == 0.0
    assert compared


def test_a_chain_of_four_proven_first_is_answered_with_three_shown_before_the_answer() -> None:
    # Given a pair whose first proven chain has four degrees (found on the bundled realistic web)
    a, b = "Jasper Wolstenholme", "Rosalind Galloway"
    _, first = run(a, b, 0.0)
    assert first["hops"] == 4
    # When the run may spend a quarter more looking for a shorter one
    sink, final = run(a, b, 0.25)
    # Then a chain of three was proven within that, shown as a path_update before the final
    told = final["degrees"]
    assert (final["hops"], told["shortenedFrom"]) == (3, 4)
    assert (
        told["spentUsd"] <= told["allowanceUsd"]
        and told["allowanceUsd"] <= 0.25 * first["usage"]["costUsd"] + 1e-6
    )
    shown = [e for e in sink.events if e.type == "path_update" and e.data.get("shorter")]
    assert [e.data["path"] for e in shown] == [final["path"]]
    assert shown[0].seq < next(e.seq for e in sink.events if e.type == "final")
    assert told["lines"][0] == "Degrees: 3 (the first chain proven had 4) — fewer not ruled out"


def test_asked_again_the_answer_read_from_the_graph_keeps_the_proof_that_one_degree_is_ruled_out() -> None:
    # Given a question answered with two degrees, one ruled out by the pair's own page
    memory = SqliteMemory(":memory:")
    a, b = "Vesna Hawthorne", "Niall Halloran"
    first = LocalRunner(memory, ENVIRONMENT).run(a, b, RunOptions()).final.data
    assert first["hops"] == 2 and first["degrees"]["shortest"] is True
    # When it is asked again, on the same deployment
    again = LocalRunner(memory, ENVIRONMENT).run(a, b, RunOptions()).final.data
    # Then the chain is read from the graph at no paid call, and that page, read back from the cache
    # of earlier runs' pages, still rules one degree out
    assert again["path"] == first["path"] and again["usage"]["costUsd"] == 0
    assert again["degrees"]["shortest"] is True
    assert again["degrees"]["ruledOut"] == first["degrees"]["ruledOut"]


def test_the_pairs_checked_for_fewer_degrees_are_named_as_people_write_them() -> None:
    # Given a run whose look for a shorter chain checks a pair with someone only the planner named
    # (never recognised yet, so the run's evidence holds no name for them)
    sink, final = run("Jasper Wolstenholme", "Rosalind Galloway", 0.25)
    checking = [
        e["message"].partition("is there a shorter chain? Checking ")[2]
        for e in sink.of("status")
        if "is there a shorter chain?" in e.get("message", "")
    ]
    # Then every pair checked is shown by display name, as the answer's account of it says
    assert "Jasper Wolstenholme — Emrys Dunmere" in checking
    names = {name for pair in checking for name in pair.split(" — ")}
    assert all(ENVIRONMENT.web.knows(name) and name[0].isupper() for name in names)
    tried = final["degrees"]["lines"][-1]
    assert "pairs checked (Jasper Wolstenholme — Emrys Dunmere" in tried
