"""build_live_providers: the right adapters from Settings, without opening any connection."""

from __future__ import annotations

import pytest

from visual_degrees.adapters.live.defaults import DEFAULT_GEMINI_MODEL
from visual_degrees.adapters.live.image_fetcher import SafeImageFetcher
from visual_degrees.adapters.live.planner_gemini import GeminiPlanner
from visual_degrees.adapters.live.planner_router import PlannerRouter
from visual_degrees.adapters.live.providers import build_live_providers
from visual_degrees.adapters.live.rekognition import RekognitionRecognizer
from visual_degrees.adapters.live.search_brave import BraveImageSearch
from visual_degrees.adapters.live.search_google import GoogleImageSearch
from visual_degrees.config import Settings
from visual_degrees.domain.errors import ConfigurationError


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
