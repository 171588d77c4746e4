"""What `run` says about a name nobody in its sandbox world has, beyond "did you mean": where such a
person can be found. The bundled world is made up, so a real name is never in it: say so, name two
of its people, and how to use real credits or the live web. A world file is often one of several
in its folder: say which of them has the name (local/world_files.py)."""

from __future__ import annotations

import os
from pathlib import Path

from visual_degrees.domain.errors import UnknownPerson
from visual_degrees_tools.commands.common import default_cache_dir
from visual_degrees_tools.local import environments, world_files
from visual_degrees_tools.local.environments import SandboxEnvironment, either
from visual_degrees_tools.local.world_info import example_pair

# Where the benchmark worlds of real film credits live beside a checkout (README.md, Benchmarks).
SHARED_WORLD = Path("shared", "data", "worlds", "cast.G.txt")
LIVE = (
    "the live web (--providers live: it needs an image search key and AWS credentials for "
    "Rekognition; `visual-degrees doctor` says what is missing)"
)


def require_known(sandbox: SandboxEnvironment, names: list[str], world: Path | None) -> None:
    """As environments.require_known (UnknownPerson, with the suggestions as data), and the message
    says where the people it lacks may be found."""
    try:
        environments.require_known(sandbox, *names)
    except UnknownPerson as refused:
        unknown = environments.unknown_names(sandbox, *names)
        # A typo's "did you mean" says enough; a name with nothing close is someone elsewhere.
        lacking = [name for field, name in unknown.items() if field not in refused.suggestions]
        if not lacking:
            raise
        if world is None:
            advice = _bundled(sandbox)
        else:
            advice = _beside(names, list(unknown.values()), lacking, world)
        raise UnknownPerson("\n".join([refused.message, *advice]), refused.suggestions) from None


def _bundled(sandbox: SandboxEnvironment) -> list[str]:
    pair = example_pair(sandbox.web)
    such_as = f", such as {pair[0]} and {pair[1]}" if pair else ""
    shared = _shared_world()
    example = f", e.g. --world {shared}" if shared else ""
    return [
        f"The bundled world is synthetic: its {sandbox.web.world.size:,} people are made up{such_as}.",
        f"For real people, use a world file of real film credits (--world FILE{example}) or {LIVE}.",
    ]


def _beside(names: list[str], unknown: list[str], lacking: list[str], world: Path) -> list[str]:
    """Which files beside `world` have each unknown name (for a name with nothing close in the
    world, `lacking`, also when none does), and one that has every name of the run."""
    others = world_files.beside(world)
    if not others:
        return [f"To look beyond {world.name}, try {LIVE}."]
    found = world_files.holders(names, world, default_cache_dir())
    lines = []
    for name in unknown:
        if found[name]:
            lines.append(
                f"{name!r} is in {either([f.name for f in found[name]], 'and')}, beside {world.name}."
            )
        elif name in lacking:
            shown = either([f.name for f in others], "or")
            lines.append(f"{name!r} is not in {shown} beside it either; try {LIVE}.")
    everyone = [f for f in others if all(f in found[name] for name in names)]
    if everyone and len(lines) == len(unknown):
        who = "Both" if len(names) == 2 else f"All {len(names)}"
        lines.append(f"{who} are in {everyone[0].name}: --world {everyone[0]}")
    return lines


def _shared_world() -> str | None:
    """The benchmark cast.G.txt as a path from here, if this is a checkout beside it."""
    here = Path.cwd()
    for base in [here, *list(here.parents)[:3]]:
        if (base / SHARED_WORLD).is_file():
            return os.path.relpath(base / SHARED_WORLD)
    return None
