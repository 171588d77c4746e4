"""Optional extras of the distribution, and how a command says one is missing.

The base install (`pip install -c requirements.lock -e .`) runs everything on the sandbox: run, serve,
bench, trace and doctor. Live providers need the `live` extra (httpx, Pillow, google-genai, boto3)
and bench plots the `bench` extra (matplotlib); what needs one names it, with the command that
installs it, instead of failing on an import.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

from visual_degrees.domain.errors import ConfigurationError

EXTRAS = {"live": ("httpx", "PIL", "google.genai", "boto3"), "bench": ("matplotlib",)}
# What each live provider imports (every live adapter retries through httpx: adapters/live/http_retry).
PROVIDER_MODULES = {
    "brave": ("httpx",),
    "google": ("httpx",),
    "openai": ("httpx",),
    "gemini": ("httpx", "google.genai"),
    "bedrock": ("httpx", "boto3"),
    "rekognition": ("httpx", "boto3"),
    "fetcher": ("httpx", "PIL"),
}

Installed = Callable[[str], bool]  # is this module importable?


def installed(module: str) -> bool:
    """Is `module` importable here (without importing it)?"""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package that is not there
        return False


def install_command(extra: str) -> str:
    return f"pip install -e '.[{extra}]'"


def missing_extra(modules: tuple[str, ...], extra: str, found: Installed = installed) -> str | None:
    """What to say when one of `modules` (of `extra`) is not installed, else None."""
    absent = [m for m in modules if not found(m)]
    if not absent:
        return None
    return f"needs the {extra} extra ({install_command(extra)}; not installed: {', '.join(absent)})"


def require_extra(extra: str, what: str, found: Installed = installed) -> None:
    """Raise ConfigurationError saying which extra `what` needs, if any of its modules is missing."""
    problem = missing_extra(EXTRAS[extra], extra, found)
    if problem is not None:
        raise ConfigurationError(f"{what} {problem}")
