"""Run ids: sortable by start time (UTC, to the second) and unique, valid as execution names."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime


def new_run_id() -> str:
    return f"{datetime.now(UTC):%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"
