"""`visual-degrees doctor`: which live providers are configured, and do they answer?

Probes are the cheapest authenticated call each provider has: one 1-result search per configured
engine (Brave bills it as one query), Gemini's model lookup (free), a 1-token Bedrock Converse, and
a RecognizeCelebrities with a deliberately invalid image (refused as invalid only after the
credentials were accepted, so nothing is recognised or billed). Output never contains a secret:
details come from our own exception messages, and are scrubbed of every key value regardless.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from visual_degrees.config import Settings
from visual_degrees.domain.errors import ConfigurationError, ProviderError, TransientProviderError

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
) -> list[DoctorCheck]:
    """One check per provider. `probes` replaces the default network probes by provider name;
    `network=False` only reports configuration; `aws_ready` returns None when AWS credentials and
    a region are available, else what is missing (injectable for tests)."""
    chosen_probes = dict(default_probes(settings)) if probes is None else dict(probes)
    aws_problem = (aws_ready or _aws_ready)()
    configured = {
        "brave": _needs(settings, "brave_api_key"),
        "google": _needs(settings, "google_api_key", "google_cx"),
        "gemini": _needs(settings, "gemini_api_key"),
        "bedrock": aws_problem,
        "openai": _needs(settings, "openai_base_url", "openai_model"),
        "rekognition": aws_problem,
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
    return [*checks, *_setup_checks(settings)]


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


def _setup_checks(settings: Settings) -> list[DoctorCheck]:
    """How the fetcher may reach addresses, and where the keys come from."""
    allow = ", ".join(str(n) for n in settings.fetch_allow_networks)
    fetcher = f"private networks allowed: {allow}" if allow else "public addresses only"
    keys = "keys read from Secrets Manager" if settings.secret_arn else "keys from environment / config file"
    return [
        DoctorCheck("fetcher", "fetcher", True, True, None, True, fetcher),
        DoctorCheck("secrets", "config", bool(settings.secret_arn), True, None, True, keys),
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
    from visual_degrees.adapters.live.http_retry import RetryPolicy

    once = RetryPolicy(max_attempts=1)

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
            retry=once,
        )
        return planner.check_model()

    def bedrock_probe() -> str:
        from visual_degrees.adapters.live.planner_bedrock import BedrockPlanner

        planner = BedrockPlanner(settings.bedrock_model_id, region=settings.bedrock_region, retry=once)
        return planner.ping()

    def openai_probe() -> str:
        """The server's model list names the model (free); a server without a list gets a
        one-token completion."""
        from visual_degrees.adapters.live.providers import build_openai_planner

        quick = settings.model_copy(update={"planner_timeout": min(settings.planner_timeout, 15.0)})
        return build_openai_planner(quick, retry=once).check_model()

    def rekognition_probe() -> str:
        from visual_degrees.adapters.live.rekognition import RekognitionRecognizer

        recognizer = RekognitionRecognizer(region=settings.rekognition_region, retry=once)
        return recognizer.probe(_PROBE_IMAGE)

    return {
        "brave": search_probe("brave"),
        "google": search_probe("google"),
        "gemini": gemini_probe,
        "bedrock": bedrock_probe,
        "openai": openai_probe,
        "rekognition": rekognition_probe,
    }


# ---- the report ---------------------------------------------------------------------------


def format_report(checks: list[DoctorCheck]) -> str:
    """A fixed-width table, one line per check, then a one-line verdict on the selected providers."""

    def yes(value: bool | None) -> str:
        return "-" if value is None else ("yes" if value else "NO")

    rows = [("provider", "role", "used", "configured", "reachable", "status", "detail")]
    for c in checks:
        status = "ok" if c.ok else "FAIL"
        rows.append(
            (c.provider, c.role, yes(c.selected), yes(c.configured), yes(c.reachable), status, c.detail)
        )
    widths = [max(len(row[i]) for row in rows) for i in range(6)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row[:6], widths, strict=True)) + "  " + row[6]
        for row in rows
    ]
    failing = [c.provider for c in checks if c.selected and not c.ok]
    lines.append("")
    lines.append(
        f"selected providers failing: {', '.join(failing)}" if failing else "selected providers: all ok"
    )
    return "\n".join(line.rstrip() for line in lines)
