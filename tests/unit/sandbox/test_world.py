from __future__ import annotations

import json
from pathlib import Path

import pytest

from visual_degrees.domain.errors import WorldFileError
from visual_degrees_tools.sandbox.world import World, load_world, parse_world


def write(tmp_path: Path, text: str, name: str = "world.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def names_of(world: World, event: int) -> list[str]:
    return [world.name(p) for p in world.members[event]]


def test_cast_lines_become_events_with_display_names(tmp_path):
    # Given a cast file in the Title/Last, First format
    path = write(
        tmp_path,
        "Apollo 13 (1995)/Bacon, Kevin (I)/Hanks, Tom/Paxton, Bill\nBig (1988)/Hanks, Tom/Dakkar\n",
    )
    # When it is loaded
    world = load_world(path)
    # Then each line is an event and people read First Last, shared across events
    assert world.titles == ["Apollo 13 (1995)", "Big (1988)"]
    assert names_of(world, 0) == ["Kevin Bacon", "Tom Hanks", "Bill Paxton"]
    assert names_of(world, 1) == ["Tom Hanks", "Dakkar"]
    assert world.size == 4
    hanks = world.find("Tom Hanks")[0]
    assert world.fame[hanks] == 2
    assert world.person(hanks).raw == "Hanks, Tom"


def test_json_lines_become_events(tmp_path):
    # Given JSON lines naming people either way
    lines = [
        {"title": "Gala 2019", "people": ["Kevin Bacon", "Hanks, Tom"]},
        {"title": "Gala 2020", "people": ["Tom Hanks"], "extra": "ignored"},
    ]
    path = write(tmp_path, "\n".join(json.dumps(x) for x in lines) + "\n\n", "w.jsonl")
    # When loaded
    world = load_world(path)
    # Then both events exist; "Hanks, Tom" and "Tom Hanks" are two spellings, one name key
    assert world.titles == ["Gala 2019", "Gala 2020"]
    assert world.keys[world.members[0][1]] == world.keys[world.members[1][0]] == "tom hanks"
    assert len(world.find("tom hanks")) == 2


def test_duplicated_lines_and_repeated_performers_are_tolerated(tmp_path):
    # Given a duplicated line and a performer repeated within a line (as cast.06.txt has)
    line = "Humoresque (2006)/Murakami, Jun (I)/Bikke/Bikke/Hyuga, Joe/Hyuga, Joe"
    path = write(tmp_path, f"{line}\n{line}\nOther (2001)/Bikke\n")
    # When loaded
    world = load_world(path)
    # Then the event appears once and each performer once in it
    assert world.titles == ["Humoresque (2006)", "Other (2001)"]
    assert names_of(world, 0) == ["Jun Murakami", "Bikke", "Joe Hyuga"]
    assert world.fame[world.find("Bikke")[0]] == 2


def test_whitespace_utf8_bom_and_crlf_are_tidied(tmp_path):
    # Given a BOM, CRLF line ends and stray spaces around a name
    path = tmp_path / "w.txt"
    path.write_bytes(
        "\ufeffFilm (2000)/Contreras, Israel /Dávila,  Luis\r\nB (2001)/Contreras, Israel\r\n".encode()
    )
    # When loaded
    world = load_world(path)
    # Then the spaced spelling is the same person and accents survive in display names
    assert world.size == 2
    assert names_of(world, 0) == ["Israel Contreras", "Luis Dávila"]
    assert world.keys[1] == "luis davila"


def test_namesakes_are_distinct_people_with_one_display_name(tmp_path):
    # Given two performers differing only by their IMDb numeral
    path = write(
        tmp_path, "A (2000)/Jones, Tom (I)/X, Y\nB (2001)/Jones, Tom (II)\nC (2002)/Jones, Tom (II)\n"
    )
    # When loaded
    world = load_world(path)
    first, second = world.by_raw["Jones, Tom (I)"], world.by_raw["Jones, Tom (II)"]
    # Then they share name and key but not identity
    assert world.name(first) == world.name(second) == "Tom Jones"
    assert world.celebrity_id(first) != world.celebrity_id(second)
    assert world.celebrity_id(first).startswith("vd-")
    # And the display name means both, most appearances first; the world spelling means one
    assert world.find("Tom Jones") == [second, first]
    assert world.find("Jones, Tom (I)") == [first]


def test_celebrity_ids_depend_only_on_the_person(tmp_path):
    # Given the same person in two different worlds
    one = load_world(write(tmp_path, "A (2000)/Hanks, Tom\n", "a.txt"))
    two = load_world(write(tmp_path, "B (2001)/Bacon, Kevin/Hanks, Tom\n", "b.txt"))
    # Then their celebrity id is the same, and looking it up finds them
    tom = one.celebrity_id(0)
    assert tom == two.celebrity_id(two.by_raw["Hanks, Tom"])
    assert two.by_celebrity_id(tom) == two.by_raw["Hanks, Tom"]
    assert two.by_celebrity_id("vd-unknown") is None


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("", "no events"),
        ("\n  \n", "no events"),
        ("Just a title\n", "line 1: expected 'Title (Year)/"),
        ("A (2000)/X, Y\nname,age\n", "line 2: expected"),
        ("A (2000)/X, Y//Z, W\n", "line 1: field 3 is an empty name"),
        ("/X, Y\n", "line 1: the title is empty"),
        ("A (2000)/X, Y\nB (2001)/X\x07Y\n", "line 2: control character U+0007"),
        ("A (2000)/X\u202eY\n", "line 1: control character U+202E"),
        (f"A (2000)/{'x' * 201}\n", "line 1: field 2 is 201 characters long"),
        ("A (2000)/X, Y\nB (2001)/!!!\n", "line 2: '!!!' has no letters or digits"),
        ('{"title": "A", "people": ["X"]}\n{"title": "B", "people": ["Y"\n', "line 2: malformed JSON"),
        ('{"title": "A", "people": ["X"]}\n[1, 2]\n', "line 2: expected an object"),
        ('{"title": "A", "people": ' + "[" * 100_000 + "\n", "line 1: malformed JSON (nested too deep)"),
        ('{"title": "A", "people": []}\n', "line 1: people: Value error, must name at least one person"),
        ('{"title": "A", "people": "X"}\n', "line 1: people"),
        ('{"title": 7, "people": ["X"]}\n', "line 1: title"),
        ('{"people": ["X"]}\n', "line 1: title: Field required"),
        ('{"title": "A", "people": [""]}\n', "line 1: field 2 is an empty name"),
    ],
)
def test_bad_world_files_name_the_file_and_line(tmp_path, content, problem):
    # Given a world file with one problem
    path = write(tmp_path, content)
    # When it is loaded, then a WorldFileError names the file and what is wrong
    with pytest.raises(WorldFileError) as caught:
        load_world(path)
    assert str(path) in caught.value.message
    assert problem in caught.value.message
    assert caught.value.code == "invalid_world"


