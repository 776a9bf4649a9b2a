"""A small JSON Schema checker for the schemas radeid ships (the run report's).

Why not `jsonschema`: one more dependency for a dozen keywords. This checks the subset those
schemas use: `type` (one or a list), `const`, `enum`, `required`, `properties`,
`additionalProperties` (false or a schema), `items`, `pattern` (strings), `minimum` (numbers) and
local `$ref`s (`#/$defs/NAME`). Any other keyword is refused, so a schema cannot silently ask for
more than is checked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["schema_errors"]

_TYPES: dict[str, Any] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}
_KNOWN = {"type", "const", "enum", "required", "properties", "additionalProperties", "items", "pattern",
          "minimum", "$ref", "$schema", "$id", "$defs", "title", "description"}  # fmt: skip


def schema_errors(value: Any, schema: Mapping[str, Any]) -> list[str]:
    """Every place where `value` does not follow `schema`, as "PATH: why" (empty: it follows it)."""
    errors: list[str] = []
    _check(value, schema, schema, "$", errors)
    return errors


def _check(value: Any, schema: Mapping[str, Any], root: Mapping[str, Any], where: str, errors: list[str]) -> None:
    unknown = set(schema) - _KNOWN
    if unknown:
        raise ValueError(f"{where}: schema keyword(s) not supported: {', '.join(sorted(unknown))}")
    if "$ref" in schema:
        name = str(schema["$ref"]).removeprefix("#/$defs/")
        _check(value, root["$defs"][name], root, where, errors)
        return
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        if not any(_TYPES[n](value) for n in names):
            errors.append(f"{where}: expected {' or '.join(names)}, got {type(value).__name__}")
            return
    if "const" in schema and value != schema["const"]:
        errors.append(f"{where}: must be {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: must be one of {', '.join(map(repr, schema['enum']))}")
    if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append(f"{where}: does not match {schema['pattern']}")
    if _TYPES["number"](value) and "minimum" in schema and value < schema["minimum"]:
        errors.append(f"{where}: below the minimum {schema['minimum']}")
    if isinstance(value, list) and "items" in schema:
        for n, item in enumerate(value):
            _check(item, schema["items"], root, f"{where}[{n}]", errors)
    if isinstance(value, dict):
        _check_object(value, schema, root, where, errors)


def _check_object(
    value: dict[str, Any], schema: Mapping[str, Any], root: Mapping[str, Any], where: str, errors: list[str]
) -> None:
    errors.extend(f"{where}: missing {name!r}" for name in schema.get("required", ()) if name not in value)
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in properties:
            _check(item, properties[name], root, f"{where}.{name}", errors)
        elif extra is False:
            errors.append(f"{where}: unexpected {name!r}")
        elif isinstance(extra, Mapping):
            _check(item, extra, root, f"{where}.{name}", errors)
