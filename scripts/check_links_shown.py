"""Runs a sample of pairs as the bench does and checks what the user is shown: every link of every
`path_update` and `final` must have been shown by an `evidence` event of the run naming both people
with that photo; every path is judged by the bench's Truth (solved, false paths).

    python scripts/check_links_shown.py ../shared/data/worlds/cast.G.txt 11 [realistic|clean] [shared] \
        [shorten-min=USD]

`shared`: every pair on one memory, as a deployment's users ask in turn, so later runs reuse the
links earlier ones proved (the evidence graph) and must still show each one with its photo.
`shorten-min=USD`: the runs' `budgets.shortenMinUsd` (answers read from the graph shortened too).
"""

import json
import sys
from pathlib import Path

from visual_degrees.domain.models import Budgets, RunOptions
from visual_degrees.domain.names import name_key
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.bench import Truth, sample_pairs
from visual_degrees_tools.local.environments import sandbox_environment
from visual_degrees_tools.local.runner import LocalRunner


class Sink:
    def __init__(self) -> None:
        self.events: list = []

    def deliver(self, event) -> None:
        self.events.append(event)


world, seed = sys.argv[1], int(sys.argv[2])
# The clean web unless told: the figures committed from this script were measured on it.
web = sys.argv[3] if len(sys.argv) > 3 else "clean"
env = sandbox_environment(Path(world), web=web)
truth = Truth(env.web)
pairs = sample_pairs(env.web, 200, seed)
shared = SqliteMemory(":memory:") if "shared" in sys.argv[4:] else None
least = next((float(a.split("=", 1)[1]) for a in sys.argv[4:] if a.startswith("shorten-min=")), 0.0)
options = RunOptions(budgets=Budgets(shorten_min_usd=least))
solved = false = unshown = solvable = 0
for pair in pairs:
    sink = Sink()
    runner = LocalRunner(shared or SqliteMemory(":memory:"), env)
    result = runner.run(pair.a.name, pair.b.name, options, sink=sink)
    shown = {}
    for e in sink.events:
        if e.type == "evidence":
            for link in e.data["links"]:
                shown.setdefault(frozenset((link["fromKey"], link["toKey"])), set()).add(e.data["imageUrl"])
    for e in sink.events:
        if e.type in ("path_update", "final"):
            for edge in e.data.get("edges", []):
                url = edge.get("imageUrl") or edge["evidence"]["imageUrl"]
                keys = frozenset(
                    (edge.get("fromKey") or name_key(edge["from"]), edge.get("toKey") or name_key(edge["to"]))
                )
                if url not in shown.get(keys, set()):
                    unshown += 1
    short = truth.shortest(pair, 6)
    solvable += short is not None
    if result.outcome == "path":
        v = truth.check(result.final.data, pair)
        false += not v.true
        solved += v.solved and short is not None
print(
    json.dumps(
        {
            "world": Path(world).name,
            "seed": seed,
            "web": web,
            "solvable": solvable,
            "solved": solved,
            "false_paths": false,
            "links_shown_without_their_photo": unshown,
        }
    )
)
