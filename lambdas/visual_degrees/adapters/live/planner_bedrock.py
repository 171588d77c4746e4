"""Bedrock planner through the Converse API: the reply is forced into a tool call whose input
schema is the planner's wire schema, so the model answers with structured JSON, not prose.

One `converse` per `plan()`; throttling and 5xx are retried here (botocore's retries are off).
"""

from __future__ import annotations

from typing import Any

from visual_degrees.adapters.live.defaults import DEFAULT_BEDROCK_MODEL
from visual_degrees.adapters.live.http_retry import DEFAULT_RETRY, RetryPolicy, aws_call
from visual_degrees.adapters.live.planner_prompt import (
    PlannerWireReply,
    build_prompt,
    parse_reply_text,
    wire_schema,
)
from visual_degrees.domain.errors import ConfigurationError, ProviderError
from visual_degrees.domain.planning import PlannerContext, PlannerReply

TOOL_NAME = "submit_plan"
_TRANSIENT = {
    "ThrottlingException",
    "ServiceUnavailableException",
    "InternalServerException",
    "ModelTimeoutException",
    "ModelNotReadyException",
}
_CONFIGURATION = {
    "AccessDeniedException",
    "UnrecognizedClientException",
    "ResourceNotFoundException",
    "InvalidSignatureException",
    "ExpiredTokenException",
}


class BedrockPlanner:
    def __init__(
        self,
        model_id: str = DEFAULT_BEDROCK_MODEL,
        *,
        client: Any | None = None,
        region: str | None = None,
        timeout_seconds: float = 30.0,
        max_output_tokens: int = 1024,
        temperature: float = 0.2,
        retry: RetryPolicy = DEFAULT_RETRY,
    ) -> None:
        self._model_id = model_id
        self._client = client
        self._region = region
        self._timeout = timeout_seconds
        self._max_output_tokens = max_output_tokens
        self._temperature = temperature
        self._retry = retry

    @property
    def model(self) -> str:
        return self._model_id

    def _bedrock(self) -> Any:
        if self._client is None:
            import boto3
            from botocore.config import Config

            config = Config(connect_timeout=5, read_timeout=self._timeout, retries={"total_max_attempts": 1})
            try:
                self._client = boto3.client("bedrock-runtime", region_name=self._region, config=config)
            except Exception as exc:  # NoRegionError and friends
                raise ConfigurationError(f"cannot create a Bedrock client: {type(exc).__name__}") from None
        return self._client

    def request(self, context: PlannerContext) -> dict[str, Any]:
        """The Converse request for `context` (exposed so tests can check what is sent)."""
        prompt = build_prompt(context)
        return {
            "modelId": self._model_id,
            "system": [{"text": prompt.system}],
            "messages": [{"role": "user", "content": [{"text": prompt.user}]}],
            "inferenceConfig": {"maxTokens": self._max_output_tokens, "temperature": self._temperature},
            "toolConfig": {
                "tools": [
                    {
                        "toolSpec": {
                            "name": TOOL_NAME,
                            "description": "Submit the candidates to try, their queries and a narration.",
                            "inputSchema": {"json": wire_schema()},
                        }
                    }
                ],
                "toolChoice": {"tool": {"name": TOOL_NAME}},
            },
        }

    def ping(self) -> str:
        """Doctor check: a one-token Converse call (costs a handful of tokens)."""
        client = self._bedrock()
        request = {
            "modelId": self._model_id,
            "messages": [{"role": "user", "content": [{"text": "Reply with OK."}]}],
            "inferenceConfig": {"maxTokens": 1},
        }
        self._retry.run(lambda: _converse(client, request), what=f"Bedrock {self._model_id}")
        return f"model {self._model_id} answered"

    def plan(self, context: PlannerContext) -> PlannerReply:
        request = self.request(context)
        client = self._bedrock()
        answer = self._retry.run(lambda: _converse(client, request), what=f"Bedrock {self._model_id}")
        return reply_from_converse(answer)


def _converse(client: Any, request: dict[str, Any]) -> dict[str, Any]:
    return aws_call(
        lambda: client.converse(**request),
        service="Bedrock",
        transient=_TRANSIENT,
        configuration=_CONFIGURATION,
        refused="the call ({code}): check model access and the role",
        rejected="the request",
    )


def reply_from_converse(answer: Any) -> PlannerReply:
    """The plan from the forced tool call (or, failing that, JSON text), with token usage."""
    if not isinstance(answer, dict):
        raise ProviderError("Bedrock answer is not an object")
    output = _dict(answer.get("output"))
    content = _dict(output.get("message")).get("content")
    if not isinstance(content, list):
        content = []
    wire: PlannerWireReply | None = None
    for block in content:
        tool_use = block.get("toolUse") if isinstance(block, dict) else None
        if isinstance(tool_use, dict) and tool_use.get("name") == TOOL_NAME:
            try:
                wire = PlannerWireReply.model_validate(tool_use.get("input"))
            except ValueError:
                wire = None
            break
    if wire is None:
        text = "".join(
            b.get("text", "") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
        )
        wire = parse_reply_text(text)
    if wire is None:
        raise ProviderError(f"Bedrock gave no usable JSON plan (stop reason {answer.get('stopReason', '?')})")
    usage = answer.get("usage") or {}
    return PlannerReply(
        next_candidates=wire.nextCandidates,
        search_queries=wire.searchQueries,
        narration=wire.narration,
        tokens_in=int(usage.get("inputTokens", 0) or 0),
        tokens_out=int(usage.get("outputTokens", 0) or 0),
    )


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
