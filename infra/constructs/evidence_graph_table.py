"""The evidence graph: one on-demand DynamoDB table of every link runs proved, photo web by photo web
(layout: lifecycle/evidence_graph.py; one small item per link and per adjacency entry). Unlike run
memory it outlives runs: each item's TTL is the operator's retention (`graphRetentionDays`, default
180 days), and DynamoDB deletes expired items (reads already hide them).
"""

from __future__ import annotations

from aws_cdk import aws_iam as iam
from constructs import Construct

from infra.constructs.run_memory_table import item_table
from infra.settings import DeploymentSettings

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
        self.retention_days = settings.graph_retention_days
        self.table = item_table(self, settings)

    def grant_links(self, grantee: iam.IGrantable) -> None:
        iam.Grant.add_to_principal(
            grantee=grantee, actions=list(GRAPH_ACTIONS), resource_arns=[self.table.table_arn]
        )
