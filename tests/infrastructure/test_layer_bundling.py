"""The dependency layer's local bundling: the pip command, pruning, limits; pip itself is faked."""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path

import pytest

from infra.layer_bundling import (
    MAX_LAYER_BYTES,
    REQUIREMENTS,
    PipLayerBundling,
    _run_pip,
    layer_fingerprint,
    pip_command,
)
from tests.support.cdk_template import REPO_ROOT

REQUIREMENT = re.compile(r"^([A-Za-z0-9_.-]+)(\[[^\]]*\])?==([^\s;]+)")


def _pins(path: Path = REQUIREMENTS) -> dict[str, str]:
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if match := REQUIREMENT.match(line.strip()):
            pins[match.group(1).lower()] = match.group(3)
    return pins


def _normalise(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower()


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
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = [
        *project["dependencies"],
        *project["optional-dependencies"]["aws"],
        *project["optional-dependencies"]["live"],
    ]
    # The Lambda runtime ships boto3; websockets serves only `visual-degrees serve` on a workstation.
    wanted = {_normalise(r) for r in runtime} - {"boto3", "websockets"}

    # Then the layer pins exactly those, at the versions the tests run against
    pins = _pins()
    assert set(pins) == wanted
    assert {name: version(name) for name in pins} == pins


def test_the_fingerprint_follows_the_requirements(tmp_path: Path) -> None:
    changed = tmp_path / "requirements.txt"
    changed.write_text(REQUIREMENTS.read_text(encoding="utf-8") + "six==1.17.0\n", encoding="utf-8")
    assert layer_fingerprint(changed) != layer_fingerprint()
    assert layer_fingerprint() == layer_fingerprint()
