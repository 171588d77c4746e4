"""Bedrock planner through the Converse API: the reply is forced into a tool call whose input
schema is the request's wire schema (`submit_plan` for a plan, `submit_links` for connect), so the
model answers with structured JSON, not prose.

One `converse` per `plan()` or `connect()`; throttling and 5xx are retried here (botocore's retries
are off).
"""

from __future__ import annotations

from typing import Any

from visual_degrees.adapters.aws.clients import LazyClient
from visual_degrees.adapters.live.http_retry import DEFAULT_RETRY, RetryPolicy, aws_call
from visual_degrees.adapters.live.planner_prompt import (
    PLAN,
    PlannerPrompt,
    PromptedPlanner,
    ProviderAnswer,
    ReplyFormat,
    reported_tokens,
)
from visual_degrees.domain.errors import ProviderError
from visual_degrees.settings import DEFAULT_BEDROCK_MODEL

TOOL_NAME = PLAN.tool
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


class BedrockPlanner(PromptedPlanner):
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
        self._clients = LazyClient(
            "bedrock-runtime",
            client,
            region=region,
            label="Bedrock",
            connect_timeout=5,
            read_timeout=timeout_seconds,
            retries={"total_max_attempts": 1},
        )
        self._max_output_tokens = max_output_tokens
        self._temperature = temperature
        self._retry = retry

    @property
    def model(self) -> str:
        return self._model_id

    @property
    def who(self) -> str:
        return f"Bedrock {self._model_id}"

    def _bedrock(self) -> Any:
        return self._clients.get()

    def request(self, prompt: PlannerPrompt, answer: ReplyFormat[Any, Any]) -> dict[str, Any]:
        """The Converse request for `prompt`, its answer forced into `answer`'s tool (exposed so
        tests can check what is sent)."""
        return {
            "modelId": self._model_id,
            "system": [{"text": prompt.system}],
            "messages": [{"role": "user", "content": [{"text": prompt.user}]}],
            "inferenceConfig": {"maxTokens": self._max_output_tokens, "temperature": self._temperature},
            "toolConfig": {
                "tools": [
                    {
                        "toolSpec": {
                            "name": answer.tool,
                            "description": answer.description,
                            "inputSchema": {"json": answer.schema()},
                        }
                    }
                ],
                "toolChoice": {"tool": {"name": answer.tool}},
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
        self._retry.run(lambda: _converse(client, request), what=self.who)
        return f"model {self._model_id} answered"

    def _send(self, prompt: PlannerPrompt, answer: ReplyFormat[Any, Any]) -> ProviderAnswer:
        request = self.request(prompt, answer)
        client = self._bedrock()
        document = self._retry.run(lambda: _converse(client, request), what=self.who)
        return answer_from_converse(document, answer.tool)


def _converse(client: Any, request: dict[str, Any]) -> dict[str, Any]:
    return aws_call(
        lambda: client.converse(**request),
        service="Bedrock",
        transient=_TRANSIENT,
        configuration=_CONFIGURATION,
        refused="the call ({code}): check model access and the role",
        rejected="the request",
    )


def answer_from_converse(document: Any, tool: str) -> ProviderAnswer:
    """The forced tool call's input (or, failing that, the answer's text), with token usage."""
    if not isinstance(document, dict):
        raise ProviderError("Bedrock answer is not an object")
    content = _dict(_dict(document.get("output")).get("message")).get("content")
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    tool_input = next(
        (
            b["toolUse"].get("input")
            for b in blocks
            if isinstance(b.get("toolUse"), dict) and b["toolUse"].get("name") == tool
        ),
        None,
    )
    text = "".join(b["text"] for b in blocks if isinstance(b.get("text"), str))
    usage = _dict(document.get("usage"))
    return ProviderAnswer(
        text=text or None,
        tokens_in=reported_tokens(usage.get("inputTokens")),
        tokens_out=reported_tokens(usage.get("outputTokens")),
        structured=tool_input,
        stop=f"stop reason {document.get('stopReason', '?')}",
    )


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
