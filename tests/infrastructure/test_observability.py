"""Observability: alarms on failed runs, Lambda errors and throttles, budget exhaustion and spend."""

from __future__ import annotations

import json
from typing import Any

import pytest

from infra.constructs.observability import (
    BUDGET_EXHAUSTED,
    OUTCOME_DIMENSION,
    OUTCOMES,
    RUNS_FINISHED,
    SPEND_USD,
)
from tests.infrastructure.queries import all_policy_statements, as_list, referenced_ids, render, resources

pytestmark = pytest.mark.cdk

MAX_METRICS_PER_ALARM = 10  # CloudWatch's limit for metric math in an alarm


def _metric_stats(alarm: dict[str, Any]) -> list[dict[str, Any]]:
    """Every metric an alarm reads: the math inputs, or the one metric of a plain alarm."""
    props = alarm["Properties"]
    if "Metrics" in props:
        return [m["MetricStat"] for m in props["Metrics"] if "MetricStat" in m]
    metric = {
        "MetricName": props["MetricName"],
        "Namespace": props["Namespace"],
        "Dimensions": props["Dimensions"],
    }
    return [{"Metric": metric, "Period": props["Period"], "Stat": props["Statistic"]}]


def _dimensions(stat: dict[str, Any]) -> dict[str, Any]:
    return {d["Name"]: d["Value"] for d in stat["Metric"].get("Dimensions", [])}


def _alarms_reading(raw: dict[str, Any], namespace: str, name: str) -> list[dict[str, Any]]:
    return [
        alarm
        for alarm in resources(raw, "AWS::CloudWatch::Alarm").values()
        if any(
            s["Metric"]["Namespace"] == namespace and s["Metric"]["MetricName"] == name
            for s in _metric_stats(alarm)
        )
    ]


def _powertools(raw: dict[str, Any]) -> tuple[str, str]:
    (namespaces, services) = zip(
        *(
            (
                f["Properties"]["Environment"]["Variables"]["POWERTOOLS_METRICS_NAMESPACE"],
                f["Properties"]["Environment"]["Variables"]["POWERTOOLS_SERVICE_NAME"],
            )
            for f in resources(raw, "AWS::Lambda::Function").values()
        ),
        strict=True,
    )
    assert len(set(namespaces)) == len(set(services)) == 1
    return namespaces[0], services[0]


def test_failed_or_timed_out_executions_of_the_state_machine_raise_an_alarm(raw: dict[str, Any]) -> None:
    (machine_id,) = resources(raw, "AWS::StepFunctions::StateMachine")
    (alarm,) = _alarms_reading(raw, "AWS/States", "ExecutionsFailed")
    names = {s["Metric"]["MetricName"] for s in _metric_stats(alarm)}
    assert names == {"ExecutionsFailed", "ExecutionsTimedOut"}
    assert all(_dimensions(s) == {"StateMachineArn": {"Ref": machine_id}} for s in _metric_stats(alarm))
    assert alarm["Properties"]["Threshold"] == 1


@pytest.mark.parametrize("metric", ["Errors", "Throttles"])
def test_every_function_is_watched_for_errors_and_throttles(raw: dict[str, Any], metric: str) -> None:
    alarms = _alarms_reading(raw, "AWS/Lambda", metric)
    watched = [_dimensions(s)["FunctionName"]["Ref"] for alarm in alarms for s in _metric_stats(alarm)]
    assert sorted(watched) == sorted(resources(raw, "AWS::Lambda::Function"))
    assert all(len(_metric_stats(alarm)) <= MAX_METRICS_PER_ALARM for alarm in alarms)


def test_budget_exhausted_ratio_reads_the_metrics_the_steps_emit(
    raw: dict[str, Any], context: dict[str, Any]
) -> None:
    # Given the namespace and service dimension Powertools will use in the functions
    namespace, service = _powertools(raw)

    # When reading the ratio alarm
    (alarm,) = _alarms_reading(raw, namespace, BUDGET_EXHAUSTED)
    stats = _metric_stats(alarm)

    # Then it divides budget-ended runs by all finished runs, per hour, with Powertools' dimensions
    finished = {
        _dimensions(s).get(OUTCOME_DIMENSION) for s in stats if s["Metric"]["MetricName"] == RUNS_FINISHED
    }
    assert finished == set(OUTCOMES)
    assert all(_dimensions(s)["service"] == service and s["Period"] == 3600 for s in stats)
    assert alarm["Properties"]["Threshold"] == context["budgetExhaustedAlarmPercent"]
    expression = next(m["Expression"] for m in alarm["Properties"]["Metrics"] if "Expression" in m)
    assert "IF(" in expression  # no division by zero in an hour without runs


