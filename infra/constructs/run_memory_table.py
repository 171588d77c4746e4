"""Run memory: one on-demand DynamoDB table holding every run, connection and subscription.

Key layout beyond what `lifecycle/run_memory.py` keeps under `run#<id>` (the WebSocket side):

  pk                    sk              attributes
  conn#<connectionId>   meta            data {clientId, connectedAt}; TTL = connect + 2 h 10 min
  conn#<connectionId>   sub#<runId>     SUBSCRIBED_RUN_ATTRIBUTE = <runId>; TTL = the run's TTL
  run#<runId>           owner           data {clientId, runTokenSha256, shareTokenSha256, executionArn};
                                        TTL = the run's TTL

The `connectionsByRun` index is sparse: only subscription items carry `SUBSCRIBED_RUN_ATTRIBUTE`, so
the pusher's query "who listens to run R" reads nothing else; keys-only, because the connection id
is all it needs. Subscriptions live in the connection's partition so `$disconnect` and a 410 Gone
drop a connection with one query on `conn#<id>`.
"""

from __future__ import annotations

from aws_cdk import Stack
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from constructs import Construct

from infra.settings import DeploymentSettings
from visual_degrees.constants import (
    CONNECTIONS_BY_RUN_INDEX,
    PARTITION_KEY,
    SORT_KEY,
    SUBSCRIBED_RUN_ATTRIBUTE,
    TTL_ATTRIBUTE,
)

# Exactly the calls of adapters/aws/dynamodb_memory.py and adapters/aws/connections.py: single-item reads
# and writes, queries, BatchGetItem (a transaction's snapshot read) and BatchWriteItem (put_all: a
# page's titles, puts only). TransactWriteItems has no action of its own: IAM authorises each Put and
# Update inside it as PutItem / UpdateItem (the adapter sends no ConditionCheck or Delete in a
# transaction). No Scan, no table admin.
TABLE_ACTIONS = (
    "dynamodb:GetItem",
    "dynamodb:BatchGetItem",
    "dynamodb:BatchWriteItem",
    "dynamodb:Query",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
)
INDEX_ACTIONS = ("dynamodb:Query",)  # the pusher's "who listens to run R"; nothing reads it otherwise
# The `$connect` authorizer reads one run's access record to check a share token: nothing else.
READ_ITEM_ACTIONS = ("dynamodb:GetItem",)


def item_table(scope: Construct, settings: DeploymentSettings) -> dynamodb.Table:
    """An on-demand table of the Memory port's layout (pk/sk strings, TTL on the expiry attribute),
    with point-in-time recovery, as run memory and the evidence graph both are."""
    string = dynamodb.AttributeType.STRING
    return dynamodb.Table(
        scope,
        "Table",
        partition_key=dynamodb.Attribute(name=PARTITION_KEY, type=string),
        sort_key=dynamodb.Attribute(name=SORT_KEY, type=string),
        billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
        time_to_live_attribute=TTL_ATTRIBUTE,
        point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
            point_in_time_recovery_enabled=True
        ),
        # The AWS managed key (aws/dynamodb): encrypted at rest, key use visible in CloudTrail, no
        # key policy to own and no $1/month per key. The data is public names, celebrity ids and
        # image URLs (no face data), which does not justify a customer managed key.
        encryption=dynamodb.TableEncryption.AWS_MANAGED,
        removal_policy=settings.removal,
    )


class RunMemoryTable(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, settings: DeploymentSettings) -> None:
        super().__init__(scope, construct_id)
        string = dynamodb.AttributeType.STRING
        self.table = item_table(self, settings)
        self.table.add_global_secondary_index(
            index_name=CONNECTIONS_BY_RUN_INDEX,
            partition_key=dynamodb.Attribute(name=SUBSCRIBED_RUN_ATTRIBUTE, type=string),
            sort_key=dynamodb.Attribute(name=PARTITION_KEY, type=string),
            projection_type=dynamodb.ProjectionType.KEYS_ONLY,
        )

    def grant_items(self, grantee: iam.IGrantable) -> None:
        """Item access on the table, and queries on its one index, named: no `index/*` wildcard."""
        index_arn = Stack.of(self).format_arn(
            service="dynamodb",
            resource="table",
            resource_name=f"{self.table.table_name}/index/{CONNECTIONS_BY_RUN_INDEX}",
        )
        iam.Grant.add_to_principal(
            grantee=grantee, actions=list(TABLE_ACTIONS), resource_arns=[self.table.table_arn]
        )
        iam.Grant.add_to_principal(grantee=grantee, actions=list(INDEX_ACTIONS), resource_arns=[index_arn])

    def grant_read_item(self, grantee: iam.IGrantable) -> None:
        """GetItem on the table alone (the authorizer's read of a run's access record)."""
        iam.Grant.add_to_principal(
            grantee=grantee, actions=list(READ_ITEM_ACTIONS), resource_arns=[self.table.table_arn]
        )
