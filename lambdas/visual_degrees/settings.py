"""The settings of every process (a Lambda function, the CLI, the local server), one model: environment
variables `VD_<FIELD>`, an optional dotenv file for the CLI (`VD_CONFIG_FILE`), and the provider
keys from the provider-key secret when deployed (`VD_PROVIDER_SECRET_ARN`, read through a
`SecretReader`: adapters/aws/secrets.py). Each variable has one meaning everywhere.

A function gets only the variables of its grants (infra/stack.py): its wiring (run memory, the
state machine, the WebSocket endpoint, the client-token secret, the run defaults and ceilings) and,
for the steps that call providers, the providers' choice. Every endpoint is configuration, so the
same adapters run against a regional proxy, a recorded-response server or a test double on
127.0.0.1 (AWS endpoints use boto3's own `AWS_ENDPOINT_URL_<SERVICE>` variables). Keys are
`SecretStr`: hidden from repr, logs and the doctor.
"""

from __future__ import annotations

import ipaddress
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Final, Literal, Protocol

from dotenv import dotenv_values
from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from visual_degrees.constants import (
    ENV_CLIENT_TOKENS_SECRET_ARN,
    ENV_CONFIG_FILE,
    ENV_PREFIX,
    ENV_RUN_CEILINGS,
    ENV_RUN_DEFAULTS,
    ENV_TABLE_NAME,
)
from visual_degrees.domain.ceilings import RunCeilings
from visual_degrees.domain.errors import ConfigurationError
from visual_degrees.domain.models import RunOptions

# What the live adapters assume unless told otherwise: endpoints, models and Rekognition's limits
# (each adapter takes its own as its default too).
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

# Secret JSON keys -> settings fields. The secret is one JSON object; `VD_`-prefixed or upper-case
# spellings of these keys are accepted too. The plain ones are settings that are not secret but are
# deployed with the keys they belong to (a self-hosted planner's address and model beside its key).
SECRET_FIELDS = (
    "brave_api_key",
    "google_api_key",
    "google_cx",
    "gemini_api_key",
    "openai_api_key",
    "openai_base_url",
    "openai_model",
)
PLAIN_SECRET_FIELDS = frozenset({"google_cx", "openai_base_url", "openai_model"})

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def _http_url(value: str | None) -> str | None:
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if not text.startswith(("https://", "http://")):
        raise ValueError(f"{value!r} is not an http(s) URL")
    return text


# One variable used to name either secret, depending on the function: each has its own name now.
RENAMED_SECRET_ARN = "VD_SECRET_ARN"


