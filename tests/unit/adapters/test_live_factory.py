"""build_live_providers: the right adapters from Settings, without opening any connection."""

from __future__ import annotations

import pytest

from visual_degrees.adapters.live.image_fetcher import SafeImageFetcher
from visual_degrees.adapters.live.planner_gemini import GeminiPlanner
from visual_degrees.adapters.live.planner_openai import OpenAICompatiblePlanner
from visual_degrees.adapters.live.planner_router import PlannerRouter
from visual_degrees.adapters.live.providers import build_live_providers
from visual_degrees.adapters.live.rekognition import RekognitionRecognizer
from visual_degrees.adapters.live.search_brave import BraveImageSearch
from visual_degrees.adapters.live.search_google import GoogleImageSearch
from visual_degrees.domain.errors import ConfigurationError
from visual_degrees.settings import DEFAULT_GEMINI_MODEL, Settings


def test_brave_and_gemini_by_default() -> None:
    providers = build_live_providers(Settings(brave_api_key="b", gemini_api_key="g"))
    assert isinstance(providers.search, BraveImageSearch)
    assert isinstance(providers.fetcher, SafeImageFetcher)
    assert isinstance(providers.recognizer, RekognitionRecognizer)
    assert isinstance(providers.planner, PlannerRouter)
    assert isinstance(providers.planner.for_run(), GeminiPlanner)
    assert providers.planner.for_run().model == DEFAULT_GEMINI_MODEL  # type: ignore[attr-defined]


def test_google_when_configured() -> None:
    providers = build_live_providers(Settings(search_engine="google", google_api_key="k", google_cx="cx"))
    assert isinstance(providers.search, GoogleImageSearch)


def test_a_search_engine_without_its_key_fails_at_build_time_naming_the_variable() -> None:
    with pytest.raises(ConfigurationError, match="VD_GOOGLE_CX"):
        build_live_providers(Settings(search_engine="google", google_api_key="k"))
    with pytest.raises(ConfigurationError, match="VD_BRAVE_API_KEY"):
        build_live_providers(Settings())


def test_a_planner_without_its_key_means_the_fallback(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("WARNING")
    providers = build_live_providers(Settings(brave_api_key="b"))
    assert providers.planner is None
    assert any("deterministic fallback" in r.getMessage() for r in caplog.records)


def test_bedrock_needs_no_api_key() -> None:
    providers = build_live_providers(Settings(brave_api_key="b", planner="bedrock"))
    assert isinstance(providers.planner, PlannerRouter)
    assert providers.planner.default == "bedrock"


def test_an_openai_compatible_server_when_chosen() -> None:
    settings = Settings(
        brave_api_key="b",
        planner="openai",
        openai_base_url="http://10.0.0.5:11434/v1/",
        openai_model="llama3.1:8b",
        openai_response_format="json_object",
        planner_max_output_tokens=512,
    )
    providers = build_live_providers(settings)
    assert isinstance(providers.planner, PlannerRouter)
    assert providers.planner.default == "openai"
    chosen = providers.planner.for_run()
    assert isinstance(chosen, OpenAICompatiblePlanner)
    assert chosen.model == "llama3.1:8b"
    assert chosen.endpoint.response_format == "json_object"
    assert chosen.endpoint.what == "chat endpoint 10.0.0.5:11434 (llama3.1:8b)"


def test_an_openai_compatible_planner_without_address_or_model_means_the_fallback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level("WARNING")
    providers = build_live_providers(Settings(brave_api_key="b", planner="openai", openai_model="m"))
    assert providers.planner is None
    (record,) = [r for r in caplog.records if "deterministic fallback" in r.getMessage()]
    assert record.missing == ["VD_OPENAI_BASE_URL"]  # type: ignore[attr-defined]
