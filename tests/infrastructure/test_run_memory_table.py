"""Run memory: one on-demand table, pk/sk, TTL, PITR, encryption, the connections-by-run index."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from aws_cdk.assertions import Match
from moto import mock_aws

from tests.infrastructure.queries import resources
from tests.support.cdk_template import run_table_definition, run_table_ttl
from visual_degrees.constants import (
    CONNECTIONS_BY_RUN_INDEX,
    PARTITION_KEY,
    SORT_KEY,
    SUBSCRIBED_RUN_ATTRIBUTE,
    TTL_ATTRIBUTE,
)

pytestmark = pytest.mark.cdk


def test_one_on_demand_table_keyed_by_the_shared_constants(template: Any) -> None:
    # Given the synthesized app / When reading its tables / Then there are two (run memory and the
    # evidence graph), keyed pk/sk, on demand
    template.resource_count_is("AWS::DynamoDB::Table", 2)
    template.has_resource_properties(
        "AWS::DynamoDB::Table",
        {
            "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [
                {"AttributeName": PARTITION_KEY, "KeyType": "HASH"},
                {"AttributeName": SORT_KEY, "KeyType": "RANGE"},
            ],
        },
    )


def test_ttl_point_in_time_recovery_and_encryption_are_on(template: Any) -> None:
    template.has_resource_properties(
        "AWS::DynamoDB::Table",
        {
            "TimeToLiveSpecification": {"AttributeName": TTL_ATTRIBUTE, "Enabled": True},
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
            # SSEEnabled true = the AWS managed KMS key (false or absent would be an AWS owned key).
            "SSESpecification": {"SSEEnabled": True},
        },
    )


def test_connections_by_run_index_is_keys_only_on_the_subscription_attribute(template: Any) -> None:
    template.has_resource_properties(
        "AWS::DynamoDB::Table",
        {
            "GlobalSecondaryIndexes": [
                {
                    "IndexName": CONNECTIONS_BY_RUN_INDEX,
                    "KeySchema": [
                        {"AttributeName": SUBSCRIBED_RUN_ATTRIBUTE, "KeyType": "HASH"},
                        {"AttributeName": PARTITION_KEY, "KeyType": "RANGE"},
                    ],
                    "Projection": {"ProjectionType": "KEYS_ONLY"},
                }
            ],
            "AttributeDefinitions": Match.array_with(
                [{"AttributeName": SUBSCRIBED_RUN_ATTRIBUTE, "AttributeType": "S"}]
            ),
        },
    )


def test_removal_policy_follows_the_context(raw: dict[str, Any], context: dict[str, Any]) -> None:
    # Given cdk.json's removalPolicy / Then each table's deletion policy matches it
    expected = {"destroy": "Delete", "retain": "Retain"}[context["removalPolicy"]]
    tables = resources(raw, "AWS::DynamoDB::Table").values()
    assert [(t["DeletionPolicy"], t["UpdateReplacePolicy"]) for t in tables] == [(expected, expected)] * 2


@mock_aws
def test_a_moto_table_built_from_the_template_answers_who_listens_to_a_run() -> None:
    # Given a moto table created from the template's definition, one connection's meta item and
    # subscriptions of two connections (the key layout documented in run_memory_table.py)
    client = boto3.client("dynamodb", region_name="us-east-1")
    client.create_table(TableName="runs", **run_table_definition())
    client.update_time_to_live(TableName="runs", TimeToLiveSpecification=run_table_ttl())
    items = [
        {"pk": "conn#c1", "sk": "meta", "data": '{"clientId": "alice"}'},
        {"pk": "conn#c1", "sk": "sub#r1", SUBSCRIBED_RUN_ATTRIBUTE: "r1"},
        {"pk": "conn#c2", "sk": "sub#r1", SUBSCRIBED_RUN_ATTRIBUTE: "r1"},
        {"pk": "conn#c2", "sk": "sub#r2", SUBSCRIBED_RUN_ATTRIBUTE: "r2"},
    ]
    for item in items:
        client.put_item(TableName="runs", Item={k: {"S": v} for k, v in item.items()})

    # When the pusher asks the index for run r1
    reply = client.query(
        TableName="runs",
        IndexName=CONNECTIONS_BY_RUN_INDEX,
        KeyConditionExpression="#run = :run",
        ExpressionAttributeNames={"#run": SUBSCRIBED_RUN_ATTRIBUTE},
        ExpressionAttributeValues={":run": {"S": "r1"}},
    )

    # Then exactly the two subscribed connections come back, and no meta item is in the index
    assert sorted(item["pk"]["S"] for item in reply["Items"]) == ["conn#c1", "conn#c2"]
    assert all(item["sk"]["S"].startswith("sub#") for item in reply["Items"])
    ttl = client.describe_time_to_live(TableName="runs")["TimeToLiveDescription"]
    assert ttl["AttributeName"] == TTL_ATTRIBUTE
