"""The doctor reports the sandbox, configured / reachable per live provider, never prints a secret,
and fails only for what is configured and broken (or, asked to, while live mode is not ready)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from visual_degrees.config import Settings
from visual_degrees.domain.errors import ConfigurationError, ProviderError, TransientProviderError
from visual_degrees_tools.doctor import (
    DoctorCheck,
    SandboxCheck,
    check_sandbox,
    format_report,
    live_ready,
    run_doctor,
    verdict_code,
)

BRAVE_KEY = "brave-key-do-not-print"
GEMINI_KEY = "gemini-key-do-not-print"


def by_provider(checks: list[DoctorCheck]) -> dict[str, DoctorCheck]:
    return {c.provider: c for c in checks}


def raises(exc: Exception) -> Callable[[], str]:
    def probe() -> str:
        raise exc

    return probe


def recorder(probed: list[str], name: str) -> Callable[[], str]:
    def probe() -> str:
        probed.append(name)
        return "ok"

    return probe


def test_unconfigured_providers_say_which_variable_is_missing_and_are_not_probed() -> None:
    probed: list[str] = []
    checks = by_provider(
        run_doctor(
            Settings(),
            probes={name: recorder(probed, name) for name in ("brave", "google", "gemini")},
            aws_ready=lambda: "no AWS credentials found",
        )
    )
    assert checks["brave"].configured is False and "VD_BRAVE_API_KEY" in checks["brave"].detail
    assert checks["google"].configured is False and "VD_GOOGLE_API_KEY" in checks["google"].detail
    assert checks["gemini"].configured is False
    assert checks["rekognition"].configured is False and "credentials" in checks["rekognition"].detail
    assert probed == []


def test_configured_providers_are_probed_and_the_outcome_classified() -> None:
    settings = Settings(
        brave_api_key=BRAVE_KEY, gemini_api_key=GEMINI_KEY, google_api_key="g", google_cx="cx"
    )
    checks = by_provider(
        run_doctor(
            settings,
            probes={
                "brave": lambda: "answered with 1 hit(s)",
                "google": raises(
                    TransientProviderError("Google image search: timed out (gave up after 1 attempts)")
                ),
                "gemini": raises(ConfigurationError("Gemini rejected the API key or project (HTTP 400)")),
                "bedrock": raises(ProviderError("Bedrock rejected the request (ValidationException)")),
                "rekognition": lambda: "reachable, credentials accepted",
            },
            aws_ready=lambda: None,
        )
    )
    assert (checks["brave"].reachable, checks["brave"].ok, checks["brave"].selected) == (True, True, True)
    assert (checks["google"].reachable, checks["google"].ok, checks["google"].selected) == (
        False,
        False,
        False,
    )
    assert (checks["gemini"].reachable, checks["gemini"].ok) == (True, False)
    assert (checks["bedrock"].reachable, checks["bedrock"].ok) == (True, False)
    assert checks["rekognition"].ok is True
    assert checks["fetcher"].detail == "public addresses only"


def test_a_crashing_probe_does_not_crash_the_doctor() -> None:
    checks = by_provider(
        run_doctor(
            Settings(brave_api_key=BRAVE_KEY),
            probes={"brave": raises(RuntimeError("boom"))},
            aws_ready=lambda: None,
        )
    )
    assert checks["brave"].ok is False
    assert checks["brave"].detail == "probe failed: RuntimeError"


def test_no_secret_reaches_the_report_even_if_a_probe_echoes_it() -> None:
    settings = Settings(brave_api_key=BRAVE_KEY, gemini_api_key=GEMINI_KEY)
    checks = run_doctor(
        settings,
        probes={
            "brave": lambda: f"echoed {BRAVE_KEY}",
            "gemini": raises(ConfigurationError(f"bad key {GEMINI_KEY}")),
        },
        aws_ready=lambda: None,
    )
    report = format_report(checks)
    assert BRAVE_KEY not in report and GEMINI_KEY not in report
    assert "***" in report


def test_without_network_nothing_is_probed() -> None:
    probed: list[str] = []
    checks = by_provider(
        run_doctor(
            Settings(brave_api_key=BRAVE_KEY),
            probes={"brave": recorder(probed, "brave")},
            network=False,
            aws_ready=lambda: None,
        )
    )
    assert probed == []
    assert (checks["brave"].configured, checks["brave"].reachable) == (True, None)


def test_the_report_is_a_table_with_a_verdict_on_the_selected_providers() -> None:
    settings = Settings(
        brave_api_key=BRAVE_KEY, fetch_allow_networks="127.0.0.1/32", secret_arn="arn:aws:secret"
    )
    report = format_report(
        run_doctor(
            settings,
            probes={"brave": lambda: "answered with 1 hit(s)", "rekognition": lambda: "reachable"},
            aws_ready=lambda: None,
        )
    )
    lines = [line.strip() for line in report.splitlines()]
    assert lines[0] == "Live providers (visual-degrees run A B --providers live)"
    assert lines[1].split()[:6] == ["provider", "role", "used", "configured", "reachable", "status"]
    assert any(line.startswith("brave") and "answered with 1 hit(s)" in line for line in lines)
    assert any(line.startswith("fetcher") and "127.0.0.1/32" in line for line in lines)
    assert any(line.startswith("secrets") and "Secrets Manager" in line for line in lines)
    # gemini is the selected planner and has no key: optional, not a failure
    assert "Live mode: ready." in lines
    assert any(line.startswith("The gemini planner is optional") for line in lines)
    assert lines[-1] == "Nothing configured is broken."


@pytest.mark.parametrize("engine", ["brave", "google"])
def test_the_selected_search_engine_is_marked_used(engine: str) -> None:
    checks = by_provider(run_doctor(Settings(search_engine=engine), probes={}, aws_ready=lambda: None))
    assert checks[engine].selected is True
    assert checks["google" if engine == "brave" else "brave"].selected is False


def test_a_sandbox_user_without_any_key_is_told_the_sandbox_is_ready_and_what_live_mode_needs(
    tmp_path: Path,
) -> None:
    # Given no key and no AWS credentials at all
    checks = run_doctor(Settings(), probes={}, aws_ready=lambda: "no AWS credentials found")
    sandbox = check_sandbox(tmp_path / "state")

    # Then nothing fails: the sandbox is ready, live mode is merely not set up
    assert sandbox.ready and str(tmp_path / "state") in sandbox.detail
    assert not any(c.broken for c in checks)
    assert {c.status for c in checks if not c.configured} == {"not set up"}
    assert verdict_code(checks, sandbox, require_live=False) == 0
    report = format_report(checks, sandbox)
    assert "FAIL" not in report
    assert "Sandbox: ready." in report
    assert (
        "Live mode: not set up. It would need VD_BRAVE_API_KEY (Brave image search) and "
        "AWS credentials and a region (Rekognition)." in report
    )
    # And asked to require live mode, it fails
    assert verdict_code(checks, sandbox, require_live=True) == 1


def test_only_what_is_configured_and_broken_fails() -> None:
    # Given a Brave key that the service refuses, and nothing else configured
    checks = run_doctor(
        Settings(brave_api_key=BRAVE_KEY),
        probes={"brave": raises(ConfigurationError("Brave rejected the API key (HTTP 401)"))},
        aws_ready=lambda: "no AWS credentials found",
    )
    by_name = by_provider(checks)
    assert by_name["brave"].status == "FAIL" and by_name["brave"].broken
    assert by_name["google"].status == "not set up" and not by_name["google"].broken
    assert verdict_code(checks, None, require_live=False) == 1
    assert "Configured but failing: brave (Brave rejected the API key (HTTP 401))" in format_report(checks)


def test_live_mode_is_ready_with_search_and_recognition_the_planner_being_optional() -> None:
    checks = run_doctor(
        Settings(brave_api_key=BRAVE_KEY),
        probes={"brave": lambda: "answered", "rekognition": lambda: "reachable"},
        aws_ready=lambda: None,
    )
    assert live_ready(checks)
    assert verdict_code(checks, SandboxCheck(True, "ok"), require_live=True) == 0


def test_a_state_dir_that_cannot_be_written_is_a_sandbox_failure(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    sandbox = check_sandbox(blocker / "state")  # below a file: can never be created
    assert not sandbox.ready and "not writable" in sandbox.detail
    assert verdict_code([], sandbox, require_live=False) == 1


OPENAI_KEY = "openai-key-do-not-print"


def test_an_openai_compatible_server_is_a_planner_row_needing_an_address_and_a_model() -> None:
    # Given no OpenAI-compatible settings: the row says what is missing, and nothing is probed
    probed: list[str] = []
    checks = by_provider(
        run_doctor(Settings(), probes={"openai": recorder(probed, "openai")}, aws_ready=lambda: None)
    )
    assert checks["openai"].role == "planner"
    assert (checks["openai"].selected, checks["openai"].configured) == (False, False)
    assert "VD_OPENAI_BASE_URL" in checks["openai"].detail
    assert probed == []
    # And without a model it is still not configured (the key is optional)
    partial = by_provider(
        run_doctor(Settings(openai_base_url="http://10.0.0.5:8000/v1"), probes={}, aws_ready=lambda: None)
    )
    assert "VD_OPENAI_MODEL" in partial["openai"].detail


def test_a_configured_openai_compatible_server_is_probed_and_fails_only_when_broken() -> None:
    settings = Settings(
        brave_api_key=BRAVE_KEY,
        planner="openai",
        openai_base_url="http://10.0.0.5:8000/v1",
        openai_model="llama3.1:8b",
        openai_api_key=OPENAI_KEY,
    )
    healthy = by_provider(
        run_doctor(
            settings,
            probes={"openai": lambda: "model llama3.1:8b served (2 model(s) listed)"},
            aws_ready=lambda: None,
        )
    )
    row = healthy["openai"]
    assert (row.selected, row.reachable, row.ok) == (True, True, True)
    assert healthy["gemini"].selected is False
    broken = run_doctor(
        settings,
        probes={"openai": raises(ConfigurationError(f"model 'llama3.1:8b' not found, key {OPENAI_KEY}"))},
        aws_ready=lambda: None,
    )
    report = format_report(broken)
    assert by_provider(broken)["openai"].ok is False
    assert OPENAI_KEY not in report
    assert report.splitlines()[-1].startswith("Configured but failing: openai (model 'llama3.1:8b' not found")
    # Offline, a configured server is reported, not probed
    offline = by_provider(run_doctor(settings, network=False, aws_ready=lambda: None))
    row = offline["openai"]
    assert (row.configured, row.reachable, row.ok) == (True, None, True)


def test_without_the_live_extra_every_provider_names_it_and_nothing_is_probed() -> None:
    # Given settings with keys, on an install without httpx (the base install)
    probed: list[str] = []
    checks = by_provider(
        run_doctor(
            Settings(brave_api_key=BRAVE_KEY, gemini_api_key=GEMINI_KEY),
            probes={name: recorder(probed, name) for name in ("brave", "gemini", "rekognition")},
            aws_ready=lambda: None,
            found=lambda module: module != "httpx",
        )
    )
    # Then no provider is probed, none fails, and each says which extra to install
    assert probed == []
    for name in ("brave", "google", "gemini", "bedrock", "openai", "rekognition", "fetcher"):
        assert checks[name].status == "not set up" and not checks[name].broken
        assert "needs the live extra (pip install -e '.[live]'; not installed: httpx" in checks[name].detail
    report = format_report(list(checks.values()))
    assert "It needs the live extra first: pip install -e '.[live]'." in report
    assert verdict_code(list(checks.values()), None, require_live=False) == 0
