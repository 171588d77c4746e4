"""The `$connect` REQUEST authorizer: `?token=` against the client-token secret ({clientId: token}),
or, with `&run=<run id>`, against that run's share token (services/run_sharing.py).

Allow yields an IAM policy for this connect (principal and context `clientId`, which API Gateway hands
to every route of the connection). A share token admits a viewer, `viewer:<run id>`: the routes'
one use case lets that connection watch and read its run and nothing else. A missing, unknown or
uncheckable token is a Deny (403), not an exception: a refused client is not a Lambda error, so it
cannot page anyone. Tokens are never logged.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

from visual_degrees.domain.errors import VisualDegreesError
from visual_degrees.handlers.observability import instrumented, logger
from visual_degrees.handlers.wiring import AwsRuntime, current_runtime
from visual_degrees.protocol import is_run_id
from visual_degrees.services import run_sharing
from visual_degrees.services.run_access import RunAccess

TOKEN_PARAMETER = "token"
ANONYMOUS = "anonymous"


class AuthorizerRequest(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    method_arn: str
    query_string_parameters: dict[str, str] | None = None

    @property
    def token(self) -> str | None:
        return (self.query_string_parameters or {}).get(TOKEN_PARAMETER)

    @property
    def run_id(self) -> str | None:
        """The run a share token is offered for, if it is shaped like a run id."""
        run_id = (self.query_string_parameters or {}).get(run_sharing.RUN_QUERY_PARAMETER)
        return run_id if is_run_id(run_id) else None


def access_policy(method_arn: str, client_id: str | None) -> dict[str, Any]:
    statement = {
        "Action": "execute-api:Invoke",
        "Effect": "Allow" if client_id else "Deny",
        "Resource": method_arn,
    }
    policy: dict[str, Any] = {
        "principalId": client_id or ANONYMOUS,
        "policyDocument": {"Version": "2012-10-17", "Statement": [statement]},
    }
    if client_id:
        policy["context"] = {"clientId": client_id}
    return policy


@instrumented
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        request = AuthorizerRequest.model_validate(event)
    except ValidationError:
        logger.warning("connect refused: not an authorizer request")
        return access_policy(str(event.get("methodArn", "")) if isinstance(event, dict) else "", None)
    runtime = current_runtime()
    try:
        client_id = runtime.identify_client(request.token)
    except VisualDegreesError as exc:  # no secret, no access: refuse rather than fail open
        logger.error("connect refused: tokens unavailable", extra={"code": exc.code, "reason": exc.message})
        client_id = None
    if client_id is None and request.run_id is not None:
        client_id = _viewer(runtime, request.run_id, request.token)
    if client_id is None:
        logger.info("connect refused", extra={"tokenGiven": bool(request.token)})
    else:
        logger.info("connect allowed", extra={"clientId": client_id})
    return access_policy(request.method_arn, client_id)


def _viewer(runtime: AwsRuntime, run_id: str, token: str | None) -> str | None:
    """The viewer id if `token` is the run's share token; None otherwise (or if it cannot be told)."""
    try:
        shared = RunAccess(runtime.memory).shared(run_id, token)
    except Exception as exc:  # an unreadable table refuses the viewer, as a missing secret a client
        logger.error("connect refused: run access unavailable", extra={"errorType": type(exc).__name__})
        return None
    return run_sharing.viewer_id(run_id) if shared else None
