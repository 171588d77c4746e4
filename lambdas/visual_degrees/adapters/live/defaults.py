"""What the live adapters assume unless told otherwise: endpoints, models and Rekognition's limits.

Kept apart from the adapters' modules only because those import their client libraries (httpx,
google-genai, boto3) and `config.Settings` takes these as its defaults without loading any of them;
each adapter uses its own constant here as its default too.
"""

from __future__ import annotations

from typing import Final

BRAVE_IMAGES_ENDPOINT = "https://api.search.brave.com/res/v1/images/search"
GOOGLE_CSE_ENDPOINT = "https://www.googleapis.com/customsearch/v1"
# Gemini 2.0 Flash / Flash-Lite were shut down on 2026-06-01 and 2.5 Flash retires on 2026-12-01;
# 3.8 Flash (GA 2026-09-02, no shutdown announced) is the newest Flash model on the Gemini API
# deprecations page as read in 2026-11. Override with VD_GEMINI_MODEL.
DEFAULT_GEMINI_MODEL = "gemini-3.8-flash"
DEFAULT_BEDROCK_MODEL = "amazon.nova-lite-v1:0"
# OpenAI-compatible servers have no default model or address (VD_OPENAI_MODEL, VD_OPENAI_BASE_URL);
# structured output starts at a strict JSON schema and falls back when the server refuses it.
DEFAULT_OPENAI_RESPONSE_FORMAT: Final = "json_schema"
REKOGNITION_MAX_IMAGE_BYTES = 5 * 1024 * 1024  # RecognizeCelebrities limit for image bytes
REKOGNITION_MIN_SIDE = 80

# Each provider's documented default quota: the rates the shared limiter paces every run's calls at
# unless VD_SEARCH_RPS / VD_RECOGNITION_RPS / VD_LLM_RPS say otherwise (sources: docs/operators.md).
BRAVE_SEARCH_RPS = 50.0  # Brave Search API, Search plan: 50 requests a second
GOOGLE_SEARCH_RPS = 1.0  # Google documents a daily cap (10,000 queries), no rate: one a second
# RecognizeCelebrities, transactions a second per account: 50 in these regions, 5 in every other.
REKOGNITION_RPS = 5.0
REKOGNITION_RPS_BY_REGION = {"us-east-1": 50.0, "us-west-2": 50.0, "eu-west-1": 50.0}
LLM_RPS = 16.0  # Gemini Tier 1 (a billed project): 1,000 requests a minute for Flash models
CLIENT_RATE_SHARE = 0.25  # the most of each provider's rate one client's runs may take
