"""Which world files beside a world have a name (local/world_files.py): files of the same kind only,
each file's names indexed once and indexed again when the file changes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from visual_degrees_tools.local import world_files


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "worlds"
    folder.mkdir()
    (folder / "here.txt").write_text("Footloose (1984)/Bacon, Kevin (I)\n")
    (folder / "cast.txt").write_text("Doubt (2008)/Streep, Meryl/Adams, Amy\n")
    (folder / "events.jsonl").write_text('{"title": "Gala", "people": ["Meryl Streep"]}\n')
    (folder / "README.txt").write_text("Worlds: see each file\n")  # same suffix, no names in it
    return folder


def test_only_other_files_of_the_same_kind_are_looked_at(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    assert [p.name for p in world_files.beside(folder / "here.txt")] == ["README.txt", "cast.txt"]
    found = world_files.holders(["Meryl Streep", "Streep, Meryl", "Amy Adams"], folder / "here.txt", None)
    assert {name: [p.name for p in files] for name, files in found.items()} == {
        "Meryl Streep": ["cast.txt"],
        "Streep, Meryl": ["cast.txt"],  # the world's own spelling means the same person
        "Amy Adams": ["cast.txt"],
    }
    # JSON lines worlds are read too
    assert world_files.holders(["Meryl Streep"], folder / "other.jsonl", None)["Meryl Streep"] == [
        folder / "events.jsonl"
    ]


def test_a_files_names_are_indexed_once_and_again_when_it_changes(tmp_path: Path, monkeypatch) -> None:
    # Given a lookup that indexed the files beside the world
    folder, cache = _folder(tmp_path), tmp_path / "cache"
    here, cast = folder / "here.txt", folder / "cast.txt"
    assert world_files.holders(["Amy Adams"], here, cache)["Amy Adams"] == [cast]
    indexes = sorted((cache / world_files.INDEX_DIR).iterdir())
    assert len(indexes) == 2

    # When a lookup comes again, it reads the index, not the file
    read = world_files._read_keys
    with monkeypatch.context() as patch:
        patch.setattr(world_files, "_read_keys", lambda path: pytest.fail(f"{path} was read again"))
        assert world_files.holders(["Amy Adams"], here, cache)["Amy Adams"] == [cast]
    assert world_files._read_keys is read

    # When the file changes, its index is made again
    cast.write_text("Doubt (2008)/Streep, Meryl/Hoffman, Philip Seymour\n")
    os.utime(cast, ns=(1, 1))
    assert world_files.holders(["Amy Adams"], here, cache)["Amy Adams"] == []
    assert world_files.holders(["Philip Seymour Hoffman"], here, cache)["Philip Seymour Hoffman"] == [cast]


def test_no_more_than_max_files_are_read(tmp_path: Path, monkeypatch) -> None:
    folder = _folder(tmp_path)
    monkeypatch.setattr(world_files, "MAX_FILES", 1)
    assert [p.name for p in world_files.beside(folder / "here.txt")] == ["README.txt"]
    monkeypatch.setattr(world_files, "MAX_BYTES", 10)
    assert world_files.beside(folder / "here.txt") == []
