"""Runs as Step Functions executions: start (named by run id, a continuation `<run id>--c<n>`),
describe, stop.

The execution ARN follows from the state machine ARN and the execution's name, so a run's owner
record can name its execution before the execution exists (startRun writes the record first).
"""

from __future__ import annotations

import json
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from visual_degrees.adapters.aws.clients import LazyClient
from visual_degrees.adapters.aws.errors import domain_error, error_code
from visual_degrees.domain.errors import ConditionFailed, ConfigurationError

RETRY_CONFIG = {"mode": "standard", "max_attempts": 3}
_MISSING = {"ExecutionDoesNotExist"}


class StepFunctionsExecutions:
    """`state_machine_arn` None: a function without the grant; every call is a ConfigurationError."""

    def __init__(self, state_machine_arn: str | None, *, client: Any | None = None) -> None:
        self._arn = state_machine_arn
        self._clients = LazyClient("stepfunctions", client, retries=RETRY_CONFIG)

    @property
    def client(self) -> Any:
        return self._clients.get()

    def _machine(self) -> str:
        if not self._arn:
            raise ConfigurationError("this function has no state machine (VD_STATE_MACHINE_ARN is not set)")
        return self._arn

    def execution_arn(self, name: str) -> str:
        """arn:…:stateMachine:<machine> -> arn:…:execution:<machine>:<execution name>."""
        head, sep, machine = self._machine().rpartition(":stateMachine:")
        if not sep:
            raise ConfigurationError("VD_STATE_MACHINE_ARN is not a state machine ARN")
        return f"{head}:execution:{machine}:{name}"

    def start(self, name: str, payload: dict[str, Any]) -> str:
        """Start the execution `name` with `payload` as input; its ARN. A repeat with the same
        input while it runs is the same execution (Step Functions' own idempotency)."""
        text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
        try:
            reply = self.client.start_execution(stateMachineArn=self._machine(), name=name, input=text)
        except ClientError as err:
            if error_code(err) == "ExecutionAlreadyExists":
                raise ConditionFailed(f"an execution named {name!r} already exists") from None
            raise domain_error(err, "Step Functions", "StartExecution") from None
        except BotoCoreError as err:
            raise domain_error(err, "Step Functions", "StartExecution") from None
        return str(reply["executionArn"])

    def status(self, execution_arn: str) -> str | None:
        """RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED or PENDING_REDRIVE; None if there is none."""
        try:
            reply = self.client.describe_execution(executionArn=execution_arn)
        except ClientError as err:
            if error_code(err) in _MISSING:
                return None
            raise domain_error(err, "Step Functions", "DescribeExecution") from None
        except BotoCoreError as err:
            raise domain_error(err, "Step Functions", "DescribeExecution") from None
        return str(reply["status"])

    def stop(self, execution_arn: str, *, cause: str) -> None:
        """Stop a running execution; one that is gone or finished is left alone."""
        try:
            self.client.stop_execution(executionArn=execution_arn, error="RunCancelled", cause=cause[:200])
        except ClientError as err:
            if error_code(err) in _MISSING:
                return
            raise domain_error(err, "Step Functions", "StopExecution") from None
        except BotoCoreError as err:
            raise domain_error(err, "Step Functions", "StopExecution") from None

    def cancel_requested(self, run_id: str) -> None:
        """Nothing to do: the state machine reads the run's cancel flag at its next Choice."""
