"""The dependency layer, built without Docker: pip downloads Linux/arm64 CPython 3.13 wheels.

What goes in: the packages infra/layer/requirements.txt names (the Lambdas' runtime dependencies), at
the versions of requirements.lock, the one lock the local install and the tests use as well: pip gets
the lock as constraints, so the layer cannot drift from what the tests ran against.

`pip install --platform … --only-binary=:all: --target` never compiles anything and never runs the
packages it installs, so a laptop of any OS builds the same layer a Lambda on Graviton can import.
When bundling is skipped (tests, `-c aws:cdk:bundling-stacks=[]`), CDK stages the source folder,
which holds only the requirements file: a stub asset, no network needed.

`bundleLayer=false` stages that stub for an offline synth. A deploy of it would leave every function
unable to import its packages, and the CDK CLI runs the app the same way for synth and deploy, so
the template itself refuses: a CloudFormation rule whose assertion no parameter value can satisfy
fails every create and update, with the message of STUB_LAYER_REFUSAL, before any resource changes.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import jsii
from aws_cdk import (
    Annotations,
    AssetHashType,
    BundlingOptions,
    CfnParameter,
    CfnRule,
    CfnRuleAssertion,
    DockerImage,
    Fn,
    ILocalBundling,
    RemovalPolicy,
    Stack,
)
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

LAYER_SOURCE = Path(__file__).resolve().parent / "layer"
REQUIREMENTS = LAYER_SOURCE / "requirements.txt"
LOCK = LAYER_SOURCE.parents[1] / "requirements.lock"
PYTHON_VERSION = "3.13"
# Lambda's python3.13 runtime is Amazon Linux 2023 (glibc 2.34): manylinux_2_28 wheels run there, and
# some packages (pillow 12+) publish no manylinux2014 aarch64 wheel any more.
PLATFORMS = ("manylinux2014_aarch64", "manylinux_2_28_aarch64")
# Pulled in transitively (aws-xray-sdk -> botocore) but shipped by the runtime; a second copy in
# /opt/python would shadow the runtime's and could mismatch its boto3.
PROVIDED_BY_RUNTIME = ("boto3", "botocore", "s3transfer")
# Lambda's limit is 250 MB unzipped for function code plus all layers; leave room for the code.
MAX_LAYER_BYTES = 200 * 1024 * 1024

Runner = Callable[[Sequence[str]], None]

STUB_LAYER_PARAMETER = "DependencyLayer"
STUB_LAYER_REFUSAL = (
    "This template was synthesized with -c bundleLayer=false: its dependency layer is a stub without "
    "packages, and every function would fail to import. Deploy with the layer built: cdk deploy "
    "(without -c bundleLayer=false)."
)


def pip_command(
    requirements: Path, target: Path, python: str = sys.executable, lock: Path = LOCK
) -> list[str]:
    command = [python, "-m", "pip", "install", "--requirement", str(requirements)]
    command += ["--constraint", str(lock), "--target", str(target)]
    for platform in PLATFORMS:
        command += ["--platform", platform]
    return [
        *command,
        "--implementation",
        "cp",
        "--python-version",
        PYTHON_VERSION,
        "--only-binary=:all:",
        "--no-compile",  # the .pyc would be for the build machine's interpreter, not 3.13
        "--disable-pip-version-check",
        "--quiet",
    ]


def prune(site: Path) -> None:
    """Drop bytecode caches and what the runtime already provides."""
    for cache in list(site.rglob("__pycache__")):
        shutil.rmtree(cache, ignore_errors=True)
    for package in PROVIDED_BY_RUNTIME:
        shutil.rmtree(site / package, ignore_errors=True)
        for info in site.glob(f"{package}-*.dist-info"):
            shutil.rmtree(info, ignore_errors=True)


def layer_fingerprint(requirements: Path = REQUIREMENTS, lock: Path = LOCK) -> str:
    """What the built layer depends on: its packages, the lock's pins, how they are installed and pruned.

    Not the source-folder hash: the stub (bundleLayer=false) stages the very same folder, and a shared
    hash would let a deploy re-use a stub already uploaded under it.
    """
    recipe = {
        "requirements": requirements.read_text(encoding="utf-8"),
        "lock": lock.read_text(encoding="utf-8"),
        "command": pip_command(
            Path("requirements.txt"), Path("python"), python="python", lock=Path("requirements.lock")
        ),
        "provided_by_runtime": PROVIDED_BY_RUNTIME,
    }
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()


def tree_size(root: Path) -> int:
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file() and not path.is_symlink())


def _run_pip(command: Sequence[str]) -> None:
    completed = subprocess.run(command, check=False)
    if completed.returncode != 0:
        raise RuntimeError(
            f"pip could not build the dependency layer (exit {completed.returncode}); see above"
        )


@jsii.implements(ILocalBundling)
class PipLayerBundling:
    """CDK local bundling: always succeeds locally or fails loudly; it never falls back to Docker."""

    def __init__(
        self, requirements: Path = REQUIREMENTS, run: Runner | None = None, lock: Path = LOCK
    ) -> None:
        self._requirements = requirements
        self._lock = lock
        self._run = run or _run_pip

    def try_bundle(self, output_dir: str, *, image: DockerImage, **_options: Any) -> bool:
        site = Path(output_dir) / "python"  # a layer's /opt/python is on the runtime's sys.path
        self._run(pip_command(self._requirements, site, lock=self._lock))
        prune(site)
        size = tree_size(site)
        if size > MAX_LAYER_BYTES:
            raise RuntimeError(
                f"dependency layer is {size / 2**20:.0f} MiB unzipped, over the 200 MiB budget"
            )
        print(f"dependency layer: {size / 2**20:.1f} MiB unzipped", file=sys.stderr)
        return True


def dependency_layer(
    scope: Construct, construct_id: str, *, removal: RemovalPolicy, bundle: bool = True
) -> lambda_.LayerVersion:
    if bundle:
        code = lambda_.Code.from_asset(
            str(LAYER_SOURCE),
            # Known before bundling: an unchanged recipe re-uses cdk.out's staged layer without pip.
            asset_hash_type=AssetHashType.CUSTOM,
            asset_hash=layer_fingerprint(),
            bundling=BundlingOptions(
                image=lambda_.Runtime.PYTHON_3_13.bundling_image,  # required by the API; never pulled
                local=PipLayerBundling(),
            ),
        )
    else:
        code = lambda_.Code.from_asset(str(LAYER_SOURCE))
    layer = lambda_.LayerVersion(
        scope,
        construct_id,
        code=code,
        compatible_runtimes=[lambda_.Runtime.PYTHON_3_13],
        compatible_architectures=[lambda_.Architecture.ARM_64],
        description="visual-degrees third-party dependencies (CPython 3.13, manylinux aarch64)",
        removal_policy=removal,
    )
    if not bundle:
        Annotations.of(layer).add_warning_v2(
            "visual-degrees:stub-layer",
            "bundleLayer=false: the dependency layer is a stub (no packages). Synth only: CloudFormation "
            "refuses to deploy this template.",
        )
        refuse_deployment(Stack.of(scope))
    return layer


def refuse_deployment(stack: Stack) -> None:
    """A rule CloudFormation checks before it creates or updates anything: its one parameter may only
    be "stub", and the assertion asks for anything else, so it fails with STUB_LAYER_REFUSAL."""
    layer = CfnParameter(
        stack,
        STUB_LAYER_PARAMETER,
        type="String",
        default="stub",
        allowed_values=["stub"],
        description="The dependency layer of this template is a stub (bundleLayer=false): not deployable.",
    )
    CfnRule(
        stack,
        "RefuseStubDependencyLayer",
        assertions=[
            CfnRuleAssertion(
                assert_=Fn.condition_not(Fn.condition_equals(layer.value_as_string, "stub")),
                assert_description=STUB_LAYER_REFUSAL,
            )
        ],
    )
