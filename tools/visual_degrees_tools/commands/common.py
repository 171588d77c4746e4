"""Exit codes and argument types shared by the subcommands."""

from __future__ import annotations

import argparse
import difflib
import math
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import annotated_types
from pydantic import BaseModel, ValidationError

from visual_degrees.domain.errors import InvalidInput, RunNotFound
from visual_degrees.domain.models import Budgets, RunOptions
from visual_degrees.domain.outcomes import BY_OUTCOME
from visual_degrees.domain.requests import require_startable
from visual_degrees_tools.sandbox_options import DEFAULT_WEB, WEB_NAMES

# A run's own endings have their exit codes in domain/outcomes.py (0 path, 3 no_path, 4 cancelled,
# 1 error); these are the command's own.
EXIT_FAILED = BY_OUTCOME["error"].exit_code
EXIT_BAD_INPUT = 2


def memory_file(state_dir: Path) -> Path:
    """The SQLite file of the local runs' memory in `state_dir` (run, serve, show, trace, hunches)."""
    return state_dir / "memory.sqlite3"


def past_runs(state_dir: Path) -> Path:
    """The memory file of past local runs, for the commands that read them; RunNotFound (a clear
    error, not an empty database made on the spot) when no run was made here yet."""
    path = memory_file(state_dir)
    if not path.exists():
        raise RunNotFound(f"no local runs yet (looked in {state_dir})")
    return path


