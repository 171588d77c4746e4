"""Which world files beside a world have a name: for a name nobody in the world has, the CLI can say
which of the files next to it (the benchmark worlds cast.G.txt, cast.06.txt and movies.txt share a
folder) has that person.

Only files of the same kind are looked at (same suffix, at most MAX_FILES of them, each at most
MAX_BYTES), and only by the key every world uses (domain/names.name_key), never by loading them as
worlds: that takes seconds for 100k people. Each file's keys are read once into an index kept in a
cache directory (`names/<digest>.keys`, one key a line), made again when the file changes (its size
or modification time); a lookup then searches that text (figures in README.md). Without a writable
cache directory the keys are read from the file each time.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path

from visual_degrees.domain.names import name_key

MAX_FILES = 8
MAX_BYTES = 64 * 1024 * 1024
INDEX_DIR = "names"


def beside(world: Path) -> list[Path]:
    """The other world files in `world`'s folder, by name (as `world` spells the folder)."""
    try:
        here = world.resolve()
        found = sorted(
            entry
            for entry in world.parent.iterdir()
            if entry.suffix == world.suffix and entry.resolve() != here and _small_file(entry)
        )
    except OSError:
        return []
    return found[:MAX_FILES]


def holders(names: Iterable[str], world: Path, cache_dir: Path | None) -> dict[str, list[Path]]:
    """For each name, the world files beside `world` that have someone of that name."""
    wanted = {name: name_key(name) for name in names}
    found: dict[str, list[Path]] = {name: [] for name in wanted}
    for other in beside(world):
        keys = name_keys(other, cache_dir)
        for name, key in wanted.items():
            if f"\n{key}\n" in keys:
                found[name].append(other)
    return found


def name_keys(path: Path, cache_dir: Path | None) -> str:
    """Everyone's name key in the world file at `path`, one a line between newlines, from its index
    if that is up to date (searching the text is faster than building a set of 100k keys)."""
    index = _index_path(path, cache_dir) if cache_dir is not None else None
    if index is not None:
        try:
            return index.read_text(encoding="utf-8")
        except OSError:
            pass  # not made yet (or unreadable): read the file
    keys = "\n" + "".join(f"{key}\n" for key in sorted(_read_keys(path)))
    if index is not None:
        _save(index, keys)
    return keys


def _small_file(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size <= MAX_BYTES
    except OSError:
        return False


def _index_path(path: Path, cache_dir: Path) -> Path | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    identity = f"{path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}"
    return cache_dir / INDEX_DIR / f"{hashlib.blake2b(identity.encode(), digest_size=12).hexdigest()}.keys"


def _save(index: Path, keys: str) -> None:
    try:
        index.parent.mkdir(parents=True, exist_ok=True)
        partial = index.with_suffix(f".{os.getpid()}.partial")
        partial.write_text(keys, encoding="utf-8")
        partial.replace(index)  # whole or absent: a reader never sees half an index
    except OSError:
        pass  # a read-only state directory: the keys are read from the file next time too


def _read_keys(path: Path) -> set[str]:
    """The name keys of a world file in either format (sandbox/world.py); lines that are not a
    world's are skipped, since this only helps a user find a name."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    lines = text.splitlines()
    first = next((line.lstrip() for line in lines if line.strip()), "")
    raws: set[str] = set()
    for line in lines:
        if first.startswith("{"):
            raws.update(_json_people(line))
        else:
            raws.update(line.split("/")[1:])
    return {key for key in map(name_key, raws) if key}


def _json_people(line: str) -> list[str]:
    try:
        people = json.loads(line).get("people")
    except (ValueError, AttributeError):
        return []
    return [p for p in people if isinstance(p, str)] if isinstance(people, list) else []
