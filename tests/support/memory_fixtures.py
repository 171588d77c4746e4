"""Memory implementations for tests: every one the contract suite holds to the same behaviour.

`open_memory(kind, clock, tmp_path, client)` yields a fresh, empty store driven by `clock`. Starting
a moto mock costs ~0.3 s and a table ~5 ms, so a test module shares one `moto_dynamodb()` client and
every DynamoDB store gets a table of its own (`fresh_table`).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from tests.support.dynamodb_table import create_run_table
from tests.support.fakes import ManualClock
from visual_degrees.adapters.aws.dynamodb_memory import DynamoDbMemory
from visual_degrees.ports import Memory
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory

TABLE_NAME = "visual-degrees-run-memory"
REGION = "us-east-1"
KINDS = ("sqlite-file", "sqlite-memory", "dynamodb")

__all__ = [
    "KINDS",
    "START",
    "TABLE_NAME",
    "InterjectingClient",
    "ManualClock",
    "SerializedClient",
    "any_memory",
    "fresh_table",
    "manual_clock",
    "moto_dynamodb",
    "open_memory",
    "shared_moto_client",
]

_tables = itertools.count(1)


class SerializedClient:
    """A boto3 client whose calls run one at a time.

    moto's DynamoDB backend is not thread-safe (a transaction deep-copies the table and restores the
    copy on cancellation, erasing concurrent writes; a conditional update reads, checks and writes
    without a lock). Real DynamoDB is atomic per request, so serialising each request while threads
    interleave *between* requests reproduces exactly the races the adapter must survive.
    """

    def __init__(self, client: Any) -> None:
        self._client = client
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._client, name)

        def call(**request: Any) -> Any:
            with self._lock:
                return method(**request)

        return call


class InterjectingClient:
    """A boto3 client that runs `competitor` once, just before the first call of `operation`.

    It opens a chosen race window deterministically: another writer acts between two requests of
    the adapter, which thread scheduling would hit only by luck.
    """

    def __init__(self, client: Any, operation: str, competitor: Callable[[], object]) -> None:
        self._client = client
        self._operation = operation
        self._competitor: Callable[[], object] | None = competitor
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._client, name)

        def call(**request: Any) -> Any:
            self.calls.append(name)
            if name == self._operation and self._competitor is not None:
                competitor, self._competitor = self._competitor, None
                competitor()
            return method(**request)

        return call


@contextmanager
def moto_dynamodb(table_name: str = TABLE_NAME) -> Iterator[Any]:
    """A moto-backed low-level DynamoDB client with the run-memory table created."""
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        create_run_table(client, table_name)
        yield client


def fresh_table(client: Any) -> str:
    """Create a new, empty run-memory table in the mock behind `client`; its name."""
    name = f"{TABLE_NAME}-{next(_tables)}"
    create_run_table(client, name)
    return name


@contextmanager
def open_memory(kind: str, clock: ManualClock, tmp_path: Path, client: Any = None) -> Iterator[Memory]:
    """A fresh store of `kind`; DynamoDB needs `client`, a moto-backed client from `moto_dynamodb()`."""
    if kind == "dynamodb":
        if client is None:
            raise ValueError("a DynamoDB store needs the moto client of moto_dynamodb()")
        yield DynamoDbMemory(fresh_table(client), client=client, now=clock.now)
        return
    path = tmp_path / "state" / "memory.sqlite3" if kind == "sqlite-file" else ":memory:"
    with SqliteMemory(path, now=clock.now) as memory:
        yield memory


# ---- fixtures of the contract suites (the Memory port's and the evidence graph's) --------------
# A suite takes them as `from tests.support.memory_fixtures import clock, moto_client, memory`.

START = 1_767_225_600.0


@pytest.fixture(name="clock")
def manual_clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture(name="moto_client", scope="module")
def shared_moto_client() -> Iterator[Any]:
    with moto_dynamodb() as client:
        yield client


@pytest.fixture(name="memory", params=KINDS)
def any_memory(
    request: pytest.FixtureRequest, clock: ManualClock, tmp_path: Path, moto_client: Any
) -> Iterator[Memory]:
    """Each kind of store in turn (SQLite file, SQLite in memory, DynamoDB on moto), empty."""
    with open_memory(request.param, clock, tmp_path, moto_client) as store:
        yield store
