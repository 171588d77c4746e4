"""WebSocket API: the client protocol (lambdas/visual_degrees/protocol.py) on API Gateway v2.

Routes select on `$request.body.action`. `$connect` runs a Lambda REQUEST authorizer that checks the
`token` query-string parameter against the client-token secret; API Gateway authorizes a WebSocket
once, at connect, so the message routes carry no authorizer of their own. One stage, throttled, with
JSON access logs (never the query string: it holds the token).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import jsii
from aws_cdk import RemovalPolicy, Stack, Validations
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_apigatewayv2_authorizers as authorizers
from aws_cdk import aws_apigatewayv2_integrations as integrations
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra.nag import acknowledge, acknowledge_wildcard
from infra.settings import DeploymentSettings
from visual_degrees.domain.errors import ConfigurationError

STAGE_NAME = "live"
ROUTE_SELECTION = "$request.body.action"
TOKEN_QUERY_PARAMETER = "token"
SPECIAL_ROUTES = ("$connect", "$disconnect", "$default")
ACCESS_LOG_FIELDS = {
    "requestId": "$context.requestId",
    "messageId": "$context.messageId",
    "connectionId": "$context.connectionId",
    "eventType": "$context.eventType",
    "routeKey": "$context.routeKey",
    "status": "$context.status",
    "error": "$context.error.message",
    "integrationError": "$context.integrationErrorMessage",
    "authorizerError": "$context.authorizer.error",
    "principalId": "$context.authorizer.principalId",
    "sourceIp": "$context.identity.sourceIp",
    "requestTimeEpoch": "$context.requestTimeEpoch",
}


@jsii.implements(apigwv2.IAccessLogSettings)
class _AccessLogs:
    def __init__(self, log_group: logs.ILogGroup) -> None:
        self._destination = apigwv2.LogGroupLogDestination(log_group)

    @property
    def destination(self) -> apigwv2.IAccessLogDestination:
        return self._destination

    @property
    def format(self) -> apigw.AccessLogFormat:
        return apigw.AccessLogFormat.custom(json.dumps(ACCESS_LOG_FIELDS, separators=(",", ":")))


class WebSocketGateway(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        routes: Mapping[str, lambda_.IFunction],
        authorizer: lambda_.IFunction,
        settings: DeploymentSettings,
    ) -> None:
        """`routes`: route key -> function, for every key of constants.WEBSOCKET_ROUTES."""
        super().__init__(scope, construct_id)
        missing = [key for key in SPECIAL_ROUTES if key not in routes]
        if missing:
            raise ConfigurationError(f"the WebSocket API needs handlers for {missing}")

        def integration(route_key: str) -> integrations.WebSocketLambdaIntegration:
            name = route_key.strip("$")
            name = name[:1].upper() + name[1:]
            return integrations.WebSocketLambdaIntegration(f"{name}Integration", routes[route_key])

        self.api = apigwv2.WebSocketApi(
            self,
            "Api",
            description="Visual Degrees: start, watch, cancel and read runs",
            route_selection_expression=ROUTE_SELECTION,
            connect_route_options=apigwv2.WebSocketRouteOptions(
                integration=integration("$connect"),
                authorizer=authorizers.WebSocketLambdaAuthorizer(
                    "TokenAuthorizer",
                    authorizer,
                    identity_source=[f"route.request.querystring.{TOKEN_QUERY_PARAMETER}"],
                ),
            ),
            disconnect_route_options=apigwv2.WebSocketRouteOptions(integration=integration("$disconnect")),
            default_route_options=apigwv2.WebSocketRouteOptions(integration=integration("$default")),
        )
        for route_key in routes:
            if route_key not in SPECIAL_ROUTES:
                self.api.add_route(route_key, integration=integration(route_key))

        self.access_logs = logs.LogGroup(
            self,
            "AccessLogs",
            retention=settings.log_retention,
            removal_policy=settings.removal,
        )
        self.stage = apigwv2.WebSocketStage(
            self,
            "Stage",
            web_socket_api=self.api,
            stage_name=STAGE_NAME,
            auto_deploy=True,
            throttle=apigwv2.ThrottleSettings(
                rate_limit=settings.throttle_rate_limit, burst_limit=settings.throttle_burst_limit
            ),
            access_log_settings=_AccessLogs(self.access_logs),
        )
        if settings.api_gateway_cloudwatch_role:
            self._account_logging_role()

        Validations.of(self.api).acknowledge(
            acknowledge(
                "AwsSolutions-APIG4",
                "API Gateway authorizes a WebSocket connection once, on $connect (the token authorizer); "
                "message routes cannot carry an authorizer and act for the connection's client only.",
            )
        )

    def _account_logging_role(self) -> None:
        """API Gateway writes WebSocket logs with the region's account-level CloudWatch role."""
        role = iam.Role(
            self,
            "ApiGatewayLogsRole",
            assumed_by=iam.ServicePrincipal("apigateway.amazonaws.com"),
            managed_policies=[
                iam.ManagedPolicy.from_aws_managed_policy_name(
                    "service-role/AmazonAPIGatewayPushToCloudWatchLogs"
                )
            ],
        )
        # Kept on teardown: the region-wide setting outlives this stack and must not point at nothing.
        role.apply_removal_policy(RemovalPolicy.RETAIN)
        account = apigw.CfnAccount(self, "ApiGatewayAccount", cloud_watch_role_arn=role.role_arn)
        self.stage.node.add_dependency(account)
        Validations.of(role).acknowledge(
            acknowledge(
                "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]",
                "The account-wide API Gateway logging role serves every API in the region, including "
                "other stacks' execution logs; AWS maintains this policy for exactly that role.",
            )
        )

    @property
    def callback_url(self) -> str:
        """https://…/live: the PostToConnection endpoint (VD_WEBSOCKET_ENDPOINT)."""
        return self.stage.callback_url

    @property
    def url(self) -> str:
        """wss://…/live: what clients connect to."""
        return self.stage.url

    @property
    def push_arn(self) -> str:
        """PostToConnection (POST) on this stage's connections; not GET or DELETE of a connection."""
        return Stack.of(self).format_arn(
            service="execute-api",
            resource=self.api.api_id,
            resource_name=f"{self.stage.stage_name}/POST/@connections/*",
        )

    def grant_push(self, grantee: iam.IGrantable) -> iam.Grant:
        grant = iam.Grant.add_to_principal(
            grantee=grantee, actions=["execute-api:ManageConnections"], resource_arns=[self.push_arn]
        )
        acknowledge_wildcard(
            grantee,
            self.push_arn,
            "Connection ids exist only at runtime; the grant is PostToConnection on this API's one "
            "stage, the narrowest execute-api ARN that can name a future connection.",
        )
        return grant
