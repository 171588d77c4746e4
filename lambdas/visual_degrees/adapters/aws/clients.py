"""boto3 clients built on first use: never at import or cold start unless a call needs one, and once
even when several threads (concurrent recognitions, the local server's runs) ask at the same time.
The one way every adapter here and in adapters/live gets its boto3 client."""

from __future__ import annotations

import threading
from typing import Any

from visual_degrees.domain.errors import ConfigurationError


class LazyClient:
    def __init__(
        self,
        service: str,
        client: Any | None = None,
        *,
        endpoint_url: str | None = None,
        region: str | None = None,
        label: str | None = None,
        **config: Any,
    ):
        """`client`: a ready client (tests pass moto- or Stubber-backed ones); `region`: None for
        boto3's usual lookup; `label`: the service as messages name it; `config`: botocore Config."""
        self._service = service
        self._client = client
        self._endpoint_url = endpoint_url
        self._region = region
        self._label = label or service
        self._config = config
        self._lock = threading.Lock()

    @property
    def built(self) -> bool:
        return self._client is not None

    def get(self) -> Any:
        """The client; ConfigurationError if boto3 cannot make one here (no region, say)."""
        with self._lock:
            if self._client is None:
                import boto3
                from botocore.config import Config

                try:
                    self._client = boto3.client(
                        self._service,
                        region_name=self._region,
                        endpoint_url=self._endpoint_url,
                        config=Config(**self._config),
                    )
                except Exception as exc:  # NoRegionError and friends: nothing to retry
                    raise ConfigurationError(
                        f"cannot create a {self._label} client: {type(exc).__name__}"
                    ) from None
            return self._client
