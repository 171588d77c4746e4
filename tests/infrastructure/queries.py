"""Read the synthesized template: resources by type, functions by handler, a role's statements."""

from __future__ import annotations

import json
from typing import Any

Template = dict[str, Any]
HANDLER_PACKAGE = "visual_degrees.handlers"


def resources(template: Template, type_name: str) -> dict[str, dict[str, Any]]:
    return {lid: r for lid, r in template["Resources"].items() if r["Type"] == type_name}


def handler_of(module: str) -> str:
    return f"{HANDLER_PACKAGE}.{module}.handler"


def functions_by_handler(template: Template) -> dict[str, tuple[str, dict[str, Any]]]:
    """Handler string -> (logical id, properties) of the function running it."""
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    for lid, resource in resources(template, "AWS::Lambda::Function").items():
        handler = resource["Properties"]["Handler"]
        assert handler not in found, f"two functions run {handler}"
        found[handler] = (lid, resource["Properties"])
    return found


def function_for(template: Template, module: str) -> tuple[str, dict[str, Any]]:
    return functions_by_handler(template)[handler_of(module)]


def referenced_ids(value: Any) -> set[str]:
    """Logical ids a value points at through Ref or Fn::GetAtt (pseudo parameters excluded)."""
    found: set[str] = set()
    if isinstance(value, dict):
        if set(value) == {"Ref"} and not str(value["Ref"]).startswith("AWS::"):
            found.add(value["Ref"])
        elif set(value) == {"Fn::GetAtt"}:
            found.add(value["Fn::GetAtt"][0])
        else:
            for item in value.values():
                found |= referenced_ids(item)
    elif isinstance(value, list):
        for item in value:
            found |= referenced_ids(item)
    return found


def render(value: Any) -> str:
    """A resource as text: Ref/GetAtt become <Id>/<Id.Attr>, joins are joined."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and set(value) == {"Ref"}:
        return f"<{value['Ref']}>"
    if isinstance(value, dict) and set(value) == {"Fn::GetAtt"}:
        return "<{}.{}>".format(*value["Fn::GetAtt"])
    if isinstance(value, dict) and set(value) == {"Fn::Join"}:
        separator, parts = value["Fn::Join"]
        return separator.join(render(part) for part in parts)
    return json.dumps(value, separators=(",", ":"))


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def role_of_function(properties: dict[str, Any]) -> str:
    return properties["Role"]["Fn::GetAtt"][0]


def statements_of_role(template: Template, role_id: str) -> list[dict[str, Any]]:
    """Every statement a role holds: its inline policies and each AWS::IAM::Policy attached to it."""
    statements: list[dict[str, Any]] = []
    role = template["Resources"][role_id]["Properties"]
    for policy in role.get("Policies", []):
        statements += policy["PolicyDocument"]["Statement"]
    for policy in resources(template, "AWS::IAM::Policy").values():
        if {"Ref": role_id} in policy["Properties"].get("Roles", []):
            statements += policy["Properties"]["PolicyDocument"]["Statement"]
    return statements


def actions_of(statements: list[dict[str, Any]]) -> set[str]:
    return {action for s in statements if s["Effect"] == "Allow" for action in as_list(s["Action"])}


def statements_with_action(statements: list[dict[str, Any]], action: str) -> list[dict[str, Any]]:
    return [s for s in statements if s["Effect"] == "Allow" and action in as_list(s["Action"])]


def all_policy_statements(template: Template) -> list[tuple[str, dict[str, Any]]]:
    """(owner logical id, statement) for every identity policy in the template."""
    found: list[tuple[str, dict[str, Any]]] = []
    for lid, policy in resources(template, "AWS::IAM::Policy").items():
        found += [(lid, s) for s in policy["Properties"]["PolicyDocument"]["Statement"]]
    for lid, role in resources(template, "AWS::IAM::Role").items():
        for policy in role["Properties"].get("Policies", []):
            found += [(lid, s) for s in policy["PolicyDocument"]["Statement"]]
    return found