class SecretReader(Protocol):
    def get(self, arn: str, *, max_age: float | None = None) -> dict[str, str]:
        """The secret's JSON object (string values), cached up to `max_age` seconds."""
        ...


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        validate_default=True,
    )

    # ---- the deployment's wiring (the CDK app sets each function only those of its grants) -------
    table_name: str | None = None  # run memory
    graph_table_name: str | None = None  # the evidence graph (None: kept in run memory's table)
    graph_retention_days: int = Field(default=180, ge=1, le=3650)  # how long a proven link is kept
    state_machine_arn: str | None = None
    websocket_endpoint: str | None = None  # the API's management endpoint, to push to connections
    client_tokens_secret_arn: str | None = None  # {clientId: token}, read by the $connect authorizer
    run_defaults: Annotated[RunOptions, NoDecode] = Field(default_factory=RunOptions)  # JSON
    run_ceilings: Annotated[RunCeilings, NoDecode] = Field(default_factory=RunCeilings)  # JSON
    max_active_runs_per_client: int = Field(default=2, ge=1, le=1_000)
    # Once a chain is proven, what looking for a shorter one may spend, as a share of the run's spend
    # so far: the run defaults' `budgets.shortenShare`, set on its own (a run may still ask its own).
    shorten_share: float | None = Field(default=None, ge=0, le=1)

    # Which provider serves each port.
    search_engine: Literal["brave", "google"] = "brave"
    planner: Literal["gemini", "bedrock", "openai"] = "gemini"

    # Image search.
    brave_api_key: SecretStr | None = None
    brave_endpoint: str = BRAVE_IMAGES_ENDPOINT
    brave_safesearch: Literal["off", "strict"] = "strict"
    google_api_key: SecretStr | None = None
    google_cx: str | None = None
    google_endpoint: str = GOOGLE_CSE_ENDPOINT
    google_safe: Literal["active", "off"] = "active"

    # Planner.
    gemini_api_key: SecretStr | None = None
    gemini_base_url: str | None = None  # None: the SDK's default endpoint
    gemini_api_version: str | None = None
    gemini_model: str = DEFAULT_GEMINI_MODEL
    gemini_thinking_level: Literal["minimal", "low", "medium", "high"] | None = "low"
    planner_max_output_tokens: int = Field(default=1024, ge=64, le=65_536)
    planner_timeout: float = Field(default=30.0, gt=0, le=300)
    bedrock_model_id: str = DEFAULT_BEDROCK_MODEL
    bedrock_region: str | None = None  # None: boto3's usual region lookup
    # An OpenAI-compatible chat endpoint (Ollama, vLLM, LM Studio): base URL with /v1, model, key.
    # The base URL is trusted operator configuration, like every endpoint here (not user input).
    openai_base_url: str | None = None
    openai_model: str | None = None
    openai_api_key: SecretStr | None = None  # optional: most self-hosted servers take none
    openai_response_format: Literal["json_schema", "json_object", "none"] = DEFAULT_OPENAI_RESPONSE_FORMAT

    # Recognition.
    rekognition_region: str | None = None

    # HTTP behaviour of the search adapters and retries of every adapter.
    http_connect_timeout: float = Field(default=5.0, gt=0, le=60)
    http_read_timeout: float = Field(default=15.0, gt=0, le=120)
    retry_attempts: int = Field(default=3, ge=1, le=8)
    retry_base_delay: float = Field(default=0.5, ge=0, le=30)
    retry_max_delay: float = Field(default=8.0, ge=0, le=60)

    # Pacing (adapters/pacing.py): calls a second to each provider, shared by every run of a
    # deployment (or of one local process); unset, the provider's documented default quota. And
    # the most of each rate one client's runs may take.
    search_rps: float | None = Field(default=None, gt=0, le=10_000)
    recognition_rps: float | None = Field(default=None, gt=0, le=10_000)
    llm_rps: float | None = Field(default=None, gt=0, le=10_000)
    client_rate_share: float = Field(default=CLIENT_RATE_SHARE, gt=0, le=1)

    # Image fetching and conversion.
    fetch_max_bytes: int = Field(default=20 * 1024 * 1024, ge=1024, le=100 * 1024 * 1024)
    fetch_connect_timeout: float = Field(default=3.0, gt=0, le=30)
    fetch_read_timeout: float = Field(default=5.0, gt=0, le=60)
    fetch_total_timeout: float = Field(default=15.0, gt=0, le=120)
    fetch_max_redirects: int = Field(default=3, ge=0, le=3)
    image_max_bytes: int = Field(
        default=REKOGNITION_MAX_IMAGE_BYTES, ge=64 * 1024, le=REKOGNITION_MAX_IMAGE_BYTES
    )
    image_min_side: int = Field(default=REKOGNITION_MIN_SIDE, ge=REKOGNITION_MIN_SIDE, le=1024)
    # Longest side sent to Rekognition, and pixels decoded at full size (see adapters/image_convert).
    image_max_side: int = Field(default=1920, ge=256, le=16_384)
    image_max_pixels: int = Field(default=16_000_000, ge=1_000_000, le=200_000_000)
    # Networks the fetcher may reach although they are not public (tests, on-premises proxies).
    # Comma-separated CIDRs; empty by default. Logged whenever a fetcher is built with it.
    fetch_allow_networks: Annotated[tuple[IPNetwork, ...], NoDecode] = ()

    # Deployed: where the provider keys live, and how long a warm container trusts its copy.
    provider_secret_arn: str | None = None
    secret_cache_seconds: float = Field(default=300.0, ge=0, le=86_400)

    @field_validator("brave_endpoint", "google_endpoint", "gemini_base_url", "openai_base_url")
    @classmethod
    def _endpoints_are_http(cls, value: str | None) -> str | None:
        return _http_url(value)

    @field_validator("run_defaults", "run_ceilings", mode="before")
    @classmethod
    def _json(cls, value: Any) -> Any:
        return json.loads(value) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _defaults_fit_the_ceilings(self) -> Settings:
        if self.shorten_share is not None:
            budgets = self.run_defaults.budgets.model_copy(update={"shorten_share": self.shorten_share})
            self.run_defaults = self.run_defaults.model_copy(update={"budgets": budgets})
        excess = self.run_ceilings.excess(self.run_defaults)
        if excess:
            raise ValueError(f"{ENV_RUN_DEFAULTS} exceed {ENV_RUN_CEILINGS}: {'; '.join(excess)}")
        return self

    @field_validator("gemini_thinking_level", mode="before")
    @classmethod
    def _thinking_level(cls, value: Any) -> Any:
        """Blank means: send no thinking config (for models that take none)."""
        if isinstance(value, str):
            return value.strip().lower() or None
        return value

    @field_validator("fetch_allow_networks", mode="before")
    @classmethod
    def _split_networks(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [part for part in value.split(",") if part.strip()]
        if isinstance(value, list | tuple):
            try:
                return tuple(ipaddress.ip_network(str(v).strip(), strict=False) for v in value)
            except ValueError as exc:
                raise ValueError(f"fetch_allow_networks: {exc}") from None
        return value

    @field_validator(
        "google_cx",
        "gemini_base_url",
        "gemini_api_version",
        "bedrock_region",
        "rekognition_region",
        "openai_model",
    )
    @classmethod
    def _blank_is_unset(cls, value: str | None) -> str | None:
        return value.strip() or None if isinstance(value, str) else value

    # ---- what is configured --------------------------------------------------------------

    def require_table(self) -> str:
        if not self.table_name:
            raise ConfigurationError(f"this function has no run memory ({ENV_TABLE_NAME} is not set)")
        return self.table_name

    def require_client_tokens(self) -> str:
        if not self.client_tokens_secret_arn:
            raise ConfigurationError(
                f"the authorizer has no client tokens ({ENV_CLIENT_TOKENS_SECRET_ARN} is not set)"
            )
        return self.client_tokens_secret_arn

    @staticmethod
    def env_name(field: str) -> str:
        """The environment variable that sets `field` (`brave_api_key` -> `VD_BRAVE_API_KEY`)."""
        return f"{ENV_PREFIX}{field.upper()}"

    def missing(self, *fields: str) -> list[str]:
        """The variables of `fields` that are not set (empty when all are)."""
        return [self.env_name(f) for f in fields if not _has(getattr(self, f))]

    def missing_for_search(self) -> list[str]:
        """Environment variables the chosen search engine still needs (empty when ready)."""
        if self.search_engine == "brave":
            return self.missing("brave_api_key")
        return self.missing("google_api_key", "google_cx")

    def missing_for_planner(self, name: str | None = None) -> list[str]:
        """What planner `name` (default: the configured one) still needs. Bedrock uses AWS
        credentials; an OpenAI-compatible server needs an address and a model (a key only if it
        asks for one)."""
        chosen = name or self.planner
        if chosen == "gemini":
            return self.missing("gemini_api_key")
        if chosen == "openai":
            return self.missing("openai_base_url", "openai_model")
        return []

    def with_provider_keys(self, secrets: SecretReader) -> Settings:
        """A copy with the provider keys the environment lacks filled from the provider-key secret
        (itself unchanged when no secret is named)."""
        if not self.provider_secret_arn:
            return self
        return self.with_secrets(secrets.get(self.provider_secret_arn, max_age=self.secret_cache_seconds))

    def with_secrets(self, values: dict[str, str]) -> Settings:
        """A copy where keys missing from the environment are filled from a secret's JSON values."""
        update: dict[str, Any] = {}
        for raw_key, raw_value in values.items():
            key = raw_key.lower().removeprefix("vd_")
            if key not in SECRET_FIELDS or not isinstance(raw_value, str) or not raw_value.strip():
                continue
            if getattr(self, key) is not None:
                continue  # the environment wins: lets an operator override one key
            value = raw_value.strip()
            if key == "openai_base_url":
                try:
                    value = _http_url(value) or ""
                except ValueError:
                    raise ConfigurationError(f"the secret's {key} is not an http(s) URL") from None
            update[key] = value if key in PLAIN_SECRET_FIELDS else SecretStr(value)
        return self.model_copy(update=update) if update else self

    def describe(self) -> dict[str, Any]:
        """Everything safe to print: secrets become 'set' / 'missing'."""
        shown: dict[str, Any] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, SecretStr) or name in SECRET_FIELDS:
                shown[name] = "set" if _has(value) else "missing"
            elif name == "fetch_allow_networks":
                shown[name] = [str(n) for n in value]
            elif name in ("run_defaults", "run_ceilings"):
                shown[name] = value.dump()
            else:
                shown[name] = value
        return shown

    def secret_values(self) -> list[str]:
        """The secret strings themselves, so output can be scrubbed of them (never print these)."""
        found = []
        for name in SECRET_FIELDS:
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                found.append(value.get_secret_value())
        return [v for v in found if v]


