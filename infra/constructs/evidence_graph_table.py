"""The evidence graph: one on-demand DynamoDB table of every link runs proved, photo web by photo web
(layout: lifecycle/evidence_graph.py; one small item per link and per adjacency entry). Unlike run
memory it outlives runs: each item's TTL is the operator's retention (`graphRetentionDays`, default
180 days), and DynamoDB deletes expired items (reads already hide them).
"""

from __future__ import annotations

from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from constructs import Construct

from infra.settings import DeploymentSettings
from visual_degrees.constants import PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE

# Exactly the calls the graph store makes through adapters/aws/dynamodb_memory.py: reads of one
# item, queries of one person's adjacency, puts (PutItem, or UpdateItem over a live item) and the
# deletes of a link whose photo is gone. No BatchGetItem (no transactions here), no Scan.
GRAPH_ACTIONS = (
    "dynamodb:GetItem",
    "dynamodb:Query",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
)


class EvidenceGraphTable(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, settings: DeploymentSettings) -> None:
        super().__init__(scope, construct_id)
        string = dynamodb.AttributeType.STRING
        self.retention_days = settings.graph_retention_days
        self.table = dynamodb.Table(
            self,
            "Table",
            partition_key=dynamodb.Attribute(name=PARTITION_KEY, type=string),
            sort_key=dynamodb.Attribute(name=SORT_KEY, type=string),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            time_to_live_attribute=TTL_ATTRIBUTE,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            # As run memory: public names, celebrity ids and image URLs, no face data.
            encryption=dynamodb.TableEncryption.AWS_MANAGED,
            removal_policy=settings.removal,
        )

    def grant_links(self, grantee: iam.IGrantable) -> None:
        iam.Grant.add_to_principal(
            grantee=grantee, actions=list(GRAPH_ACTIONS), resource_arns=[self.table.table_arn]
        )
