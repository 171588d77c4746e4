from __future__ import annotations

import json

import pytest

from visual_degrees.domain.errors import InvalidInput, UnknownPerson
from visual_degrees_tools.bench.pairs import famous_pairs, load_pairs, pair_of, resolve, sample_pairs


def test_world_spelling_means_exactly_that_person(web):
    # Given two namesakes, When one is named as the world file writes it
    person = resolve(web, "Bacon, Kevin (I)")
    # Then it is that one person, and the run will be asked about their display name
    assert person.ids == {web.world.celebrity_id(web.world.by_raw["Bacon, Kevin (I)"])}
    assert person.name == "Kevin Bacon"


def test_display_name_means_every_namesake(web):
    person = resolve(web, "Kevin Bacon")
    assert len(person.ids) == 2
    assert set(person.indices) == {
        web.world.by_raw["Bacon, Kevin (I)"],
        web.world.by_raw["Bacon, Kevin (II)"],
    }


def test_unknown_names_and_indistinguishable_pairs_are_refused(web):
    with pytest.raises(UnknownPerson):
        resolve(web, "Nobody Here")
    with pytest.raises(
        UnknownPerson, match=r"'Kevin Bacn' is not anyone in this world \(did you mean Kevin Bacon\?\)"
    ):
        resolve(web, "Kevin Bacn")
    # two namesakes share a display name: a run could not be asked about one and not the other
    with pytest.raises(InvalidInput, match="share one display name"):
        pair_of(web, "Bacon, Kevin (I)", "Bacon, Kevin (II)")


def test_pairs_file_accepts_both_spellings(web, tmp_path):
    path = tmp_path / "pairs.jsonl"
    lines = [{"a": "Bacon, Kevin (I)", "b": "Meg Ryan"}, {"a": "Tom Hanks", "b": "Cruise, Tom"}]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n", encoding="utf-8")
    pairs = load_pairs(path, web)
    assert [(p.a.name, p.b.name) for p in pairs] == [("Kevin Bacon", "Meg Ryan"), ("Tom Hanks", "Tom Cruise")]
    assert len(pairs[0].a.ids) == 1


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"a": "Tom Hanks", "b": "Meg Ryan"}\n{"a": "Tom Hanks"\n', "line 2: malformed JSON"),
        ('{"a": "Tom Hanks"}\n', 'line 1: expected {"a": "name", "b": "name"}'),
        ('["Tom Hanks", "Meg Ryan"]\n', "line 1: expected"),
        ('{"a": "Tom Hanks", "b": "Nobody Here"}\n', "line 1: 'Nobody Here' is not anyone"),
        ("\n\n", "no pairs"),
    ],
)
def test_a_bad_pairs_file_is_refused_naming_the_line(web, tmp_path, content, problem):
    path = tmp_path / "pairs.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InvalidInput) as caught:
        load_pairs(path, web)
    assert problem in caught.value.message


def test_a_missing_pairs_file_is_refused(web, tmp_path):
    with pytest.raises(InvalidInput, match="no such file"):
        load_pairs(tmp_path / "absent.jsonl", web)


def test_samples_come_from_the_largest_group_distinct_and_repeatable(web):
    group = set(web.world.largest_component())
    pairs = sample_pairs(web, 8, seed=5)
    drawn = {(p.a.indices, p.b.indices) for p in pairs}
    # Then every person is in the largest group (never Ivy, alone at her own event) ...
    assert all(p.a.indices[0] in group and p.b.indices[0] in group for p in pairs)
    assert web.world.by_raw["Island, Ivy"] not in group
    # ... no pair repeats (either way round) and no pair is two namesakes
    assert len(drawn) == 8 and not any((b, a) in drawn for a, b in drawn)
    assert all(p.a.name != p.b.name for p in pairs)
    # ... each person is one exact celebrity id, and the same seed draws the same pairs
    assert all(len(p.a.ids) == len(p.b.ids) == 1 for p in pairs)
    assert [(p.a.given, p.b.given) for p in sample_pairs(web, 8, seed=5)] == [
        (p.a.given, p.b.given) for p in pairs
    ]


def test_sampling_more_pairs_than_exist_is_refused(web):
    # six people in the largest group, two of them namesakes: 15 - 1 pairs a run can tell apart
    assert len(sample_pairs(web, 14, seed=0)) == 14
    with pytest.raises(InvalidInput, match="only 14 pairs"):
        sample_pairs(web, 15, seed=0)
    with pytest.raises(InvalidInput):
        sample_pairs(web, 0, seed=0)


def test_famous_pairs_are_drawn_among_the_most_credited_each_name_once(web):
    # Given a world where Meg Ryan and Tom Cruise have two credits each and everyone else one
    pairs = famous_pairs(web, 2, seed=0)
    # Then two pairs of four distinct names, the two most credited among them
    names = [name for pair in pairs for name in pair]
    assert len(names) == len(set(names)) == 4
    assert {"Meg Ryan", "Tom Cruise"} <= set(names)
    assert famous_pairs(web, 2, seed=0) == pairs  # the seed decides


def test_famous_pairs_say_when_the_world_is_too_small(web):
    with pytest.raises(InvalidInput, match="fewer than"):
        famous_pairs(web, 10, seed=0)
