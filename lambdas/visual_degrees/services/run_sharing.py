"""Share tokens: read-only access to one run, for anyone its starter gives the run's share link.

A run has two tokens, both drawn at its start and both kept only as a hash in its access record
(services/run_access.py): the run token (`runAccepted.runToken`) lets its holder do what the starter
can (subscribe, cancel, continue, read), the share token (`runAccepted.shareToken`) lets its holder
watch the run and read it (subscribe, getRun, getGraph) and nothing else. A share token is 192
random bits, compared by its SHA-256 in constant time, and never logged or repeated in a reply.

Two ways to hold one:
- in a message: `subscribe`, `getRun` and `getGraph` accept `shareToken` beside `runToken`, on any
  connection (the local server without `--token` lets anyone connect);
- at connect, where a client token is required (the deployed `$connect` authorizer, `serve
  --token`): `?token=<share token>&run=<run id>` opens a viewer's connection, whose client id is
  `viewer:<run id>`. A viewer may subscribe to, get and read the graph of that run only; any other
  action is refused with `read_only`, any other run is `run_not_found` (as for a run nobody
  started), so a share token opens one run and nothing else.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from visual_degrees.domain.errors import RunNotFound
from visual_degrees.protocol import READ_ONLY, AnyMessage, ProtocolError

SHARE_TOKEN_BYTES = 24  # 192 bits: 32 URL-safe characters
MAX_SHARE_TOKEN_LENGTH = 128
RECORD_FIELD = "shareTokenSha256"  # in the run's access record
VIEWER_PREFIX = "viewer:"
READ_ACTIONS = frozenset({"subscribe", "getRun", "getGraph"})
RUN_QUERY_PARAMETER = "run"  # beside `token` when a share token opens the connection


def new_share_token() -> str:
    return secrets.token_urlsafe(SHARE_TOKEN_BYTES)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def matches(stored: object, token: str | None) -> bool:
    """Whether `token` is the share token whose digest the run's record keeps (constant time)."""
    if not isinstance(stored, str) or not stored or not token or len(token) > MAX_SHARE_TOKEN_LENGTH:
        return False
    return hmac.compare_digest(stored, digest(token))


def viewer_id(run_id: str) -> str:
    """The client id of a connection a share token opened: it can only ever view `run_id`."""
    return VIEWER_PREFIX + run_id


def viewed_run(client_id: str) -> str | None:
    """The run a viewer's connection may read; None for a client's own connection."""
    return client_id[len(VIEWER_PREFIX) :] if client_id.startswith(VIEWER_PREFIX) else None


def check_viewer(client_id: str, message: AnyMessage) -> None:
    """Refuse what a viewer's connection may not do: any action but reading its run, or another run."""
    run_id = viewed_run(client_id)
    if run_id is None:
        return
    if message.action not in READ_ACTIONS:
        raise ProtocolError(
            READ_ONLY,
            "This connection was opened with a share link: it can watch that one run and read it, "
            "not start, cancel or continue runs.",
            message.action,
        )
    if getattr(message, "run_id", None) != run_id:
        raise RunNotFound("no such run for this client")
