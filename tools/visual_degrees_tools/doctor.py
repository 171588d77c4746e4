"""`visual-degrees doctor`: is the sandbox ready, which live providers are configured, and do they answer?

The sandbox (the default for `run`, `serve` and `bench`) needs no key: the doctor checks that its
world loads and that runs can be kept. Live mode is optional: a provider nobody configured is "not set
up" (what it would need is said once, at the end), never a failure; only what is configured and
broken fails the doctor (exit 1), and `--require-live` also fails it while live mode is not ready.

Probes are the cheapest authenticated call each provider has: one 1-result search per configured
engine (Brave bills it as one query), Gemini's model lookup (free), a 1-token Bedrock Converse, and
a RecognizeCelebrities with a deliberately invalid image (refused as invalid only after the
credentials were accepted, so nothing is recognised or billed). Output never contains a secret:
details come from our own exception messages, and are scrubbed of every key value regardless.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from visual_degrees.domain.errors import ConfigurationError, ProviderError, TransientProviderError
from visual_degrees.settings import Settings
from visual_degrees_tools.extras import PROVIDER_MODULES, Installed, install_command, installed, missing_extra
from visual_degrees_tools.text_table import aligned

if TYPE_CHECKING:
    from visual_degrees.adapters.live.http_retry import RetryPolicy

Probe = Callable[[], str]  # returns what it saw; raises a domain error when the provider fails

# A 1x1 GIF: a valid request shape that Rekognition refuses as an invalid image format.
_PROBE_IMAGE = base64.b64decode("R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==")


@dataclass(frozen=True)
class DoctorCheck:
    provider: str  # brave, google, gemini, bedrock, rekognition, fetcher, secrets
    role: str  # search, planner, recognizer, fetcher, config
    selected: bool  # what runs use with these settings
    configured: bool
    reachable: bool | None  # None: not probed
    ok: bool
    detail: str

    @property
    def broken(self) -> bool:
        """Configured, and yet it does not work: the only thing that fails the doctor."""
        return self.configured and not self.ok

    @property
    def status(self) -> str:
        if not self.configured:
            return "not set up"
        return "ok" if self.ok else "FAIL"


@dataclass(frozen=True)
class SandboxCheck:
    ready: bool
    detail: str


# What live mode needs (the selected search engine and Rekognition); the planner is optional.
REQUIRED_ROLES = ("search", "recognizer")
NEEDS = {
    "brave": "VD_BRAVE_API_KEY (Brave image search)",
    "google": "VD_GOOGLE_API_KEY and VD_GOOGLE_CX (Google image search)",
    "rekognition": "AWS credentials and a region (Rekognition)",
    "gemini": "VD_GEMINI_API_KEY",
    "bedrock": "AWS credentials with Bedrock model access",
}


# Every provider the doctor knows, with its role.
ROLES = {
    "brave": "search",
    "google": "search",
    "gemini": "planner",
    "bedrock": "planner",
    "openai": "planner",
    "rekognition": "recognizer",
}


def run_doctor(
    settings: Settings,
    *,
    probes: Mapping[str, Probe] | None = None,
    network: bool = True,
    aws_ready: Callable[[], str | None] | None = None,
    found: Installed = installed,
) -> list[DoctorCheck]:
    """One check per provider. `probes` replaces the default network probes by provider name;
    `network=False` only reports configuration; `aws_ready` returns None when AWS credentials and
    a region are available, else what is missing; `found` tells whether a module is installed
    (both injectable for tests). A provider whose extra is not installed is "not set up", saying
    which extra, and is never probed."""
    chosen_probes = dict(probes if probes is not None else default_probes(settings) if network else {})
    extra = {name: missing_extra(modules, "live", found) for name, modules in PROVIDER_MODULES.items()}
    aws_problem = (aws_ready or _aws_ready)() if found("boto3") else None
    configured = {
        "brave": extra["brave"] or _needs(settings, "brave_api_key"),
        "google": extra["google"] or _needs(settings, "google_api_key", "google_cx"),
        "gemini": extra["gemini"] or _needs(settings, "gemini_api_key"),
        "bedrock": extra["bedrock"] or aws_problem,
        "openai": extra["openai"] or _needs(settings, "openai_base_url", "openai_model"),
        "rekognition": extra["rekognition"] or aws_problem,
    }
    selected = {settings.search_engine, settings.planner, "rekognition"}
    checks = [
        _check(
            provider,
            role,
            provider in selected,
            configured[provider],
            chosen_probes.get(provider) if network else None,
            settings,
        )
        for provider, role in ROLES.items()
    ]
    return [*checks, *_setup_checks(settings, extra["fetcher"])]


def _check(
    provider: str, role: str, selected: bool, problem: str | None, probe: Probe | None, settings: Settings
) -> DoctorCheck:
    """One provider: misconfigured, configured but not probed, or probed (output scrubbed of keys)."""
    if problem is not None:
        return DoctorCheck(provider, role, selected, False, None, False, problem)
    if probe is None:
        return DoctorCheck(provider, role, selected, True, None, True, "not probed")
    reachable, ok, detail = _run_probe(probe)
    return DoctorCheck(
        provider, role, selected, True, reachable, ok, _scrub(detail, settings.secret_values())
    )


def _setup_checks(settings: Settings, fetcher_extra: str | None) -> list[DoctorCheck]:
    """How the fetcher may reach addresses (if it is installed), and where the keys come from."""
    allow = ", ".join(str(n) for n in settings.fetch_allow_networks)
    fetcher = f"private networks allowed: {allow}" if allow else "public addresses only"
    keys = (
        "keys read from Secrets Manager"
        if settings.provider_secret_arn
        else "keys from environment / config file"
    )
    ready = fetcher_extra is None
    return [
        DoctorCheck("fetcher", "fetcher", True, ready, None, ready, fetcher_extra or fetcher),
        DoctorCheck("secrets", "config", bool(settings.provider_secret_arn), True, None, True, keys),
    ]


def _needs(settings: Settings, *fields: str) -> str | None:
    """What is wrong with the first of `fields` that is not usable, named by its variable."""
    for field in fields:
        value, variable = getattr(settings, field), Settings.env_name(field)
        if value is None:
            return f"{variable} is not set"
        text = value.get_secret_value() if hasattr(value, "get_secret_value") else str(value)
        if not text.strip():
            return f"{variable} is empty"
    return None


def _run_probe(probe: Probe) -> tuple[bool, bool, str]:
    """(reachable, ok, detail)."""
    try:
        return True, True, probe()
    except ConfigurationError as exc:
        return True, False, exc.message
    except TransientProviderError as exc:
        return False, False, exc.message
    except ProviderError as exc:
        return True, False, exc.message
    except Exception as exc:  # a probe must never crash the doctor
        return False, False, f"probe failed: {type(exc).__name__}"


def _scrub(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def _aws_ready() -> str | None:
    try:
        import boto3

        session = boto3.session.Session()
        if session.get_credentials() is None:
            return "no AWS credentials found"
        if not session.region_name:
            return "no AWS region set (AWS_REGION / AWS_DEFAULT_REGION)"
    except Exception as exc:
        return f"AWS configuration unreadable: {type(exc).__name__}"
    return None


# ---- the default probes -------------------------------------------------------------------


def default_probes(settings: Settings) -> dict[str, Probe]:
    """Each probe imports its adapter when it runs: only a provider whose extra is installed is."""

    def once() -> RetryPolicy:
        from visual_degrees.adapters.live.http_retry import RetryPolicy

        return RetryPolicy(max_attempts=1)

    def search_probe(engine: str) -> Probe:
        def probe() -> str:
            from visual_degrees.adapters.live.providers import build_search

            hits = build_search(settings.model_copy(update={"search_engine": engine})).search(
                "Kevin Bacon", 1
            )
            return f"answered with {len(hits)} hit(s)"

        return probe

    def gemini_probe() -> str:
        from visual_degrees.adapters.live.planner_gemini import GeminiPlanner

        planner = GeminiPlanner(
            settings.gemini_api_key,
            model=settings.gemini_model,
            base_url=settings.gemini_base_url,
            api_version=settings.gemini_api_version,
            timeout_seconds=min(settings.planner_timeout, 15.0),
            retry=once(),
        )
        return planner.check_model()

    def bedrock_probe() -> str:
        from visual_degrees.adapters.live.planner_bedrock import BedrockPlanner

        planner = BedrockPlanner(settings.bedrock_model_id, region=settings.bedrock_region, retry=once())
        return planner.ping()

    def openai_probe() -> str:
        """The server's model list names the model (free); a server without a list gets a
        one-token completion."""
        from visual_degrees.adapters.live.providers import build_openai_planner

        quick = settings.model_copy(update={"planner_timeout": min(settings.planner_timeout, 15.0)})
        return build_openai_planner(quick, retry=once()).check_model()

    def rekognition_probe() -> str:
        from visual_degrees.adapters.live.rekognition import RekognitionRecognizer

        recognizer = RekognitionRecognizer(region=settings.rekognition_region, retry=once())
        return recognizer.probe(_PROBE_IMAGE)

    return {
        "brave": search_probe("brave"),
        "google": search_probe("google"),
        "gemini": gemini_probe,
        "bedrock": bedrock_probe,
        "openai": openai_probe,
        "rekognition": rekognition_probe,
    }


# ---- the sandbox ------------------------------------------------------------------------------


def check_sandbox(state_dir: Path) -> SandboxCheck:
    """Does the bundled world load, and can runs be kept in `state_dir`? (No network, no keys.)"""
    from visual_degrees_tools.sandbox import default_world_path, load_world

    try:
        world = load_world(default_world_path())
    except Exception as exc:  # a broken install: say so rather than crash
        return SandboxCheck(False, f"the bundled world does not load ({type(exc).__name__})")
    place = _writable(state_dir)
    if place is None:
        return SandboxCheck(False, f"runs cannot be kept in {state_dir} (not writable; see --state-dir)")
    return SandboxCheck(
        True,
        f"the bundled world ({world.size} people, {len(world.titles)} events) loads; "
        f"runs are kept in {place}",
    )


def _writable(state_dir: Path) -> Path | None:
    """`state_dir`, if it exists and is writable or could be created; None otherwise."""
    here = state_dir
    while not here.exists():
        if here.parent == here:
            return None
        here = here.parent
    return state_dir if here.is_dir() and os.access(here, os.W_OK | os.X_OK) else None


# ---- the report ---------------------------------------------------------------------------


def live_ready(checks: list[DoctorCheck]) -> bool:
    """Whether `--providers live` can run: the selected search engine and Rekognition work."""
    return all(c.ok for c in checks if c.selected and c.role in REQUIRED_ROLES)


def verdict_code(checks: list[DoctorCheck], sandbox: SandboxCheck | None, *, require_live: bool) -> int:
    """0, or 1 when something configured is broken (or the sandbox is), or live mode is required
    and not ready."""
    failing = any(c.broken for c in checks) or (sandbox is not None and not sandbox.ready)
    return 1 if failing or (require_live and not live_ready(checks)) else 0


def format_report(checks: list[DoctorCheck], sandbox: SandboxCheck | None = None) -> str:
    """The sandbox's line, a fixed-width table of the live providers, then the verdict."""

    def yes(value: bool | None) -> str:
        return "-" if value is None else ("yes" if value else "no")

    lines: list[str] = []
    if sandbox is not None:
        lines += [
            "Sandbox (the default for run, serve and bench: a simulated photo web, no keys, no network)",
            f"  {'ready' if sandbox.ready else 'FAIL'}: {sandbox.detail}",
            "",
        ]
    lines.append("Live providers (visual-degrees run A B --providers live)")
    rows = [("provider", "role", "used", "configured", "reachable", "status", "detail")]
    for c in checks:
        rows.append(
            (c.provider, c.role, yes(c.selected), yes(c.configured), yes(c.reachable), c.status, c.detail)
        )
    lines += ["  " + line for line in aligned(rows)]
    lines += ["", *_verdict(checks, sandbox)]
    return "\n".join(line.rstrip() for line in lines)


