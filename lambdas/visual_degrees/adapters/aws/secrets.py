"""Secrets Manager behind settings.SecretReader: one JSON secret per ARN (the provider keys, the client
tokens), cached for `max_age` seconds by Powertools' SecretsProvider, so a warm Lambda re-reads
rarely and a rotated secret still reaches it. boto3's client is built on first use unless given."""

from __future__ import annotations

import threading
from typing import Any

from visual_degrees.domain.errors import ConfigurationError


class SecretsManagerSecrets:
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
