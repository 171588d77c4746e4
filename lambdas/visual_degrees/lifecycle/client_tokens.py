"""Who is connecting: a client token checked against the `{clientId: token}` secret.

Every stored token is compared, in constant time, whether or not an earlier one matched, so the time a
check takes says nothing about which client (or how much of a token) was right.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping

MAX_TOKEN_LENGTH = 512


def identify(token: str | None, tokens: Mapping[str, str]) -> str | None:
    """The client id whose token `token` is, or None. Blank stored tokens never match."""
    if not token or len(token) > MAX_TOKEN_LENGTH:
        return None
    offered = token.encode("utf-8")
    found: str | None = None
    for client_id, stored in tokens.items():
        if not isinstance(stored, str) or not stored.strip():
            continue
        if hmac.compare_digest(offered, stored.encode("utf-8")) and found is None:
            found = client_id
    return found