def _verdict(checks: list[DoctorCheck], sandbox: SandboxCheck | None) -> list[str]:
    out = []
    if sandbox is not None:
        out.append("Sandbox: ready." if sandbox.ready else f"Sandbox: not ready: {sandbox.detail}.")
    broken = [c for c in checks if c.broken]
    if live_ready(checks):
        out.append("Live mode: ready.")
    else:
        missing = [
            NEEDS[c.provider]
            for c in checks
            if c.selected and c.role in REQUIRED_ROLES and not c.configured and c.provider in NEEDS
        ]
        need = f" It would need {_and(missing)}." if missing else ""
        if any(c.detail.startswith("needs the live extra") for c in checks):
            need = f" It needs the live extra first: {install_command('live')}.{need}"
        out.append(f"Live mode: not set up.{need}")
    planner = next((c for c in checks if c.selected and c.role == "planner"), None)
    if planner is not None and not planner.configured:
        out.append(
            f"The {planner.provider} planner is optional ({NEEDS.get(planner.provider, planner.detail)}): "
            "without it a deterministic fallback orders the candidates."
        )
    if broken:
        out.append("Configured but failing: " + "; ".join(f"{c.provider} ({c.detail})" for c in broken))
    else:
        out.append("Nothing configured is broken.")
    return out


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
