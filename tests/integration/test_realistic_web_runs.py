"""Whole runs of the default strategy on the realistic photo web (issue 19): agencies' "(L-R)" is
never taken for a person, the same image behind several URLs is recognised once per run, every
path it reports holds photo by photo against the web's ground truth, and a chain of the planner's
is searched for in one query; captions written as wire services write them, or as headlines, are
read as the plain ones."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from visual_degrees.domain.models import Face, FetchedImage, RunOptions
from visual_degrees.domain.photo_event import photo_event
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.bench import Bench, BenchConfig, Truth
from visual_degrees_tools.bench.pairs import pair_of, sample_pairs
from visual_degrees_tools.bench.web_variants import variant_web
from visual_degrees_tools.local.environments import SandboxEnvironment, sandbox_environment
from visual_degrees_tools.local.runner import LocalRunner, RunEnvironment

ENVIRONMENT = sandbox_environment(None, web="realistic")
PAIRS = sample_pairs(ENVIRONMENT.web, 12, 19, "known")


class CountingEnvironment(SandboxEnvironment):
    """The realistic sandbox, counting every paid recognition by run and image bytes (sha256)."""

    def __init__(self) -> None:
        super().__init__(ENVIRONMENT.web)
        self.recognised: Counter[tuple[str, str]] = Counter()

    def __call__(self, run_id: str) -> RunEnvironment:
        environment = super().__call__(run_id)
        recognizer = environment.providers.recognizer
        counts = self.recognised

        class Counting:
            def recognize(self, image: FetchedImage) -> list[Face]:
                counts[run_id, image.sha256] += 1
                return recognizer.recognize(image)

        return replace(environment, providers=replace(environment.providers, recognizer=Counting()))


def test_runs_on_the_realistic_web_recognise_each_image_once_and_report_only_true_paths():
    # Given a web that republishes photos under other URLs and titles, a fresh memory per pair
    environment = CountingEnvironment()
    # When the default strategy runs each pair
    result = Bench(environment, Truth(ENVIRONMENT.web)).run(PAIRS, BenchConfig())
    # Then no run paid twice for one image, whatever URL it came under
    assert environment.recognised and max(environment.recognised.values()) == 1
    # ... every path reported is true photo by photo, and some pairs were solved
    figures = result.figures
    assert figures["false_paths"] == 0 and figures["solved"] > 0


def test_a_chain_of_two_hunches_costs_one_search_after_the_pairs_own():
    # Given the README's pair, two hops apart through someone the planner knows both of
    pair = pair_of(ENVIRONMENT.web, "Vesna Hawthorne", "Niall Halloran")
    # When the default strategy runs it on the realistic web
    record = Bench(SandboxEnvironment(ENVIRONMENT.web), Truth(ENVIRONMENT.web)).run_pair(pair, RunOptions())
    # Then "A B", the planner, and one query for both pairs of its chain ("A H B") found a true path
    assert record.outcome == "path" and record.true_path and record.hops == 2
    assert (record.searches, record.llm_calls) == (2, 1)


class Events:
    def __init__(self) -> None:
        self.seen: list = []

    def deliver(self, event) -> None:
        self.seen.append(event)


def famous_figures(web) -> tuple[dict, dict]:
    """The default strategy's figures on the bundled world's famous pairs: on the realistic web, and
    on `web`, a variant of it."""
    famous = sample_pairs(ENVIRONMENT.web, 12, 19, "famous")
    plain = Bench(SandboxEnvironment(ENVIRONMENT.web), Truth(ENVIRONMENT.web)).run(famous, BenchConfig())
    return plain.figures, Bench(SandboxEnvironment(web), Truth(web)).run(famous, BenchConfig()).figures


def readme_links(web) -> list[tuple[dict, str]]:
    """The README's pair run on `web`: each link's evidence, with the title the realistic web gives
    its photo."""
    events = Events()
    result = LocalRunner(SqliteMemory(":memory:"), SandboxEnvironment(web)).run(
        "Vesna Hawthorne", "Niall Halloran", RunOptions(), sink=events
    )
    assert result.outcome == "path"
    edges = events.seen[-1].data["edges"]
    assert len(edges) == 2
    return [
        (
            link["evidence"],
            ENVIRONMENT.web.page_title(ENVIRONMENT.web.page_from_url(link["evidence"]["imageUrl"])),
        )
        for link in edges
    ]


def test_captions_with_a_dateline_and_a_credit_are_read_as_the_plain_ones():
    # Given the same web with every agency caption written as a wire service writes it ("LOS
    # ANGELES, CA - JUNE 22: X, left, and Y attend … (Photo by A B/Getty Images)")
    wire = variant_web(ENVIRONMENT.web.world, "wire-captions")
    # When the default strategy runs the same famous pairs on both webs
    plain, figures = famous_figures(wire)
    # Then it solves as many on the wire web, with no false path
    assert figures["solved"] == plain["solved"] > 0
    assert figures["false_paths"] == 0
    # And the README's pair is answered, each link explained by its event without the dateline or
    # the credit
    for evidence, plain_title in readme_links(wire):
        assert "Getty Images)" in evidence["title"]
        assert evidence["event"] == photo_event(plain_title) and evidence["event"]


def test_captions_written_as_headlines_are_read_as_the_plain_ones():
    # Given the same web with every agency caption in headline case, as news sites title photos
    # ("Kevin Bacon And A Guest Attend The Premiere Of …")
    headline = variant_web(ENVIRONMENT.web.world, "headline-captions")
    # When the default strategy runs the same famous pairs on both webs
    plain, figures = famous_figures(headline)
    # Then it solves as many, at the same cost, with no false path
    assert figures["solved"] == plain["solved"] > 0
    assert figures["mean_cost_usd"] == plain["mean_cost_usd"]
    assert figures["false_paths"] == 0
    # And the README's pair is answered with each link's event, as the plain caption names it
    for evidence, plain_title in readme_links(headline):
        assert evidence["title"] != plain_title and evidence["title"].lower() == plain_title.lower()
        assert evidence["event"] and evidence["event"].lower() == photo_event(plain_title).lower()
