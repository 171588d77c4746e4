"""Live-provider settings: environment variables (prefix `VD_`), an optional dotenv file, and, when
deployed, API keys from one Secrets Manager secret (`VD_SECRET_ARN`), cached per warm container.

Every endpoint is configuration so the same adapters run against a regional proxy, a recorded-
response server or a test double on 127.0.0.1 (AWS endpoints use boto3's own
`AWS_ENDPOINT_URL_<SERVICE>` variables). Keys are `SecretStr`: hidden from repr, logs and the doctor.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from visual_degrees.adapters.live.defaults import (
    BRAVE_IMAGES_ENDPOINT,
    CLIENT_RATE_SHARE,
    DEFAULT_BEDROCK_MODEL,
    DEFAULT_GEMINI_MODEL,
    DEFAULT_OPENAI_RESPONSE_FORMAT,
    GOOGLE_CSE_ENDPOINT,
    REKOGNITION_MAX_IMAGE_BYTES,
    REKOGNITION_MIN_SIDE,
)
from visual_degrees.constants import ENV_CONFIG_FILE, ENV_PREFIX, ENV_SECRET_ARN
from visual_degrees.domain.errors import ConfigurationError

logger = logging.getLogger(__name__)

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


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        validate_default=True,
    )

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

    # Deployed: where the API keys live, and how long a warm container trusts its copy.
    secret_arn: str | None = Field(default=None, validation_alias=AliasChoices(ENV_SECRET_ARN, "secret_arn"))
    secret_cache_seconds: float = Field(default=300.0, ge=0, le=86_400)

    @field_validator("brave_endpoint", "google_endpoint", "gemini_base_url", "openai_base_url")
    @classmethod
    def _endpoints_are_http(cls, value: str | None) -> str | None:
        return _http_url(value)

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


# ---- secrets from Secrets Manager ---------------------------------------------------------


class SecretsManagerSecrets:
    """One JSON secret per ARN, cached for `max_age` seconds (a warm Lambda re-reads rarely) by
    Powertools' SecretsProvider; boto3's client is built on first use unless one is given."""

    def __init__(self, client: Any | None = None, *, max_age: int = 300) -> None:
        self._client = client
        self._max_age = max_age
        self._provider: Any | None = None
        self._lock = threading.Lock()

    def _secrets(self) -> Any:
        with self._lock:
            if self._provider is None:
                from aws_lambda_powertools.utilities.parameters import SecretsProvider  # deployed only

                self._provider = SecretsProvider(boto3_client=self._client)
            return self._provider

    def get(self, arn: str, *, max_age: float | None = None) -> dict[str, str]:
        from aws_lambda_powertools.utilities.parameters.exceptions import (
            GetParameterError,
            TransformParameterError,
        )

        age = int(self._max_age if max_age is None else max_age)
        try:
            values = self._secrets().get(arn, max_age=age, transform="json")
        except GetParameterError as exc:
            raise ConfigurationError(f"cannot read secret {arn}: {_reason(exc)}") from None
        except TransformParameterError:
            values = None
        if not isinstance(values, dict):
            raise ConfigurationError(f"secret {arn} must hold a JSON object of API keys")
        return {str(k): v for k, v in values.items() if isinstance(v, str)}


def _reason(exc: BaseException) -> str:
    """The AWS error code behind Powertools' GetParameterError (never its message: it names the account)."""
    cause = exc.__cause__ or exc.__context__
    response = getattr(cause, "response", None)
    if isinstance(response, dict):
        return str(response.get("Error", {}).get("Code", "Unknown"))
    return type(cause).__name__ if cause is not None else "Unknown"


_DEFAULT_SECRETS = SecretsManagerSecrets()


def load_settings(
    *,
    env_file: str | Path | None = None,
    secrets: SecretsManagerSecrets | None = None,
    environ: Mapping[str, str] | None = None,
    **overrides: Any,
) -> Settings:
    """Settings from the environment (os.environ, or `environ`: a Lambda's, as its runtime was
    given it), then the dotenv file (`env_file` or $VD_CONFIG_FILE), then the deployment secret for
    keys still missing. Bad values raise ConfigurationError by name."""
    if environ is not None:
        given = {
            k.removeprefix(ENV_PREFIX).lower(): v for k, v in environ.items() if k.startswith(ENV_PREFIX)
        }
        overrides = {**{k: v for k, v in given.items() if k in Settings.model_fields}, **overrides}
    source = os.environ if environ is None else environ
    file = env_file if env_file is not None else source.get(ENV_CONFIG_FILE) or None
    if file is not None and not Path(file).is_file():
        raise ConfigurationError(f"config file {file} does not exist")
    try:
        settings = Settings(_env_file=file, **overrides)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'settings'}: {e['msg']}" for e in exc.errors()
        )
        raise ConfigurationError(f"invalid settings: {problems}") from None
    if settings.secret_arn:
        store = secrets or _DEFAULT_SECRETS
        settings = settings.with_secrets(
            store.get(settings.secret_arn, max_age=settings.secret_cache_seconds)
        )
    return settings
