"""The dependency layer's local bundling: the pip command, pruning, limits; pip itself is faked. And the
one lock: the layer's versions and the local install's come from requirements.lock."""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from infra.layer_bundling import (
    LOCK,
    MAX_LAYER_BYTES,
    REQUIREMENTS,
    PipLayerBundling,
    _run_pip,
    layer_fingerprint,
    pip_command,
)
from tests.support.cdk_template import REPO_ROOT

# Used by `visual-degrees serve` and the sandbox on a workstation, never by a Lambda.
LOCAL_ONLY = {"websockets", "rapidfuzz"}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirements(path: Path) -> list[Requirement]:
    lines = (line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [Requirement(line) for line in lines if line]


def _lock() -> dict[str, str]:
    pins = {}
    for requirement in _requirements(LOCK):
        (spec,) = requirement.specifier
        assert spec.operator == "==", f"{requirement} is not a pin"
        pins[_canonical(requirement.name)] = spec.version
    return pins


def _project() -> dict[str, list[str]]:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {"": project["dependencies"], **project["optional-dependencies"]}


class FakePip:
    """Records the command and lays out what pip would: packages, runtime copies, bytecode caches."""

    def __init__(self, extra_bytes: int = 0) -> None:
        self.commands: list[list[str]] = []
        self.extra_bytes = extra_bytes

    def __call__(self, command: Sequence[str]) -> None:
        self.commands.append(list(command))
        site = Path(command[command.index("--target") + 1])
        for package in ("pydantic", "botocore", "boto3"):
            (site / package / "__pycache__").mkdir(parents=True)
            (site / package / "__init__.py").write_text("", encoding="utf-8")
            (site / package / "__pycache__" / "x.cpython-313.pyc").write_bytes(b"0" * 10)
        (site / "botocore-1.0.dist-info").mkdir()
        (site / "pydantic-2.0.dist-info").mkdir()
        if self.extra_bytes:
            with (site / "pydantic" / "big.so").open("wb") as handle:
                handle.truncate(self.extra_bytes)  # sparse: large on paper, nothing written


def test_pip_installs_linux_arm64_cpython313_wheels_only() -> None:
    command = pip_command(Path("req.txt"), Path("out/python"), python="py")
    text = " ".join(command)
    assert command[:4] == ["py", "-m", "pip", "install"]
    assert "--platform manylinux2014_aarch64" in text
    assert "--implementation cp" in text and "--python-version 3.13" in text
    assert "--only-binary=:all:" in command
    assert "--target out/python" in text and "--requirement req.txt" in text
    assert f"--constraint {LOCK}" in text  # the versions come from the one lock


def test_bundling_installs_into_python_and_prunes_caches_and_runtime_packages(tmp_path: Path) -> None:
    # Given a bundler whose pip is faked
    pip = FakePip()
    bundler = PipLayerBundling(run=pip)

    # When CDK asks it to bundle into an output folder
    bundled = bundler.try_bundle(str(tmp_path), image=None)  # type: ignore[arg-type]

    # Then it ran pip once into <output>/python, kept the packages, dropped what the runtime provides
    site = tmp_path / "python"
    assert bundled is True
    assert len(pip.commands) == 1 and pip.commands[0][pip.commands[0].index("--target") + 1] == str(site)
    assert (site / "pydantic" / "__init__.py").is_file() and (site / "pydantic-2.0.dist-info").is_dir()
    assert not (site / "botocore").exists() and not (site / "boto3").exists()
    assert not list(site.glob("botocore-*.dist-info"))
    assert not list(site.rglob("__pycache__"))


def test_a_layer_over_budget_fails_the_synth(tmp_path: Path) -> None:
    bundler = PipLayerBundling(run=FakePip(extra_bytes=MAX_LAYER_BYTES + 1))
    with pytest.raises(RuntimeError, match="over the 200 MiB budget"):
        bundler.try_bundle(str(tmp_path), image=None)  # type: ignore[arg-type]


def test_a_failing_pip_fails_loudly_with_its_exit_code() -> None:
    with pytest.raises(RuntimeError, match="exit 3"):
        _run_pip([sys.executable, "-c", "raise SystemExit(3)"])


def test_the_layer_holds_the_runtime_dependencies_of_pyproject_but_boto3() -> None:
    # Given pyproject's base dependencies and the aws/live extras (what the Lambdas import)
    extras = _project()
    runtime = [*extras[""], *extras["aws"], *extras["live"]]
    # The Lambda runtime ships boto3; websockets and rapidfuzz serve the workstation only.
    wanted = {_canonical(Requirement(r).name) for r in runtime} - {"boto3"} - LOCAL_ONLY

    # Then the layer names exactly those, and pins none itself: the lock does
    layer = _requirements(REQUIREMENTS)
    assert {_canonical(r.name) for r in layer} == wanted
    assert all(not r.specifier for r in layer)


def test_the_layer_and_the_local_install_take_their_versions_from_the_one_lock() -> None:
    # Given the lock, and every requirement pyproject states (all extras)
    pins = _lock()
    stated = [Requirement(r) for group in _project().values() for r in group]

    # Then the lock pins each of them at a version pyproject allows (a changed pyproject needs a relock)
    for requirement in stated:
        name = _canonical(requirement.name)
        if name == "visual-degrees":  # dev's self-reference to its extras
            continue
        assert name in pins, f"{name} is not in requirements.lock (run scripts/lock.py)"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"requirements.lock pins {name}=={pins[name]}, outside pyproject's {requirement}"
        )
    # and every package the layer installs (its own and what they pull in) is pinned there
    for requirement in _requirements(REQUIREMENTS):
        assert _canonical(requirement.name) in pins
    # and the tests run against those very versions (scripts/test.sh installs with -c requirements.lock)
    layer = {_canonical(r.name) for r in _requirements(REQUIREMENTS)}
    assert {name: version(name) for name in layer} == {name: pins[name] for name in layer}


def test_the_lock_has_no_unused_test_tool() -> None:
    assert "respx" not in _lock()  # nothing imports it


def test_websockets_has_an_upper_bound() -> None:
    (websockets,) = [Requirement(r) for r in _project()[""] if r.startswith("websockets")]
    assert any(spec.operator == "<" for spec in websockets.specifier)


def test_the_fingerprint_follows_the_requirements_and_the_lock(tmp_path: Path) -> None:
    changed = tmp_path / "requirements.txt"
    changed.write_text(REQUIREMENTS.read_text(encoding="utf-8") + "six\n", encoding="utf-8")
    relocked = tmp_path / "requirements.lock"
    relocked.write_text(
        LOCK.read_text(encoding="utf-8").replace("pydantic==", "pydantic==0"), encoding="utf-8"
    )
    assert layer_fingerprint(changed) != layer_fingerprint()
    assert layer_fingerprint(lock=relocked) != layer_fingerprint()
    assert layer_fingerprint() == layer_fingerprint()
