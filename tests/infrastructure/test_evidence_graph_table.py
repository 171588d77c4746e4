"""The evidence graph's table: its own, on demand, pk/sk, TTL (the retention), PITR, encrypted; only
the steps that prove links may touch it, with exactly the graph store's calls; the retention is the
operator's (`graphRetentionDays`) and reaches those functions."""

from __future__ import annotations

from typing import Any

import pytest

from tests.infrastructure.queries import (
    actions_of,
    as_list,
    functions_by_handler,
    handler_of,
    referenced_ids,
    resources,
    role_of_function,
    statements_of_role,
)
from tests.support.cdk_template import synthesis
from visual_degrees.constants import (
    ENV_GRAPH_RETENTION_DAYS,
    ENV_GRAPH_TABLE_NAME,
    PARTITION_KEY,
    SORT_KEY,
    TTL_ATTRIBUTE,
)

pytestmark = pytest.mark.cdk

GRAPH_STEPS = {
    "direct_edge_attempt",
    "candidate_discovery",
    "select_next_expansion",
    "verify_next_edge",
    "bridge_toward_target",
    "finalize_success",
}


def graph_table(raw: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    (found,) = [
        (lid, r)
        for lid, r in resources(raw, "AWS::DynamoDB::Table").items()
        if lid.startswith("EvidenceGraph")
    ]
    return found


def test_a_table_of_its_own_with_ttl_recovery_and_encryption(raw: dict[str, Any]) -> None:
    # Given the synthesized app / When reading the evidence graph's table
    _, table = graph_table(raw)
    props = table["Properties"]
    # Then it is keyed pk/sk, on demand, expires items on the TTL attribute, and is recoverable
    assert props["KeySchema"] == [
        {"AttributeName": PARTITION_KEY, "KeyType": "HASH"},
        {"AttributeName": SORT_KEY, "KeyType": "RANGE"},
    ]
    assert props["BillingMode"] == "PAY_PER_REQUEST" and "GlobalSecondaryIndexes" not in props
    assert props["TimeToLiveSpecification"] == {"AttributeName": TTL_ATTRIBUTE, "Enabled": True}
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert props["SSESpecification"] == {"SSEEnabled": True}


def test_only_the_steps_that_prove_links_may_touch_it_and_only_as_the_store_does(raw: dict[str, Any]) -> None:
    table_id, _ = graph_table(raw)
    granted: set[str] = set()
    for handler, (_, props) in functions_by_handler(raw).items():
        statements = [
            s
            for s in statements_of_role(raw, role_of_function(props))
            if table_id in referenced_ids(s["Resource"])
        ]
        if not statements:
            continue
        granted.add(handler)
        # Then exactly the graph store's calls, on the table alone (no index, no wildcard, no Scan)
        assert actions_of(statements) == {
            "dynamodb:GetItem",
            "dynamodb:Query",
            "dynamodb:PutItem",
            "dynamodb:UpdateItem",
            "dynamodb:DeleteItem",
        }
        assert all(len(as_list(s["Resource"])) == 1 for s in statements)
        env = props["Environment"]["Variables"]
        assert (
            table_id in referenced_ids(env[ENV_GRAPH_TABLE_NAME]) and env[ENV_GRAPH_RETENTION_DAYS] == "180"
        )
    assert granted == {handler_of(step) for step in GRAPH_STEPS}


def test_the_retention_is_the_operators_context() -> None:
    # Given `cdk synth -c graphRetentionDays=30`
    template = synthesis(graphRetentionDays="30").template
    # Then every function of the graph keeps links 30 days
    kept = {
        props["Environment"]["Variables"].get(ENV_GRAPH_RETENTION_DAYS)
        for _, props in functions_by_handler(template).values()
    }
    assert kept == {None, "30"}
