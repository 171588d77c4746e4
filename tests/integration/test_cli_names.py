"""What the CLI says about a name it cannot run: a real name in the made-up bundled world, a name in
another world file beside the one given, a name close to nobody's, and a mistyped command."""

from __future__ import annotations

from pathlib import Path

import pytest

from visual_degrees_tools.cli import main
from visual_degrees_tools.sandbox import EXAMPLE_PAIR


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(path))
    return path


@pytest.fixture
def worlds(tmp_path: Path) -> Path:
    """Three world files in one folder, as the benchmark worlds are."""
    folder = tmp_path / "worlds"
    folder.mkdir()
    (folder / "small.txt").write_text(
        "Footloose (1984)/Bacon, Kevin (I)/Lithgow, John\nA Gala (1999)/Treen, Mary/Lithgow, John\n"
    )
    (folder / "large.txt").write_text(
        "Rails (2002)/Streep, Meryl/Hathaway, Anne (I)\nApollo 13 (1995)/Bacon, Kevin (I)/Hanks, Tom\n"
        "The River Wild (1994)/Streep, Meryl/Bacon, Kevin (I)\n"
    )
    (folder / "other.txt").write_text("Doubt (2008)/Streep, Meryl/Adams, Amy\n")
    (folder / "notes.md").write_text("not a world\n")
    return folder


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exited:  # argparse's own refusals exit too
        raise SystemExit(main(list(argv)))
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_a_real_name_in_the_bundled_world_is_told_the_world_is_made_up_and_where_real_people_are(
    state_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # When a newcomer asks the bundled world for two real people
    err = refused(capsys, "run", "Kevin Bacon", "Julie Andrews")

    # Then they learn that nobody of that name is in it, that its people are made up (two of them
    # named), and how to ask about real people: a world file of real credits or the live web
    assert "'Kevin Bacon' is not anyone in this world (no name in it is close)" in err
    assert "The bundled world is synthetic" in err and "made up" in err
    assert f"such as {EXAMPLE_PAIR[0]} and {EXAMPLE_PAIR[1]}" in err
    assert "--world FILE" in err
    assert "--providers live" in err and "image search key" in err and "visual-degrees doctor" in err
    # And nothing was written
    assert not state_dir.exists()


def test_a_typo_in_the_bundled_world_gets_its_correction_alone(capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(capsys, "run", "Vesna Hawthorn", EXAMPLE_PAIR[1])
    assert f"did you mean {EXAMPLE_PAIR[0]}?" in err
    assert "synthetic" not in err


def test_a_name_in_another_world_file_beside_it_is_pointed_to_and_a_far_name_is_not_offered(
    state_dir: Path, worlds: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # When a name the world lacks (whose closest name, Mary Treen, is someone else) is asked for
    err = refused(capsys, "run", "Meryl Streep", "Kevin Bacon", "--world", str(worlds / "small.txt"))

    # Then nobody is put forward as the one meant, the files beside it that have the name are
    # named, and the one that has both people is given as an option to paste
    assert "'Meryl Streep' is not anyone in this world (no name in it is close)" in err
    assert "Mary Treen" not in err
    assert "'Meryl Streep' is in large.txt and other.txt, beside small.txt." in err
    assert f"Both are in large.txt: --world {worlds / 'large.txt'}" in err
    assert not state_dir.exists()
    # And each file's names were indexed once, in the cache directory
    assert len(list((cache_dir / "visual-degrees" / "names").glob("*.keys"))) == 2


def test_a_name_in_no_world_file_beside_it_says_so(worlds: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(capsys, "run", "Zed Qwerty", "Kevin Bacon", "--world", str(worlds / "small.txt"))
    assert "'Zed Qwerty' is not in large.txt or other.txt beside it either; try the live web" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["runn", "A", "B"], "error: 'runn' is not a command; did you mean run? (commands: run, "),
        (["trcae"], "error: 'trcae' is not a command; did you mean trace?"),
        (["xyzzy"], "error: 'xyzzy' is not a command (commands: run, "),
        (
            ["run", "A", "B", "--strategy", "defualt"],
            "'defualt' is not one of default, seed; did you mean default?",
        ),
    ],
)
def test_a_mistyped_command_or_choice_gets_the_one_meant(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert message in refused(capsys, *argv)
