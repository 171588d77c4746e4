"""The code's structure in figures, read from its imports (ast): per package its modules and lines,
the import arrows between packages, every import that points upward (against LAYERS) or closes a
cycle, and how deep each package's own imports go.

    python scripts/structure_figures.py            # this checkout
    python scripts/structure_figures.py --root DIR # another one (an exported tree, say)
    python scripts/structure_figures.py --json

A package is a directory of modules (`visual_degrees.search.strategies.captions`); a module at the
top of the runtime package (`ports.py`, `protocol.py`, `settings.py`) counts as a package of its own.
Every import counts, lazy ones inside functions and ones under TYPE_CHECKING too: each is an arrow
an engineer follows when reading the code.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOTS = {"visual_degrees": "lambdas", "visual_degrees_tools": "tools"}
# Floors, lowest first: a package may import its own floor and those below. The longest matching
# prefix decides a package's floor. Both the old names (services/, config.py) and the new ones are
# listed, so one table measures a tree before and after.
LAYERS: list[tuple[str, int]] = [
    ("visual_degrees.constants", 0),
    ("visual_degrees.domain", 0),
    ("visual_degrees.ports", 1),
    ("visual_degrees.protocol", 1),
    ("visual_degrees.settings", 1),
    ("visual_degrees.adapters", 2),
    ("visual_degrees.config", 3),  # before: the settings model and the secret adapter
    ("visual_degrees.services", 4),  # before: the run's life and the search in one folder
    ("visual_degrees.lifecycle", 4),
    ("visual_degrees.search", 5),  # the search core: observation, evidence, the graph, the port
    ("visual_degrees.search.strategies", 6),  # the strategies, each its own sub-package
    ("visual_degrees.steps", 7),
    ("visual_degrees.handlers", 8),
    ("visual_degrees_tools", 9),
]


def floor(package: str) -> int:
    if package == "visual_degrees":  # its __init__: nothing in it
        return 0
    best = max((p for p, _ in LAYERS if package == p or package.startswith(p + ".")), key=len, default=None)
    if best is None:
        raise SystemExit(f"no floor for package {package}: add it to LAYERS")
    return dict(LAYERS)[best]


def modules(root: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for top, folder in ROOTS.items():
        base = root / folder
        for path in sorted((base / top).rglob("*.py")):
            rel = path.relative_to(base).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def package_of(module: str, known: dict[str, Path]) -> str:
    path = known[module]
    name = module if path.name == "__init__.py" else module.rpartition(".")[0]
    if name in ROOTS:  # a module at the top of a root package is a unit of its own
        return module if path.name != "__init__.py" else name
    return name


def resolve(name: str, known: dict[str, Path]) -> str | None:
    """The known module an imported name is (or is inside of)."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def imports(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{alias.name}" for alias in node.names] or [base]
            names.append(base)
        else:
            continue
        for name in names:
            target = resolve(name, known)
            if target is not None and target != module:
                # `from pkg import mod` names the module; `from pkg.mod import f` names pkg.mod
                found.add(target)
    # `from a.b import c` adds both a.b (its __init__) and a.b.c: keep the deepest per chain
    return {t for t in found if not any(o != t and o.startswith(t + ".") for o in found)} or found


def strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[set[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = set()
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.add(w)
                    if w == node:
                        break
                out.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def depth(graph: dict[str, set[str]], nodes: set[str]) -> int:
    """Floors of the import chain inside `nodes` (the longest path, cycles condensed)."""
    sub = {n: {m for m in graph.get(n, ()) if m in nodes} for n in nodes}
    comps = strongly_connected(sub)
    comp_of = {n: i for i, c in enumerate(comps) for n in c}
    dag: dict[int, set[int]] = defaultdict(set)
    for n, targets in sub.items():
        for m in targets:
            if comp_of[n] != comp_of[m]:
                dag[comp_of[n]].add(comp_of[m])
    memo: dict[int, int] = {}

    def longest(c: int) -> int:
        if c not in memo:
            memo[c] = 1 + max((longest(d) for d in dag[c]), default=0)
        return memo[c]

    return max((longest(c) for c in range(len(comps))), default=0)


SCOPE_CLASS = "RunScope"
CORE = (
    "visual_degrees.services",
    "visual_degrees.lifecycle",
    "visual_degrees.search",
    "visual_degrees.steps",
)


def smells(known: dict[str, Path], graph: dict[str, set[str]]) -> dict[str, object]:
    """Issue 18's counts: modules that import the run's scope class, reads of a run's knobs
    (`….knobs.<name>`) and the modules they are in, and `dict[str, Any]` in the core's packages."""
    scope_importers = 0
    knob_reads = 0
    knob_modules = set()
    untyped = 0
    for m, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and any(a.name == SCOPE_CLASS for a in node.names):
                scope_importers += 1
                break
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and (
                (isinstance(node.value, ast.Attribute) and node.value.attr == "knobs")
                or (isinstance(node.value, ast.Name) and node.value.id == "knobs")
            ):
                knob_reads += 1
                knob_modules.add(m)
        if m.startswith(CORE):
            untyped += path.read_text(encoding="utf-8").count("dict[str, Any]")
    return {
        "modules_importing_run_scope": scope_importers,
        "knob_reads": knob_reads,
        "modules_reading_knobs": len(knob_modules),
        "dict_str_any_in_core": untyped,
    }


def figures(root: Path) -> dict[str, object]:
    known = modules(root)
    graph = {m: imports(m, p, known) for m, p in known.items()}
    pkg = {m: package_of(m, known) for m in known}
    lines: dict[str, int] = defaultdict(int)
    count: dict[str, int] = defaultdict(int)
    for m, p in known.items():
        lines[pkg[m]] += len(p.read_text(encoding="utf-8").splitlines())
        count[pkg[m]] += 1
    arrows: dict[tuple[str, str], int] = defaultdict(int)  # package -> package: module imports
    internal: dict[str, int] = defaultdict(int)
    upward: list[str] = []
    for m, targets in sorted(graph.items()):
        for t in sorted(targets):
            a, b = pkg[m], pkg[t]
            if a == b:
                internal[a] += 1
                continue
            arrows[a, b] += 1
            if floor(b) > floor(a):
                upward.append(f"{m} -> {t}")
    pkg_graph: dict[str, set[str]] = defaultdict(set)
    for a, b in arrows:
        pkg_graph[a].add(b)
    cycles = [sorted(c) for c in strongly_connected(dict(pkg_graph)) if len(c) > 1]
    closing = []
    for comp in cycles:
        members = set(comp)
        for m, targets in sorted(graph.items()):
            for t in sorted(targets):
                a, b = pkg[m], pkg[t]
                if a != b and a in members and b in members and floor(b) >= floor(a):
                    closing.append(f"{m} -> {t}")
    module_cycles = [sorted(c) for c in strongly_connected(graph) if len(c) > 1]
    packages = sorted(count, key=lambda p: (floor(p), p))
    by_pkg_modules: dict[str, set[str]] = defaultdict(set)
    for m, p in pkg.items():
        by_pkg_modules[p].add(m)
    runtime = [p for p in packages if p.split(".")[0] == "visual_degrees"]
    return {
        "packages": [
            {
                "package": p,
                "floor": floor(p),
                "modules": count[p],
                "lines": lines[p],
                "internal_arrows": internal[p],
                "depth": depth(graph, by_pkg_modules[p]),
            }
            for p in packages
        ],
        "runtime_modules": sum(count[p] for p in runtime),
        "runtime_lines": sum(lines[p] for p in runtime),
        "package_arrows": len(arrows),
        "module_arrows_between_packages": sum(arrows.values()),
        "arrows": [{"from": a, "to": b, "imports": n} for (a, b), n in sorted(arrows.items())],
        "upward_imports": upward,
        "package_cycles": cycles,
        "imports_closing_cycles": closing,
        "module_cycles": module_cycles,
        **smells(known, graph),
    }


def show(data: dict[str, object]) -> str:
    out = ["| package | floor | modules | lines | arrows inside | depth |", "|---|---|---|---|---|---|"]
    for p in data["packages"]:  # type: ignore[attr-defined]
        out.append(
            f"| {p['package']} | {p['floor']} | {p['modules']} | {p['lines']} | "
            f"{p['internal_arrows']} | {p['depth']} |"
        )
    out.append("")
    out.append(f"runtime package: {data['runtime_modules']} modules, {data['runtime_lines']} lines")
    out.append(
        f"arrows between packages: {data['package_arrows']} "
        f"({data['module_arrows_between_packages']} module imports)"
    )
    for key, title in (
        ("upward_imports", "imports pointing upward"),
        ("package_cycles", "package cycles"),
        ("imports_closing_cycles", "imports closing a package cycle"),
        ("module_cycles", "module cycles"),
    ):
        items = data[key]
        out.append(f"{title}: {len(items)}")  # type: ignore[arg-type]
        for item in items:  # type: ignore[attr-defined]
            out.append(f"  {item}")
    out.append(
        f"modules importing RunScope: {data['modules_importing_run_scope']}; knob reads: "
        f"{data['knob_reads']} in {data['modules_reading_knobs']} modules; dict[str, Any] in the run's "
        f"and the search's packages and the steps: {data['dict_str_any_in_core']}"
    )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    data = figures(args.root)
    print(json.dumps(data, indent=1) if args.json else show(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
