"""Composition of the live providers from Settings: one call for the CLI and the Lambda cold start.

Nothing here opens a connection: every adapter builds its client on first use.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx

from visual_degrees.adapters.live.defaults import (
    BRAVE_SEARCH_RPS,
    GOOGLE_SEARCH_RPS,
    LLM_RPS,
    REKOGNITION_RPS,
    REKOGNITION_RPS_BY_REGION,
)
from visual_degrees.adapters.live.http_retry import RetryPolicy
from visual_degrees.adapters.live.image_convert import ImageLimits
from visual_degrees.adapters.live.image_fetcher import FetchLimits, SafeImageFetcher
from visual_degrees.adapters.live.net_guard import AddressGuard, Resolver
from visual_degrees.adapters.live.planner_bedrock import BedrockPlanner
from visual_degrees.adapters.live.planner_gemini import GeminiPlanner
from visual_degrees.adapters.live.planner_openai import OpenAICompatiblePlanner
from visual_degrees.adapters.live.planner_router import LivePlanner, PlannerRouter
from visual_degrees.adapters.live.rekognition import RekognitionRecognizer
from visual_degrees.adapters.live.search_brave import BraveImageSearch
from visual_degrees.adapters.live.search_google import GoogleImageSearch
from visual_degrees.adapters.rate_limiter import Rates
from visual_degrees.config import Settings
from visual_degrees.domain.errors import ConfigurationError
from visual_degrees.ports import ImageSearch, Planner, Providers

logger = logging.getLogger(__name__)


def retry_policy(settings: Settings, *, paced: bool = False) -> RetryPolicy:
    """The adapters' retries; `paced`: a throttled answer is the pacer's to retry, on a new slot."""
    return RetryPolicy(
        max_attempts=settings.retry_attempts,
        base_delay=settings.retry_base_delay,
        max_delay=settings.retry_max_delay,
        retry_throttled=not paced,
    )


def pacing_rates(settings: Settings, region: str | None = None) -> Rates:
    """The rates the shared limiter paces at: the settings', else each provider's documented default
    quota (Rekognition's depends on the region: the recogniser's, else `region`)."""
    engine_rps = GOOGLE_SEARCH_RPS if settings.search_engine == "google" else BRAVE_SEARCH_RPS
    where = settings.rekognition_region or region or ""
    return Rates(
        per_second={
            "search": settings.search_rps or engine_rps,
            "recognition": settings.recognition_rps or REKOGNITION_RPS_BY_REGION.get(where, REKOGNITION_RPS),
            "llm": settings.llm_rps or LLM_RPS,
        },
        client_share=settings.client_rate_share,
    )


def build_search(
    settings: Settings, *, http_client: httpx.Client | None = None, paced: bool = False
) -> ImageSearch:
    missing = settings.missing_for_search()
    if missing:
        raise ConfigurationError(
            f"{settings.search_engine} image search is not configured: set {', '.join(missing)}"
        )
    timeout = httpx.Timeout(settings.http_read_timeout, connect=settings.http_connect_timeout)
    if settings.search_engine == "google":
        return GoogleImageSearch(
            settings.google_api_key,
            settings.google_cx,
            endpoint=settings.google_endpoint,
            safe=settings.google_safe,
            client=http_client,
            timeout=timeout,
            retry=retry_policy(settings, paced=paced),
        )
    return BraveImageSearch(
        settings.brave_api_key,
        endpoint=settings.brave_endpoint,
        safesearch=settings.brave_safesearch,
        client=http_client,
        timeout=timeout,
        retry=retry_policy(settings, paced=paced),
    )


def build_fetcher(
    settings: Settings, *, resolver: Resolver | None = None, http_client: httpx.Client | None = None
) -> SafeImageFetcher:
    return SafeImageFetcher(
        FetchLimits(
            max_bytes=settings.fetch_max_bytes,
            connect_timeout=settings.fetch_connect_timeout,
            read_timeout=settings.fetch_read_timeout,
            total_timeout=settings.fetch_total_timeout,
            max_redirects=settings.fetch_max_redirects,
        ),
        ImageLimits(
            max_bytes=settings.image_max_bytes,
            min_side=settings.image_min_side,
            max_side=settings.image_max_side,
            max_pixels=settings.image_max_pixels,
        ),
        guard=AddressGuard(allow=settings.fetch_allow_networks),
        resolver=resolver,
        client=http_client,
    )


def build_recognizer(
    settings: Settings, *, client: Any | None = None, paced: bool = False
) -> RekognitionRecognizer:
    return RekognitionRecognizer(
        client,
        region=settings.rekognition_region,
        connect_timeout=settings.http_connect_timeout,
        read_timeout=settings.http_read_timeout,
        retry=retry_policy(settings, paced=paced),
    )


def build_planner_router(
    settings: Settings,
    *,
    genai_client: Any | None = None,
    bedrock_client: Any | None = None,
    openai_http_client: httpx.Client | None = None,
    paced: bool = False,
) -> PlannerRouter:
    def gemini() -> LivePlanner:
        return GeminiPlanner(
            settings.gemini_api_key,
            model=settings.gemini_model,
            base_url=settings.gemini_base_url,
            api_version=settings.gemini_api_version,
            timeout_seconds=settings.planner_timeout,
            thinking_level=settings.gemini_thinking_level,
            max_output_tokens=settings.planner_max_output_tokens,
            client=genai_client,
            retry=retry_policy(settings, paced=paced),
        )

    def bedrock() -> LivePlanner:
        return BedrockPlanner(
            settings.bedrock_model_id,
            client=bedrock_client,
            region=settings.bedrock_region,
            timeout_seconds=settings.planner_timeout,
            max_output_tokens=settings.planner_max_output_tokens,
            retry=retry_policy(settings, paced=paced),
        )

    def openai() -> LivePlanner:
        return build_openai_planner(settings, http_client=openai_http_client, paced=paced)

    return PlannerRouter({"gemini": gemini, "bedrock": bedrock, "openai": openai}, default=settings.planner)


def build_openai_planner(
    settings: Settings,
    *,
    http_client: httpx.Client | None = None,
    retry: RetryPolicy | None = None,
    paced: bool = False,
) -> OpenAICompatiblePlanner:
    """The OpenAI-compatible planner; a missing address or model is a ConfigurationError on first use."""
    return OpenAICompatiblePlanner(
        settings.openai_base_url or "",
        model=settings.openai_model or "",
        api_key=settings.openai_api_key,
        timeout_seconds=settings.planner_timeout,
        max_output_tokens=settings.planner_max_output_tokens,
        response_format=settings.openai_response_format,
        client=http_client,
        retry=retry or retry_policy(settings, paced=paced),
    )


def build_live_providers(
    settings: Settings,
    *,
    resolver: Resolver | None = None,
    search_http_client: httpx.Client | None = None,
    fetch_http_client: httpx.Client | None = None,
    rekognition_client: Any | None = None,
    genai_client: Any | None = None,
    bedrock_client: Any | None = None,
    openai_http_client: httpx.Client | None = None,
    paced: bool = False,
) -> Providers:
    """Live adapters for `settings`. A missing search key is a ConfigurationError now (no run can
    work without search); a missing planner key only means the fallback plans (planner None,
    logged once here) instead of failing. `paced`: each run wraps them with adapters/pacing.py,
    which retries throttled answers on a new slot (the adapters do not)."""
    search = build_search(settings, http_client=search_http_client, paced=paced)
    planner: Planner | None = build_planner_router(
        settings,
        genai_client=genai_client,
        bedrock_client=bedrock_client,
        openai_http_client=openai_http_client,
        paced=paced,
    )
    missing = settings.missing_for_planner()
    if missing and genai_client is None:
        logger.warning(
            "planner not configured; runs use the deterministic fallback",
            extra={"planner": settings.planner, "missing": missing},
        )
        planner = None
    return Providers(
        search=search,
        fetcher=build_fetcher(settings, resolver=resolver, http_client=fetch_http_client),
        recognizer=build_recognizer(settings, client=rekognition_client, paced=paced),
        planner=planner,
    )
