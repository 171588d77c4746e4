"""The least any strategy could pay for a stream's last 30 questions, given the evidence graph the
default strategy grew by then (issue 20: the last 30 at most 30 % of the first 30).

    python scripts/stream_floor.py --world ../shared/data/worlds/cast.G.txt --seeds 1 2 3 4 5

Runs each stream exactly as `visual-degrees bench --stream 90 --seed S` does (one memory, in order,
the same figures), and before each question prices it on the graph and the pages read so far
(tools/visual_degrees_tools/bench/stream_floor.py): `floor` when any photo on a page read counts,
`titles only` when only a photo whose title names both does. One markdown row per stream: the
default strategy's first and last 30 a question, how many of the last 30 had 0, 1 or 2 ends new to
the graph, and each floor a question and against the strategy's own first 30. Benchmark-only: it
reads the photo web's ground truth. `--detail` also lists, per stream, the last 30's questions that
cost the strategy more than $0.005 above their titles-only floor, dearest first: where to look.
`--kinds` adds one table of the last 30 of every stream asked, by how many ends were new to the
graph; `--knowing` runs the streams with a planner that knows the photo web (bench/knowing.py);
`--web clean` runs them on the clean web instead of the realistic one (the default, as `bench`);
`--shorten-min USD` gives the runs that `budgets.shortenMinUsd` (`bench --budget-shorten-min`);
`--variant NAME` runs them on a realistic web with some figures moved (bench/web_variants.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from visual_degrees.domain.models import Budgets, RunOptions
from visual_degrees.domain.names import name_key
from visual_degrees.lifecycle.evidence_graph import KnownLinks, MemoryGraphStore
from visual_degrees.ports import Put
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.bench import Truth
from visual_degrees_tools.bench.harness import Bench
from visual_degrees_tools.bench.knowing import Knowing
from visual_degrees_tools.bench.metrics import RunRecord, path_excess
from visual_degrees_tools.bench.pairs import BenchPair, Person
from visual_degrees_tools.bench.stream import THIRD, stream_pairs
from visual_degrees_tools.bench.stream_floor import (
    Asked,
    End,
    KindFigures,
    PagesRead,
    QuestionFloor,
    by_kind,
    question_floor,
    recognised_on,
)
from visual_degrees_tools.bench.web_variants import add_variant_option, chosen_web
from visual_degrees_tools.local.environments import SandboxEnvironment
from visual_degrees_tools.sandbox import EPOCH, VirtualClock, load_world
from visual_degrees_tools.sandbox_options import DEFAULT_WEB, WEB_NAMES


class PagesKept(SqliteMemory):
    """The stream's one memory, keeping aside the results of every page a run buys as the shared
    search cache writes it: (image URL, title)."""

    def __init__(self) -> None:
        super().__init__(":memory:")
        self._new: list[tuple[str, str]] = []

    def put(self, put: Put) -> bool:
        if put.pk.startswith("shared#") and "#search#" in put.pk:
            self._new.extend((hit["imageUrl"], hit["title"]) for hit in put.data.get("hits", []))
        return super().put(put)

    def take(self) -> list[tuple[str, str]]:
        """The results written since the last call (each page is handed over once)."""
        new, self._new = self._new, []
        return new


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--world", type=Path, required=True)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument("--stream", type=int, default=90)
    parser.add_argument("--detail", action="store_true", help="list the last 30's dearest questions")
    parser.add_argument("--kinds", action="store_true", help="the last 30 by ends new to the graph, pooled")
    parser.add_argument("--knowing", action="store_true", help="runs ask a planner that knows the web")
    parser.add_argument("--web", choices=WEB_NAMES, default=DEFAULT_WEB)
    parser.add_argument("--shorten-min", type=float, default=0.0, metavar="USD", help="budgets.shortenMinUsd")
    add_variant_option(parser)
    args = parser.parse_args()
    web, _ = chosen_web(load_world(args.world), args.web, args.variant)
    environment = SandboxEnvironment(web, dated=False)  # as `bench` builds it
    truth = Truth(environment.web)
    world = environment.web.world

    def key_of(celebrity_id: str) -> str | None:
        person = world.by_celebrity_id(celebrity_id)
        return None if person is None else world.keys[person]

    def end(person: Person) -> End:
        return End(name_key(person.name), person.ids)

    options = RunOptions(budgets=Budgets(shorten_min_usd=args.shorten_min))
    runs = Knowing(environment) if args.knowing else environment
    asked: list[Asked] = []
    print(
        "| stream | first 30 | last 30 | last / first | last 30: questions with 0 / 1 / 2 ends new to "
        "the graph | floor | floor / first | titles only | titles only / first |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for seed in args.seeds:
        bench, shared = Bench(runs, truth), PagesKept()  # type: ignore[arg-type]
        store, pages = MemoryGraphStore(shared), PagesRead(recognised_on(environment.web), key_of)
        floors: list[QuestionFloor] = []
        records: list[tuple[BenchPair, RunRecord]] = []
        try:
            for pair in stream_pairs(environment.web, args.stream, seed):
                known = KnownLinks(store, environment.web.identity, VirtualClock(EPOCH), "floor")
                pages.add(shared.take())
                floors.append(question_floor(known, pages, end(pair.a), end(pair.b), options.max_hops))
                records.append((pair, bench.run_pair(pair, options, shared)))
        finally:
            shared.close()
        costs = [record.cost_usd for _, record in records]
        first, last = sum(costs[:THIRD]) / THIRD, sum(costs[-THIRD:]) / THIRD
        tail = floors[-THIRD:]
        new = " / ".join(str(sum(1 for q in tail if q.new == n)) for n in (0, 1, 2))
        floor, titled = (sum(getattr(q, part) for q in tail) / THIRD for part in ("floor", "titled"))
        print(
            f"| {args.world.stem} {seed} | ${first:.4f} | ${last:.4f} | {last / first:.1%} | {new} | "
            f"${floor:.4f} | {floor / first:.1%} | ${titled:.4f} | {titled / first:.1%} |",
            flush=True,
        )
        if args.detail:
            _detail(records, floors)
        last = zip(records[-THIRD:], tail, strict=True)
        asked += [Asked(f, r.cost_usd, r.searches, _excess(r)) for (_, r), f in last]
    if args.kinds:
        _kinds(by_kind(asked))


def _excess(record: RunRecord) -> int | None:
    """As the bench counts it (metrics.summarize): of solved solvable questions only."""
    if not (record.solved and record.solvable) or record.hops is None or record.shortest is None:
        return None
    return path_excess(record.hops, record.shortest)


def _kinds(figures: dict[str, KindFigures]) -> None:
    print(
        "\n| last 30, pooled | questions | spent | mean | median | p90 | no search | every new end tied by a "
        "title read before | … and no search | excess over the shortest |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, f in figures.items():
        excess = "" if f.excess is None else f"{f.excess:.2f}"
        print(
            f"| {name} | {f.questions} | ${f.spent:.3f} | ${f.spent / f.questions:.4f} | ${f.median:.4f} | "
            f"${f.p90:.4f} | {f.no_search} | {f.titled_tie} | {f.titled_tie_no_search} | {excess} |"
        )


def _detail(records: list[tuple[BenchPair, RunRecord]], floors: list[QuestionFloor]) -> None:
    start = len(records) - THIRD
    dear = [
        (record.cost_usd - floor.titled, n, pair, record, floor)
        for n, ((pair, record), floor) in enumerate(zip(records, floors, strict=True))
        if n >= start and record.cost_usd - floor.titled > 0.005
    ]
    for _, n, pair, record, floor in sorted(dear, key=lambda row: -row[0]):
        print(
            f"    question {n}: {pair.a.name} — {pair.b.name}: ${record.cost_usd:.4f} "
            f"({record.searches} searches, {record.recognitions} recognitions, {record.llm_calls} LLM "
            f"calls), "
            f"{floor.new} new to the graph, floor ${floor.floor:.4f}, titles only ${floor.titled:.4f}"
        )


if __name__ == "__main__":
    main()
