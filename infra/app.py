"""The CDK app: `cdk synth` runs `python3 -m infra` (infra/__main__.py, which finds .venv) from the
repository root (see cdk.json).

Run as a module so that `infra.constructs` never shadows the `constructs` library on sys.path.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

from aws_cdk import App, Environment

from infra.nag import add_checks
from infra.settings import DeploymentSettings
from infra.stack import VisualDegreesStack
from visual_degrees.domain.errors import ConfigurationError


def build_app(
    context: Mapping[str, Any] | None = None,
    outdir: str | None = None,
    *,
    account: str | None = None,
    region: str | None = None,
) -> tuple[App, VisualDegreesStack]:
    """The app with its one stack and the cdk-nag checks; nothing is synthesized yet.

    The `region` context wins over `region`; with neither account nor region the template is
    environment-agnostic (the deploying profile decides).
    """
    app = App(context=dict(context or {}), outdir=outdir)
    settings = DeploymentSettings.from_node(app.node)
    region = settings.region or region
    environment = Environment(account=account, region=region) if account or region else None
    stack = VisualDegreesStack(app, settings.stack_name, settings=settings, env=environment)
    add_checks(app)
    return app, stack


def main() -> None:
    # The CLI exports the active profile's account and region; offline both may be absent.
    try:
        app, _ = build_app(
            account=os.environ.get("CDK_DEFAULT_ACCOUNT"), region=os.environ.get("CDK_DEFAULT_REGION")
        )
    except ConfigurationError as exc:  # a setting the operator can fix: the message, not a traceback
        sys.exit(str(exc))
    app.synth()


if __name__ == "__main__":
    main()