def _has(value: SecretStr | str | None) -> bool:
    if isinstance(value, SecretStr):
        return bool(value.get_secret_value().strip())
    return bool(value)


def load_settings(
    *,
    environ: Mapping[str, str] | None = None,
    env_file: str | Path | None = None,
    secrets: SecretReader | None = None,
    **overrides: Any,
) -> Settings:
    """The process's settings. `environ` (a Lambda's environment, as its runtime was given it) is
    read as given, with the dotenv file it names; without it, the process's environment and the
    dotenv file (`env_file`, else $VD_CONFIG_FILE). Then `overrides`; then, given `secrets`, the
    provider keys still missing from the provider-key secret (a Lambda's composition root adds
    them per invocation instead). Bad values raise ConfigurationError naming each variable."""
    source = os.environ if environ is None else environ
    if RENAMED_SECRET_ARN in source:
        raise ConfigurationError(
            f"{RENAMED_SECRET_ARN} is no longer read: name the provider-key secret in "
            f"{Settings.env_name('provider_secret_arn')} (the client tokens' is "
            f"{ENV_CLIENT_TOKENS_SECRET_ARN})"
        )
    file = env_file if env_file is not None else source.get(ENV_CONFIG_FILE) or None
    if file is not None and not Path(file).is_file():
        raise ConfigurationError(f"config file {file} does not exist")
    try:
        if environ is None:
            settings = Settings(_env_file=file, **overrides)
        else:
            given = {**_variables(dotenv_values(file) if file else {}), **_variables(environ), **overrides}
            settings = Settings.model_validate(given)
    except ValidationError as exc:
        raise ConfigurationError(f"invalid settings: {_problems(exc)}") from None
    return settings.with_provider_keys(secrets) if secrets is not None else settings


def _variables(environ: Mapping[str, str | None]) -> dict[str, str]:
    """`VD_BRAVE_API_KEY=…` as {"brave_api_key": …}, for the fields Settings has."""
    values = {}
    for name, value in environ.items():
        field = name.removeprefix(ENV_PREFIX).lower()
        if name.startswith(ENV_PREFIX) and value is not None and field in Settings.model_fields:
            values[field] = value
    return values


def _problems(exc: ValidationError) -> str:
    """Each problem with the variable it came from, and the field (`VD_RUN_DEFAULTS (run_defaults): …`)."""
    parts = []
    for error in exc.errors():
        loc = [str(part) for part in error["loc"]]
        where = (
            f"{Settings.env_name(loc[0])} ({'.'.join(loc)})"
            if loc and loc[0] in Settings.model_fields
            else "settings"
        )
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)
