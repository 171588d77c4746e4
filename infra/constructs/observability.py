"""Observability: one dashboard and the alarms an operator acts on, notifying one SNS topic.

Custom metrics the runtime must emit (Powertools Metrics, namespace "VisualDegrees"; Powertools adds
the `service` dimension = "visual-degrees" to every metric, so the alarms below match on it):

  RunsFinished    Count   dimensions service, Outcome   once per run, by its final step;
                                                        Outcome in success | no_path | cancelled | error
  BudgetExhausted Count   dimension service             once per run that ended because a budget ran out
  SpendUsd        None    dimension service             provider dollars, emitted by each step that paid
                                                        (the growth of the run's budget ledger across
                                                        the step), so the hour of the spending counts
                                                        it, failed and cancelled runs included
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aws_cdk import Duration, Stack, Validations
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from infra.nag import acknowledge
from infra.settings import DeploymentSettings
from visual_degrees.constants import SERVICE_NAME

# The metric names are the handlers' (one module shared with the runtime, so neither side can drift).
from visual_degrees.handlers.catalog import (
    BUDGET_EXHAUSTED,
    METRICS_NAMESPACE,
    OUTCOME_DIMENSION,
    OUTCOMES,
    RUNS_FINISHED,
    SERVICE_DIMENSION,
    SPEND_USD,
)

FIVE_MINUTES = Duration.minutes(5)
ONE_HOUR = Duration.hours(1)
# A CloudWatch alarm's metric math may reference at most 10 metrics.
MAX_METRICS_PER_ALARM = 10


def custom_metric(name: str, statistic: str, period: Duration, **dimensions: str) -> cloudwatch.Metric:
    return cloudwatch.Metric(
        namespace=METRICS_NAMESPACE,
        metric_name=name,
        dimensions_map={SERVICE_DIMENSION: SERVICE_NAME, **dimensions},
        statistic=statistic,
        period=period,
    )


def _sum_of(metrics: Sequence[cloudwatch.IMetric], prefix: str) -> tuple[str, dict[str, cloudwatch.IMetric]]:
    """`FILL(m0,0)+FILL(m1,0)+…`: a period in which one function did not run still adds up."""
    using = {f"{prefix}{i}": metric for i, metric in enumerate(metrics)}
    return "+".join(f"FILL({key},0)" for key in using), using


def _chunks(items: Sequence[lambda_.IFunction], size: int) -> list[Sequence[lambda_.IFunction]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


class Observability(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        state_machine: sfn.IStateMachine,
        function_groups: dict[str, Sequence[lambda_.IFunction]],
        api: apigwv2.IWebSocketApi,
        stage: apigwv2.IWebSocketStage,
        dead_letter_queues: Mapping[str, sqs.IQueue],
        settings: DeploymentSettings,
    ) -> None:
        """`function_groups`: a title ("Workflow steps", "WebSocket") -> its functions;
        `dead_letter_queues`: a title -> a queue whose every message is something undelivered."""
        super().__init__(scope, construct_id)
        self.topic = sns.Topic(self, "AlarmTopic", display_name="Visual Degrees alarms", enforce_ssl=True)
        if settings.alarm_email:
            self.topic.add_subscription(subscriptions.EmailSubscription(settings.alarm_email))
        Validations.of(self.topic).acknowledge(
            acknowledge(
                "AwsSolutions-SNS2",
                "Alarm notifications carry alarm names and states only. CloudWatch cannot publish to a "
                "topic encrypted with the AWS managed SNS key, and a customer managed key for this "
                "alone is not worth its cost; SSL is enforced instead.",
            )
        )
        self.alarms: list[cloudwatch.Alarm] = []

        self._execution_alarms(state_machine)
        for title, functions in function_groups.items():
            self._function_alarms(title, functions, settings)
        finished, budget_ratio, spend = self._run_alarms(settings)
        for title, queue in dead_letter_queues.items():
            self._dead_letter_alarm(title, queue)
        self._allow_alarms_to_publish()

        self.dashboard = self._dashboard(
            state_machine, function_groups, api, stage, finished, budget_ratio, spend
        )

    def _execution_alarms(self, state_machine: sfn.IStateMachine) -> None:
        """A run's execution failed or timed out."""
        failed_expression = cloudwatch.MathExpression(
            expression="FILL(failed,0)+FILL(timedOut,0)",
            using_metrics={
                "failed": state_machine.metric_failed(period=FIVE_MINUTES),
                "timedOut": state_machine.metric_timed_out(period=FIVE_MINUTES),
            },
            label="Failed or timed-out executions",
            period=FIVE_MINUTES,
        )
        self._alarm(
            "FailedExecutions",
            failed_expression,
            threshold=1,
            description="A run's execution failed or timed out (not a no_path answer: a broken run).",
        )

    def _function_alarms(
        self, title: str, functions: Sequence[lambda_.IFunction], settings: DeploymentSettings
    ) -> None:
        """Errors and throttles of one group of functions (in chunks: an alarm's math takes at most
        MAX_METRICS_PER_ALARM metrics)."""
        stem = "".join(word.capitalize() for word in title.split())
        for part, chunk in enumerate(_chunks(functions, MAX_METRICS_PER_ALARM)):
            suffix = f"{stem}{part + 1 if len(functions) > MAX_METRICS_PER_ALARM else ''}"
            errors, using = _sum_of([fn.metric_errors(period=FIVE_MINUTES) for fn in chunk], "e")
            self._alarm(
                f"{suffix}Errors",
                cloudwatch.MathExpression(expression=errors, using_metrics=using, period=FIVE_MINUTES),
                threshold=settings.lambda_errors_alarm_threshold,
                description=f"{title}: Lambda errors in 5 minutes (each failed attempt counts).",
            )
            throttles, using = _sum_of([fn.metric_throttles(period=FIVE_MINUTES) for fn in chunk], "t")
            self._alarm(
                f"{suffix}Throttles",
                cloudwatch.MathExpression(expression=throttles, using_metrics=using, period=FIVE_MINUTES),
                threshold=1,
                description=f"{title}: invocations throttled (reserved concurrency or account limit).",
            )

    def _run_alarms(
        self, settings: DeploymentSettings
    ) -> tuple[list[cloudwatch.Metric], cloudwatch.MathExpression, cloudwatch.Metric]:
        """Runs a budget ended, and provider spend: the custom metrics the handlers emit."""
        finished = [custom_metric(RUNS_FINISHED, "Sum", ONE_HOUR, **{OUTCOME_DIMENSION: o}) for o in OUTCOMES]
        runs, using = _sum_of(finished, "r")
        budget_ratio = cloudwatch.MathExpression(
            expression=f"IF(({runs}) > 0, 100*FILL(exhausted,0)/({runs}), 0)",
            using_metrics={**using, "exhausted": custom_metric(BUDGET_EXHAUSTED, "Sum", ONE_HOUR)},
            label="Runs ended by a budget (%)",
            period=ONE_HOUR,
        )
        self._alarm(
            "BudgetExhaustedRatio",
            budget_ratio,
            threshold=settings.budget_exhausted_alarm_percent,
            description="Share of finished runs that a budget stopped, per hour: budgets too tight or "
            "providers returning little.",
        )
        spend = custom_metric(SPEND_USD, "Sum", ONE_HOUR)
        self._alarm(
            "SpendPerHour",
            spend,
            threshold=settings.spend_alarm_usd_per_hour,
            description="Provider spend (search, recognition, LLM) in USD over the last hour.",
        )
        return finished, budget_ratio, spend

    def _dead_letter_alarm(self, title: str, queue: sqs.IQueue) -> None:
        stem = "".join(word.capitalize() for word in title.split())
        self._alarm(
            f"{stem}DeadLetters",
            queue.metric_approximate_number_of_messages_visible(period=FIVE_MINUTES, statistic="Maximum"),
            threshold=1,
            description=f"{title}: a message could not be delivered after its retries and waits in the "
            "dead-letter queue (docs/operators.md says how to hand it over again).",
        )

    def _allow_alarms_to_publish(self) -> None:
        """enforce_ssl gives the topic a policy of its own, which replaces SNS's default one: without
        this statement CloudWatch may not publish, and no alarm would ever be delivered. Only this
        account's alarms of this construct may."""
        stack = Stack.of(self)
        self.topic.add_to_resource_policy(
            iam.PolicyStatement(
                sid="AllowThisStacksAlarmsToPublish",
                principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
                actions=["sns:Publish"],
                resources=[self.topic.topic_arn],
                conditions={
                    "StringEquals": {"aws:SourceAccount": stack.account},
                    "ArnEquals": {"aws:SourceArn": [alarm.alarm_arn for alarm in self.alarms]},
                },
            )
        )

    def _alarm(
        self, construct_id: str, metric: cloudwatch.IMetric, *, threshold: float, description: str
    ) -> None:
        alarm = cloudwatch.Alarm(
            self,
            construct_id,
            metric=metric,
            threshold=threshold,
            evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            alarm_description=description,
        )
        alarm.add_alarm_action(actions.SnsAction(self.topic))
        self.alarms.append(alarm)

    def _dashboard(
        self,
        state_machine: sfn.IStateMachine,
        function_groups: dict[str, Sequence[lambda_.IFunction]],
        api: apigwv2.IWebSocketApi,
        stage: apigwv2.IWebSocketStage,
        finished: Sequence[cloudwatch.IMetric],
        budget_ratio: cloudwatch.IMetric,
        spend: cloudwatch.IMetric,
    ) -> cloudwatch.Dashboard:
        dashboard = cloudwatch.Dashboard(self, "Dashboard", default_interval=Duration.hours(3))
        dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="Executions",
                left=[
                    state_machine.metric_started(period=FIVE_MINUTES),
                    state_machine.metric_succeeded(period=FIVE_MINUTES),
                    state_machine.metric_failed(period=FIVE_MINUTES),
                    state_machine.metric_timed_out(period=FIVE_MINUTES),
                    state_machine.metric_aborted(period=FIVE_MINUTES),
                ],
                width=6,
            ),
            cloudwatch.GraphWidget(title="Runs by outcome (per hour)", left=list(finished), width=6),
            cloudwatch.GraphWidget(title="Budget-exhausted ratio (%)", left=[budget_ratio], width=6),
            cloudwatch.GraphWidget(title="Provider spend (USD per hour)", left=[spend], width=6),
        )
        for title, functions in function_groups.items():
            dashboard.add_widgets(
                cloudwatch.GraphWidget(
                    title=f"{title}: errors",
                    left=[fn.metric_errors(period=FIVE_MINUTES) for fn in functions],
                    width=8,
                ),
                cloudwatch.GraphWidget(
                    title=f"{title}: throttles",
                    left=[fn.metric_throttles(period=FIVE_MINUTES) for fn in functions],
                    width=8,
                ),
                cloudwatch.GraphWidget(
                    title=f"{title}: duration p90",
                    left=[fn.metric_duration(period=FIVE_MINUTES, statistic="p90") for fn in functions],
                    width=8,
                ),
            )

        def gateway(name: str, statistic: str = "Sum") -> cloudwatch.Metric:
            return cloudwatch.Metric(
                namespace="AWS/ApiGateway",
                metric_name=name,
                dimensions_map={"ApiId": api.api_id, "Stage": stage.stage_name},
                statistic=statistic,
                period=FIVE_MINUTES,
            )

        dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="WebSocket traffic",
                left=[gateway("ConnectCount"), gateway("MessageCount")],
                width=8,
            ),
            cloudwatch.GraphWidget(
                title="WebSocket errors",
                left=[gateway("ClientError"), gateway("ExecutionError"), gateway("IntegrationError")],
                width=8,
            ),
            cloudwatch.GraphWidget(
                title="WebSocket integration latency p90",
                left=[gateway("IntegrationLatency", "p90")],
                width=8,
            ),
        )
        dashboard.add_widgets(
            cloudwatch.AlarmStatusWidget(title="Alarms", alarms=list(self.alarms), width=24)
        )
        return dashboard
