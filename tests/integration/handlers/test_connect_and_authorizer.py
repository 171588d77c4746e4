"""$connect: the token authorizer against the client-token secret, then the connection's record;
$disconnect drops the connection and nothing else."""

from __future__ import annotations

import json

import pytest

from tests.integration.handlers.helpers import CLIENT_TOKENS, TABLE, event, message
from visual_degrees.constants import ENV_CLIENT_TOKENS_SECRET_ARN
from visual_degrees.handlers import ws_authorizer, ws_connect, ws_disconnect, ws_start_run
from visual_degrees.handlers.wiring import using_runtime

METHOD_ARN = "arn:aws:execute-api:us-east-1:123456789012:abc123/live/$connect"


def authorize(token: str | None, context) -> dict:
    query = None if token is None else {"token": token}
    return ws_authorizer.handler(event("ws_authorizer_request", query=query), context)


def test_the_right_token_allows_the_connect_as_its_client(runtime, context, logs):
    # Given the client-token secret in Secrets Manager
    # When a client connects with its token
    answer = authorize(CLIENT_TOKENS["other"], context)
    # Then API Gateway gets an Allow for this connect, naming the client for every later route
    assert answer["principalId"] == "other" and answer["context"] == {"clientId": "other"}
    (statement,) = answer["policyDocument"]["Statement"]
    assert statement == {"Action": "execute-api:Invoke", "Effect": "Allow", "Resource": METHOD_ARN}
    assert CLIENT_TOKENS["other"] not in logs.getvalue()


@pytest.mark.parametrize(
    "token",
    [None, "", "tok-wrong", CLIENT_TOKENS["default"][:-1], CLIENT_TOKENS["default"] + "x", "x" * 10_000],
)
def test_a_missing_or_wrong_token_is_denied_without_an_error(runtime, context, logs, token):
    answer = authorize(token, context)
    (statement,) = answer["policyDocument"]["Statement"]
    assert statement["Effect"] == "Deny" and "context" not in answer
    output = logs.getvalue()
    assert "Traceback" not in output and all(t not in output for t in CLIENT_TOKENS.values())
    if token:
        assert token not in output


def test_an_unreadable_token_secret_denies_every_connect(aws, context, logs):
    # Given an authorizer whose secret does not exist
    broken = aws.runtime(
        environ={**aws.environ, ENV_CLIENT_TOKENS_SECRET_ARN: aws.tokens_secret_arn + "-gone"}
    )
    with using_runtime(broken):
        answer = authorize(CLIENT_TOKENS["default"], context)
    # Then it refuses (fails closed) and says why in the log, not to the client
    assert answer["policyDocument"]["Statement"][0]["Effect"] == "Deny"
    assert "tokens unavailable" in logs.getvalue()


def test_a_blank_stored_token_never_matches(aws, context):
    aws.secretsmanager.put_secret_value(
        SecretId=aws.tokens_secret_arn, SecretString=json.dumps({"blank": ""})
    )
    with using_runtime(aws.runtime()):
        assert authorize("", context)["principalId"] == "anonymous"
        assert authorize(" ", context)["policyDocument"]["Statement"][0]["Effect"] == "Deny"


def test_connect_records_the_connection_for_two_hours_and_ten_minutes(aws, runtime, context):
    answer = ws_connect.handler(event("ws_connect", connection_id="conn-1"), context)
    assert answer == {"statusCode": 200}
    (meta,) = aws.items("conn#conn-1")
    assert meta["sk"]["S"] == "meta" and json.loads(meta["data"]["S"])["clientId"] == "default"
    lifetime = int(meta["expiresAt"]["N"]) - json.loads(meta["data"]["S"])["connectedAt"]
    assert 2 * 3600 + 10 * 60 <= lifetime <= 2 * 3600 + 10 * 60 + 1


def test_connect_without_an_authorized_client_is_refused(aws, runtime, context):
    answer = ws_connect.handler(event("ws_connect", connection_id="conn-1", authorizer=None), context)
    assert answer == {"statusCode": 403}
    assert aws.items("conn#conn-1") == []


def test_disconnect_drops_the_connection_and_its_subscriptions_but_not_the_run(aws, runtime, context):
    # Given a connected client that started a run (so it is subscribed to it)
    ws_connect.handler(event("ws_connect", connection_id="conn-1"), context)
    body = {"action": "startRun", "personA": "Vesna Hawthorne", "personB": "Niall Halloran"}
    ws_start_run.handler(message("startRun", body, connection_id="conn-1"), context)
    run_id = aws.pushed("conn-1")[0]["runId"]
    assert {i["sk"]["S"] for i in aws.items("conn#conn-1")} == {"meta", f"sub#{run_id}"}
    # When it disconnects
    assert ws_disconnect.handler(event("ws_disconnect", connection_id="conn-1"), context) == {
        "statusCode": 200
    }
    # Then its items are gone and the run's are not
    assert aws.items("conn#conn-1") == []
    assert any(i["sk"]["S"] == "owner" for i in aws.items(f"run#{run_id}"))
    assert aws.dynamodb.describe_table(TableName=TABLE)["Table"]["ItemCount"] >= 1