def test_missing_unreadable_and_non_utf8_files_are_world_errors(tmp_path):
    # Given a missing file, a directory and Latin-1 bytes on line 2
    latin = tmp_path / "latin.txt"
    latin.write_bytes("A (2000)/X, Y\nB (2001)/Dávila, Luis\n".encode("latin-1"))
    # Then each is a WorldFileError saying what is wrong
    with pytest.raises(WorldFileError, match="no such file"):
        load_world(tmp_path / "missing.txt")
    with pytest.raises(WorldFileError, match="is a directory"):
        load_world(tmp_path)
    with pytest.raises(WorldFileError, match=r"line 2: not UTF-8"):
        load_world(latin)


def test_components_and_coappearance_distance():
    # Given a chain A-B-C plus an isolated pair
    world = parse_world("E1/A/B\nE2/B/C\nE3/D/E\n")
    a, c, d = world.by_raw["A"], world.by_raw["C"], world.by_raw["D"]
    # Then the largest group is the chain and distances count shared events
    assert [world.raws[p] for p in world.largest_component()] == ["A", "B", "C"]
    assert world.coappearance_distance(a, c) == 2
    assert world.coappearance_distance(a, c, limit=1) is None
    assert world.coappearance_distance(a, d) is None
    assert world.coappearance_distance(a, a) == 0


def test_from_events_applies_the_same_rules():
    # Given events built in memory, one repeating a person
    world = World.from_events([("T1", ["Bacon, Kevin", "Bacon, Kevin", "Hanks, Tom"])])
    # Then the person counts once
    assert [world.name(p) for p in world.members[0]] == ["Kevin Bacon", "Tom Hanks"]
