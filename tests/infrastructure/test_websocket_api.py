"""WebSocket API: the protocol's routes, the token authorizer, a throttled and logged stage."""

from __future__ import annotations

import json
from typing import Any

import pytest

from infra.constructs.functions import Need, handler_table
from infra.constructs.websocket_api import ROUTE_SELECTION, STAGE_NAME, TOKEN_QUERY_PARAMETER
from tests.infrastructure.queries import (
    as_list,
    function_for,
    functions_by_handler,
    handler_of,
    referenced_ids,
    render,
    resources,
    role_of_function,
    statements_of_role,
    statements_with_action,
)
from visual_degrees.constants import WEBSOCKET_ROUTES

pytestmark = pytest.mark.cdk


def _routes(raw: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        r["Properties"]["RouteKey"]: r["Properties"]
        for r in resources(raw, "AWS::ApiGatewayV2::Route").values()
    }


def _function_behind(raw: dict[str, Any], uri: Any) -> str:
    """The handler of the one function an integration or authorizer URI points at."""
    functions = resources(raw, "AWS::Lambda::Function")
    (function_id,) = referenced_ids(uri) & set(functions)
    return functions[function_id]["Properties"]["Handler"]


def test_api_routes_on_the_action_field_and_serves_exactly_the_protocol(
    template: Any, raw: dict[str, Any]
) -> None:
    template.has_resource_properties(
        "AWS::ApiGatewayV2::Api",
        {"ProtocolType": "WEBSOCKET", "RouteSelectionExpression": ROUTE_SELECTION},
    )
    assert ROUTE_SELECTION == "$request.body.action"
    assert set(_routes(raw)) == set(WEBSOCKET_ROUTES)


def test_each_route_integrates_the_handler_of_its_module(raw: dict[str, Any]) -> None:
    integrations = resources(raw, "AWS::ApiGatewayV2::Integration")
    for route_key, route in _routes(raw).items():
        (integration_id,) = referenced_ids(route["Target"]) & set(integrations)
        integration = integrations[integration_id]["Properties"]
        assert integration["IntegrationType"] == "AWS_PROXY", route_key
        assert _function_behind(raw, integration["IntegrationUri"]) == handler_of(WEBSOCKET_ROUTES[route_key])


def test_connect_is_authorized_by_a_request_authorizer_on_the_token_query_parameter(
    raw: dict[str, Any],
) -> None:
    # Given the only authorizer
    ((authorizer_id, authorizer),) = resources(raw, "AWS::ApiGatewayV2::Authorizer").items()
    props = authorizer["Properties"]

    # Then it is a Lambda REQUEST authorizer reading ?token=, run by the authorizer handler
    assert props["AuthorizerType"] == "REQUEST"
    assert props["IdentitySource"] == [f"route.request.querystring.{TOKEN_QUERY_PARAMETER}"]
    assert _function_behind(raw, props["AuthorizerUri"]) == handler_of("ws_authorizer")
    # And $connect uses it; message routes cannot have one on a WebSocket API
    routes = _routes(raw)
    assert routes["$connect"]["AuthorizationType"] == "CUSTOM"
    assert routes["$connect"]["AuthorizerId"] == {"Ref": authorizer_id}
    assert all(r.get("AuthorizationType", "NONE") == "NONE" for key, r in routes.items() if key != "$connect")


def test_stage_is_throttled_from_the_context_and_logs_access_without_the_token(
    raw: dict[str, Any], context: dict[str, Any]
) -> None:
    (stage,) = resources(raw, "AWS::ApiGatewayV2::Stage").values()
    props = stage["Properties"]

    assert props["StageName"] == STAGE_NAME and props["AutoDeploy"] is True
    assert props["DefaultRouteSettings"] == {
        "ThrottlingRateLimit": context["throttleRateLimit"],
        "ThrottlingBurstLimit": context["throttleBurstLimit"],
    }
    log_format = json.loads(props["AccessLogSettings"]["Format"])
    assert {"requestId", "connectionId", "routeKey", "status"} <= set(log_format)
    assert not [v for v in log_format.values() if "querystring" in v.lower() or "token" in v.lower()]
    (group_id,) = referenced_ids(props["AccessLogSettings"]["DestinationArn"])
    assert raw["Resources"][group_id]["Type"] == "AWS::Logs::LogGroup"


def test_only_pushing_functions_may_post_to_connections_of_this_stage(raw: dict[str, Any]) -> None:
    (api_id,) = resources(raw, "AWS::ApiGatewayV2::Api")
    for spec in handler_table():
        _, function = function_for(raw, spec.module)
        grants = statements_with_action(
            statements_of_role(raw, role_of_function(function)), "execute-api:ManageConnections"
        )
        assert bool(grants) == (Need.PUSH in spec.needs), spec.module
        for statement in grants:
            for resource in as_list(statement["Resource"]):
                assert render(resource).endswith(f":<{api_id}>/{STAGE_NAME}/POST/@connections/*"), spec.module


def test_api_gateway_may_invoke_the_route_functions_and_the_authorizer_only(raw: dict[str, Any]) -> None:
    permissions = resources(raw, "AWS::Lambda::Permission").values()
    invoked = {
        next(iter(referenced_ids(p["Properties"]["FunctionName"])))
        for p in permissions
        if p["Properties"]["Principal"] == "apigateway.amazonaws.com"
    }
    by_handler = functions_by_handler(raw)
    expected = {by_handler[handler_of(m)][0] for m in [*WEBSOCKET_ROUTES.values(), "ws_authorizer"]}
    assert invoked == expected


def test_account_logging_role_outlives_the_stack_and_precedes_the_stage(raw: dict[str, Any]) -> None:
    ((account_id, account),) = resources(raw, "AWS::ApiGateway::Account").items()
    role_id = account["Properties"]["CloudWatchRoleArn"]["Fn::GetAtt"][0]
    assert raw["Resources"][role_id]["DeletionPolicy"] == "Retain"
    (stage,) = resources(raw, "AWS::ApiGatewayV2::Stage").values()
    assert account_id in stage["DependsOn"]


def test_the_stack_outputs_what_an_operator_needs_to_connect(raw: dict[str, Any]) -> None:
    outputs = raw["Outputs"]
    assert {"WebSocketUrl", "StateMachineArn", "ProviderKeysSecretArn", "ClientTokensSecretArn"} <= set(
        outputs
    )
    url = render(outputs["WebSocketUrl"]["Value"])
    (api_id,) = resources(raw, "AWS::ApiGatewayV2::Api")
    assert url.startswith(f"wss://<{api_id}>.execute-api.") and url.endswith(f"/{STAGE_NAME}")