def test_spend_per_hour_is_summed_from_the_steps_metric(raw: dict[str, Any], context: dict[str, Any]) -> None:
    namespace, service = _powertools(raw)
    (alarm,) = _alarms_reading(raw, namespace, SPEND_USD)
    (stat,) = _metric_stats(alarm)
    assert (stat["Stat"], stat["Period"], _dimensions(stat)) == ("Sum", 3600, {"service": service})
    assert alarm["Properties"]["Threshold"] == context["spendAlarmUsdPerHour"]


def test_every_alarm_notifies_the_ssl_only_topic_and_ignores_quiet_periods(raw: dict[str, Any]) -> None:
    (topic_id,) = resources(raw, "AWS::SNS::Topic")
    for lid, alarm in resources(raw, "AWS::CloudWatch::Alarm").items():
        assert alarm["Properties"]["AlarmActions"] == [{"Ref": topic_id}], lid
        assert alarm["Properties"]["TreatMissingData"] == "notBreaching", lid
    (policy,) = resources(raw, "AWS::SNS::TopicPolicy").values()
    statements = policy["Properties"]["PolicyDocument"]["Statement"]
    assert any(
        s["Effect"] == "Deny" and s["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
        for s in statements
    )


def _topic_statements(raw: dict[str, Any]) -> list[dict[str, Any]]:
    (policy,) = resources(raw, "AWS::SNS::TopicPolicy").values()
    (topic_id,) = resources(raw, "AWS::SNS::Topic")
    assert policy["Properties"]["Topics"] == [{"Ref": topic_id}]
    statements: list[dict[str, Any]] = policy["Properties"]["PolicyDocument"]["Statement"]
    return statements


def test_cloudwatch_may_publish_every_alarm_of_this_stack_to_the_topic(raw: dict[str, Any]) -> None:
    # Given the topic's own policy, which replaces SNS's default one (enforce_ssl creates it)
    (topic_id,) = resources(raw, "AWS::SNS::Topic")
    allows = [s for s in _topic_statements(raw) if s["Effect"] == "Allow"]

    # Then it lets CloudWatch publish, on behalf of this account only
    (allow,) = allows
    assert allow["Principal"] == {"Service": "cloudwatch.amazonaws.com"}
    assert allow["Action"] == "sns:Publish"
    assert allow["Resource"] == {"Ref": topic_id}
    assert allow["Condition"]["StringEquals"] == {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}
    # and for exactly the alarms that notify the topic: every one of them, no other alarm
    notifying = {
        lid
        for lid, alarm in resources(raw, "AWS::CloudWatch::Alarm").items()
        if {"Ref": topic_id} in alarm["Properties"]["AlarmActions"]
    }
    sources = allow["Condition"]["ArnEquals"]["aws:SourceArn"]
    assert sorted(json.dumps(a) for a in sources) == sorted(
        json.dumps({"Fn::GetAtt": [lid, "Arn"]}) for lid in notifying
    )
    assert notifying == set(resources(raw, "AWS::CloudWatch::Alarm"))


def test_nothing_else_publishes_to_the_alarm_topic(raw: dict[str, Any]) -> None:
    # No rule, subscription or function sends to the topic besides the alarms the policy allows.
    (topic_id,) = resources(raw, "AWS::SNS::Topic")
    for lid, rule in resources(raw, "AWS::Events::Rule").items():
        assert topic_id not in referenced_ids(rule["Properties"]["Targets"]), lid
    assert not [
        (lid, s["Action"])
        for lid, s in all_policy_statements(raw)
        if "sns:Publish" in as_list(s["Action"]) and topic_id in referenced_ids(s["Resource"])
    ]


def test_an_undelivered_execution_ending_raises_an_alarm(raw: dict[str, Any]) -> None:
    # Given the dead-letter queue of the execution-ended rule's target
    (rule,) = resources(raw, "AWS::Events::Rule").values()
    (target,) = rule["Properties"]["Targets"]
    (queue_id,) = referenced_ids(target["DeadLetterConfig"]["Arn"])

    # Then an alarm watches its depth, raised by the first message
    (alarm,) = _alarms_reading(raw, "AWS/SQS", "ApproximateNumberOfMessagesVisible")
    (stat,) = _metric_stats(alarm)
    assert _dimensions(stat) == {"QueueName": {"Fn::GetAtt": [queue_id, "QueueName"]}}
    assert (stat["Stat"], alarm["Properties"]["Threshold"]) == ("Maximum", 1)
    assert alarm["Properties"]["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"


def test_dashboard_shows_runs_spend_and_every_alarm(raw: dict[str, Any]) -> None:
    (dashboard,) = resources(raw, "AWS::CloudWatch::Dashboard").values()
    body = dashboard["Properties"]["DashboardBody"]
    text = render(body)
    for title in (
        "Executions",
        "Runs by outcome",
        "Budget-exhausted ratio",
        "Provider spend",
        "WebSocket traffic",
    ):
        assert title in text
    assert set(resources(raw, "AWS::CloudWatch::Alarm")) <= referenced_ids(body)
    assert json.dumps(body).count(SPEND_USD) >= 1