def default_state_dir() -> Path:
    if env := os.environ.get("VISUAL_DEGREES_STATE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "visual-degrees"


def default_cache_dir() -> Path:
    """Where what can be made again is kept (indexes of world files): $XDG_CACHE_HOME/visual-degrees."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "visual-degrees"


def count(text: str) -> int:
    """A whole number >= 0 (seeds, sample sizes, ports)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative")
    return value


def whole(text: str) -> int:
    """A whole number; its range is the run option's own (checked by `parse_run_options`)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def number(text: str, what: str = "a number") -> float:
    """A finite or infinite float; argparse's error names `what` was expected."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def finite(text: str) -> float:
    """A finite number; its range is the run option's own (checked by `parse_run_options`)."""
    value = number(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def seconds(text: str) -> float:
    value = number(text, "a number of seconds")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number of seconds")
    return value


class Parser(argparse.ArgumentParser):
    """argparse with a suggestion for a mistyped choice: `visual-degrees runn` gets "did you mean
    run?" (Python 3.14's suggest_on_error, for every version we support)."""

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is None or value in choices or not isinstance(value, str):
            super()._check_value(action, value)
            return
        names = [str(choice) for choice in choices]
        close = difflib.get_close_matches(value, names, n=1, cutoff=0.6)
        meant = f"; did you mean {close[0]}?" if close else ""
        if isinstance(action, argparse._SubParsersAction):  # "argument COMMAND:" would say nothing
            raise argparse.ArgumentError(
                None, f"{value!r} is not a command{meant} (commands: {', '.join(names)})"
            )
        raise argparse.ArgumentError(action, f"{value!r} is not one of {', '.join(names)}{meant}")


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Every option's line ends with its default (unless it has none, or the text already says it)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            "(default" in text
            or "default:" in text
            or default is None
            or default is False
            or default is argparse.SUPPRESS
            or isinstance(action, argparse._HelpAction | argparse._VersionAction)
        ):
            return text
        shown = (_plain(default) if isinstance(default, int | float) else str(default)).replace("%", "%%")
        if shown == "":
            return text
        return f"{text} (default: {shown})" if text else f"default: {shown}"


STATE_DIR_HELP = (
    "where local runs are kept (run memory and execution histories; default: "
    "$VISUAL_DEGREES_STATE_DIR, else $XDG_STATE_HOME/visual-degrees or ~/.local/state/visual-degrees)"
)


def add_state_dir(parser: argparse.ArgumentParser, *, subcommand: bool) -> None:
    """--state-dir, accepted before the subcommand and after it (a subcommand's copy only sets the
    value when given, so `visual-degrees --state-dir D run …` is not undone)."""
    parser.add_argument(
        "--state-dir",
        metavar="DIR",
        default=argparse.SUPPRESS if subcommand else None,
        help=STATE_DIR_HELP,
    )


def add_web_option(parser: argparse.ArgumentParser, *, default: str | None = DEFAULT_WEB) -> None:
    """--web: which kind of simulated photo web (sandbox/webs.py)."""
    shown = f" (default: {DEFAULT_WEB})" if default is None else ""
    parser.add_argument(
        "--web",
        choices=WEB_NAMES,
        default=default,
        help="the simulated photo web: realistic (results as real image search gives them: mostly "
        "portraits, one photo on many pages, captions naming some people or none) or clean (every "
        f"photo on one page, captioned by who is in it){shown}",
    )


def add_world_options(parser: argparse.ArgumentParser, *, continuing: bool = False) -> None:
    """--world/--seed/--faults/--web: which simulated photo web a command runs against (with
    `continuing`, --web not given is None: a continuation goes on on its run's own web)."""
    parser.add_argument(
        "--world",
        type=Path,
        metavar="PATH",
        help='world file: \'Title (Year)/Last, First/…\' lines or JSON lines {"title", "people"} '
        "(default: the bundled synthetic world)",
    )
    parser.add_argument("--seed", type=count, default=0, metavar="N", help="seed of the simulated photo web")
    parser.add_argument(
        "--faults",
        default="",
        metavar="SPEC",
        help='fault injection, e.g. "search_5xx=0.1,dead_link=0.05" (default: none; see docs/sandbox.md)',
    )
    add_web_option(parser, default=None if continuing else DEFAULT_WEB)


def add_run_options(parser: argparse.ArgumentParser, *, continuing: bool = False) -> None:
    """--strategy/--max-hops/--budget-*: the per-run options both `run` and `bench` take. With
    `continuing` (`run`, which may also continue a run), an option not given is None, so a
    continuation can tell what was asked (its budgets default to the run's own, not to these)."""

    def default(value: Any, *, budget: bool = False) -> dict[str, Any]:
        if not continuing:
            return {"default": value}
        shown = f"default: {_plain(value) if isinstance(value, int | float) else value}"
        if budget:
            shown += "; with --continue: the run's own budget again"
        return {"default": None, "_shown": shown}

    def add(*names: str, help: str, extra: dict[str, Any], **kw: Any) -> None:
        shown = extra.pop("_shown", None)
        parser.add_argument(*names, help=f"{help} ({shown})" if shown else help, **extra, **kw)

    add(
        "--strategy",
        choices=["default", "seed"],
        extra=default("default"),
        help="how to search: default (ours) or seed (the spec's baseline)",
    )
    add("--max-hops", type=whole, metavar="N", extra=default(6), help="longest chain accepted, 1 to 10 hops")
    budgets = (
        ("--budget-searches", whole, "N", 20, "paid image searches per run"),
        ("--budget-recognitions", whole, "N", 120, "paid face recognitions per run"),
        ("--budget-llm", whole, "N", 12, "planner (LLM) calls per run"),
        ("--budget-runtime", finite, "S", 120.0, "seconds a run may take (simulated seconds in the sandbox)"),
        (
            "--budget-shorten",
            finite,
            "SHARE",
            0.25,
            "once a chain is proven, what looking for a shorter one may spend, as a share of the run's "
            "spend so far (0: answer with the first chain)",
        ),
        (
            "--budget-shorten-min",
            finite,
            "USD",
            0.0,
            "the least looking for a shorter chain may spend, whatever the share comes to (an answer "
            "read from the evidence graph costs nothing; 0.002 buys two recognitions)",
        ),
    )
    for flag, kind, metavar, value, text in budgets:
        add(flag, type=kind, metavar=metavar, extra=default(value, budget=True), help=text)


@dataclass(frozen=True)
class RunFlag:
    """One command-line option of a run, the RunOptions field it sets, and where pydantic reports it."""

    flag: str
    model: type[BaseModel]
    field: str
    loc: tuple[str, ...]
    unit: str = ""


RUN_FLAGS = (
    RunFlag("--max-hops", RunOptions, "max_hops", ("maxHops",)),
    RunFlag("--images-per-search", RunOptions, "images_per_search", ("imagesPerSearch",)),
    RunFlag("--threshold", RunOptions, "threshold", ("threshold",)),
    RunFlag("--budget-searches", Budgets, "searches", ("budgets", "searches")),
    RunFlag("--budget-recognitions", Budgets, "recognitions", ("budgets", "recognitions")),
    RunFlag("--budget-llm", Budgets, "llm_calls", ("budgets", "llmCalls")),
    RunFlag("--budget-runtime", Budgets, "runtime_seconds", ("budgets", "runtimeSeconds"), " seconds"),
    RunFlag("--budget-shorten", Budgets, "shorten_share", ("budgets", "shortenShare")),
    RunFlag("--budget-shorten-min", Budgets, "shorten_min_usd", ("budgets", "shortenMinUsd"), " USD"),
)


def allowed_range(model: type[BaseModel], field: str) -> str:
    """The range a field allows, in words: `between 1 and 10`, `more than 0 and at most 3600`."""
    low = high = ""
    for bound in model.model_fields[field].metadata:
        if isinstance(bound, annotated_types.Ge):
            low = f"{_plain(bound.ge)}"
        elif isinstance(bound, annotated_types.Gt):
            low = f">{_plain(bound.gt)}"
        elif isinstance(bound, annotated_types.Le):
            high = _plain(bound.le)
    if low.startswith(">"):
        return f"more than {low[1:]}" + (f" and at most {high}" if high else "")
    if low and high:
        return f"between {low} and {high}"
    return f"at least {low}" if low else f"at most {high}"


def _plain(value: Any) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def parse_run_options(args: argparse.Namespace, **extra: Any) -> RunOptions:
    """The run options from the command line, validated by RunOptions, with each problem told in the
    command line's words: `--max-hops must be between 1 and 10`."""
    try:
        return RunOptions.model_validate(run_options(args, **extra))
    except ValidationError as exc:
        by_loc = {flag.loc: flag for flag in RUN_FLAGS}
        problems = []
        for error in exc.errors(include_url=False, include_input=False):
            flag = by_loc.get(tuple(str(part) for part in error["loc"]))
            if flag is None:
                problems.append(f"{'.'.join(str(part) for part in error['loc'])}: {error['msg']}")
            else:
                problems.append(f"{flag.flag} must be {allowed_range(flag.model, flag.field)}{flag.unit}")
        raise InvalidInput("; ".join(dict.fromkeys(problems))) from None


def start_options(args: argparse.Namespace, **extra: Any) -> RunOptions:
    """parse_run_options for a run to start: also refusing budgets too small for its first step
    (domain/models.START_MINIMUM), in the command line's words."""
    options = parse_run_options(args, **extra)
    flags = {flag.loc[-1]: flag.flag for flag in RUN_FLAGS if flag.loc[0] == "budgets"}
    require_startable(options.budgets, name=flags.__getitem__)
    return options


def run_options(args: argparse.Namespace, **extra: Any) -> dict[str, Any]:
    """The options of `add_run_options` as RunOptions fields (validated by domain/requests); an
    option not given (None) takes RunOptions' default."""
    options = {"maxHops": args.max_hops, "strategy": args.strategy, "budgets": budget_options(args), **extra}
    return {key: value for key, value in options.items() if value is not None}


def budget_options(args: argparse.Namespace) -> dict[str, Any]:
    """The --budget-* options given, as Budgets' wire names."""
    given = {
        "searches": args.budget_searches,
        "recognitions": args.budget_recognitions,
        "llmCalls": args.budget_llm,
        "runtimeSeconds": args.budget_runtime,
        "shortenShare": args.budget_shorten,
        "shortenMinUsd": args.budget_shorten_min,
    }
    return {key: value for key, value in given.items() if value is not None}


def again_command(person_a: str, person_b: str, record: dict[str, Any], **changes: Any) -> str:
    """The command that asks the same question again, on the same photo web with the same options
    (`record`: the run's execution record: providers, worldPath, seed, faults, options), but for
    `changes` (run options by wire name: `maxHops=7`)."""
    parts = ["visual-degrees", "run", shlex.quote(person_a), shlex.quote(person_b)]
    if record.get("providers") == "live":
        parts += ["--providers", "live"]
    else:
        if record.get("worldPath"):
            parts += ["--world", shlex.quote(str(record["worldPath"]))]
        if record.get("seed"):
            parts += ["--seed", str(record["seed"])]
        if record.get("faults"):
            parts += ["--faults", shlex.quote(str(record["faults"]))]
        if record.get("web") not in (None, DEFAULT_WEB):
            parts += ["--web", shlex.quote(str(record["web"]))]
    return " ".join(parts + _option_flags({**(record.get("options") or {}), **changes}))


def _option_flags(options: dict[str, Any]) -> list[str]:
    """The command-line flags of the run options that differ from the defaults."""
    flags: list[str] = []
    if options.get("strategy", "default") != "default":
        flags += ["--strategy", str(options["strategy"])]
    defaults = RunOptions().dump()
    for flag in RUN_FLAGS:
        given: Any = options
        default: Any = defaults
        for part in flag.loc:
            given = given.get(part) if isinstance(given, dict) else None
            default = default.get(part) if isinstance(default, dict) else None
        if given is not None and given != default:
            flags += [flag.flag, _plain(given)]
    if options.get("via"):
        flags += ["--via", shlex.quote(str(options["via"]))]
    return flags
