"""boto3 clients built on first use: never at import or cold start unless a call needs one, and once
even when several threads (concurrent recognitions, the local server's runs) ask at the same time."""

from __future__ import annotations

import threading
from typing import Any


class LazyClient:
    def __init__(
        self, service: str, client: Any | None = None, *, endpoint_url: str | None = None, **config: Any
    ):
        """`client`: a ready client (tests pass moto- or Stubber-backed ones); `config`: botocore Config."""
        self._service = service
        self._client = client
        self._endpoint_url = endpoint_url
        self._config = config
        self._lock = threading.Lock()

    @property
    def built(self) -> bool:
        return self._client is not None

    def get(self) -> Any:
        with self._lock:
            if self._client is None:
                import boto3
                from botocore.config import Config

                self._client = boto3.client(
                    self._service, endpoint_url=self._endpoint_url, config=Config(**self._config)
                )
            return self._client
