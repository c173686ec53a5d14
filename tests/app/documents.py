"""Checking answers against the OpenAPI document the server serves."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator


def validate_component(spec: dict[str, Any], component: str, body: Any) -> None:
    """``body`` matches the schema ``component`` of ``spec``, its ``$ref``s (the named value
    sets, ``ErrorCode`` …) resolved in the document."""
    schema = {"$ref": f"#/components/schemas/{component}", "components": spec["components"]}
    Draft202012Validator(schema).validate(body)
