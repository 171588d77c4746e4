"""The run-memory table for moto-backed tests.

Kept in one function so it can later be built from the synthesized CDK template instead, and the
tests cannot drift from the infrastructure.
"""

from __future__ import annotations

from typing import Any

from visual_degrees.constants import PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE


def create_run_table(client: Any, table_name: str) -> None:
    """Create the run-memory table (pk/sk strings, on-demand, TTL on expiresAt) and wait for it."""
    client.create_table(
        TableName=table_name,
        KeySchema=[
            {"AttributeName": PARTITION_KEY, "KeyType": "HASH"},
            {"AttributeName": SORT_KEY, "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": PARTITION_KEY, "AttributeType": "S"},
            {"AttributeName": SORT_KEY, "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    client.get_waiter("table_exists").wait(TableName=table_name)
    client.update_time_to_live(
        TableName=table_name,
        TimeToLiveSpecification={"Enabled": True, "AttributeName": TTL_ATTRIBUTE},
    )
