"""ExecutionEndings: every execution of the workflow that ends FAILED, TIMED_OUT or ABORTED is handed
to the function that gives its run an ending if it has none (handlers/execution_ended.py).

A run's ending is normally written by the state machine itself (S6, S7, RunCancelled, HandleError);
an execution stopped from the console, timed out between states (executionTimeoutMinutes) or failed
outside every Catch never reaches them, and without this rule its clients would wait for ever. The
rule matches this state machine only, through Step Functions' own events on the default bus.

An event EventBridge could not deliver after its retries (the function throttled or failing for two
hours) goes to a dead-letter queue instead of being dropped; the observability construct alarms on
it, and docs/operators.md says how to hand a kept event to the function again.
"""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy, Validations
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sqs as sqs
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from infra.nag import acknowledge
from visual_degrees.handlers.catalog import EXECUTION_ENDS, EXECUTION_EVENT_SOURCE, EXECUTION_STATUS_CHANGE

RETRY_ATTEMPTS = 8  # EventBridge retries a failed invocation (throttled, DynamoDB busy) with back-off
MAX_EVENT_AGE = Duration.hours(2)
DEAD_LETTER_RETENTION = Duration.days(14)  # SQS's longest: time to notice the alarm and act


class ExecutionEndings(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        state_machine: sfn.IStateMachine,
        function: lambda_.IFunction,
        removal: RemovalPolicy,
    ) -> None:
        super().__init__(scope, construct_id)
        self.rule = events.Rule(
            self,
            "ExecutionEnded",
            description="Visual Degrees: executions that ended without their run's ending",
            event_pattern=events.EventPattern(
                source=[EXECUTION_EVENT_SOURCE],
                detail_type=[EXECUTION_STATUS_CHANGE],
                detail={
                    "stateMachineArn": [state_machine.state_machine_arn],
                    "status": list(EXECUTION_ENDS),
                },
            ),
        )
        # SQS-managed encryption: EventBridge can send to it without a key policy of our own.
        self.dead_letters = sqs.Queue(
            self,
            "DeadLetters",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=DEAD_LETTER_RETENTION,
            removal_policy=removal,
        )
        Validations.of(self.dead_letters).acknowledge(
            acknowledge(
                "AwsSolutions-SQS3",
                "This queue is itself a dead-letter queue: the EventBridge rule's target sends it the "
                "execution endings it could not deliver, and an alarm watches its depth.",
            )
        )
        self.rule.add_target(
            targets.LambdaFunction(
                function,
                retry_attempts=RETRY_ATTEMPTS,
                max_event_age=MAX_EVENT_AGE,
                dead_letter_queue=self.dead_letters,
            )
        )
