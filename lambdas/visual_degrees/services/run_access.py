"""Who may use a run: the client that started it, or anyone holding its run token; and who may only
watch and read it: a holder of its share token (services/run_sharing.py).

The tokens are returned once (in `runAccepted`); only their hashes are stored, so a leaked table does
not leak access. Layout (shared with the deployed API): `run#<id>` / `owner` ->
{clientId, runTokenSha256, shareTokenSha256, ...extra such as executionArn}.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any

from visual_degrees.domain.errors import RunNotFound
from visual_degrees.domain.models import DEFAULT_TTL_SECONDS
from visual_degrees.ports import Memory, Put
from visual_degrees.services import run_sharing
from visual_degrees.services.event_log import run_pk

_SK = "owner"


def ttl_of(record: dict[str, Any]) -> int:
    """The run's memory TTL as its access record keeps it (older records: the default)."""
    return int(record.get("ttlSeconds", DEFAULT_TTL_SECONDS))


def stored_ttl(memory: Memory, run_id: str) -> int | None:
    """The run's memory TTL from its access record, None if the run has none (or it expired)."""
    item = memory.get(run_pk(run_id), _SK)
    return ttl_of(item.data) if item is not None else None


def client_of(memory: Memory, run_id: str) -> str | None:
    """The client that started the run (None for a run no client started: the CLI's)."""
    item = memory.get(run_pk(run_id), _SK)
    client = item.data.get("clientId") if item is not None else None
    return client if isinstance(client, str) and client else None


def _owns(record: dict[str, Any], caller: str, token: str | None) -> bool:
    """The caller started the run, or holds its run token."""
    if record.get("clientId") == caller:
        return True
    return token is not None and hmac.compare_digest(
        record.get("runTokenSha256", ""), run_sharing.digest(token)
    )


class RunAccess:
    def __init__(self, memory: Memory) -> None:
        self._memory = memory

    def register(self, run_id: str, owner: str, ttl_seconds: int, **extra: Any) -> str:
        """Record `owner` (the client id) for a new run; returns the run token."""
        token = secrets.token_urlsafe(24)
        record = {"clientId": owner, "runTokenSha256": run_sharing.digest(token), **extra}
        if not self._memory.put(Put(run_pk(run_id), _SK, record, ttl_seconds, if_absent=True)):
            raise RunNotFound(f"run id {run_id!r} is already taken")
        return token

    def update(self, run_id: str, **changes: Any) -> None:
        """Change facts of a run's record (a continuation's execution), keeping its owner and token;
        it lives the run's TTL from now (a continuation is a run going again)."""
        item = self._memory.get(run_pk(run_id), _SK)
        if item is None:
            raise RunNotFound(f"no run {run_id!r}")
        self._memory.put(Put(run_pk(run_id), _SK, {**item.data, **changes}, ttl_of(item.data)))

    def record(self, run_id: str, caller: str, token: str | None = None) -> dict[str, Any]:
        """The access record if `caller` owns the run or `token` is its token; else RunNotFound
        (the same answer as for a run that does not exist)."""
        item = self._memory.get(run_pk(run_id), _SK)
        if item is not None and _owns(item.data, caller, token):
            return item.data
        raise RunNotFound(f"no run {run_id!r} for this client")

    def readable(
        self, run_id: str, caller: str, token: str | None = None, share_token: str | None = None
    ) -> dict[str, Any]:
        """The access record if `caller` may watch and read the run: as `record` allows, or by the
        run's share token, or as the viewer a share token let in; else RunNotFound."""
        item = self._memory.get(run_pk(run_id), _SK)
        if item is not None and (
            _owns(item.data, caller, token)
            or run_sharing.viewed_run(caller) == run_id
            or run_sharing.matches(item.data.get(run_sharing.RECORD_FIELD), share_token)
        ):
            return item.data
        raise RunNotFound(f"no run {run_id!r} for this client")

    def shared(self, run_id: str, share_token: str | None) -> bool:
        """Whether `share_token` is the run's share token (a viewer's connect)."""
        item = self._memory.get(run_pk(run_id), _SK)
        return item is not None and run_sharing.matches(item.data.get(run_sharing.RECORD_FIELD), share_token)
