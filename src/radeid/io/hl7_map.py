"""The HL7 v2 field map as data: which segment fields are PHI, and which parts of them.

The bundled map is `radeid/data/hl7/fields.toml` (its comments give the schema); a site whose
messages carry PHI elsewhere (a Z-segment, a field the bundled map leaves alone) names its own file
with `[io] hl7_fields`, laid over the bundled one by name. Both are read here and checked whole:
a mistake is a `FieldMapError` naming the file and the key, before any message is read.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from radeid.core.categories import Category
from radeid.io.errors import FormatError

__all__ = ["BUNDLED_NAME", "FieldMap", "FieldMapError", "Part", "bundled_field_map", "load_field_map"]

#: How error messages name the bundled map.
BUNDLED_NAME = "radeid/data/hl7/fields.toml"
_FIELD = re.compile(r"([A-Z][A-Z0-9]{2})-([1-9][0-9]{0,2})")
_PART = re.compile(r"(\*|[1-9][0-9]{0,2})(?:\.(\*|[1-9][0-9]{0,2}))?\s+(\S+)")
#: Fields no map may list: the separators, the message's id, and the report text (the pipeline's).
_NOT_VALUES = {
    ("MSH", 1): "the field separator",
    ("MSH", 2): "the encoding characters",
    ("MSH", 10): "the message control id, the record's id that `reidentify` reads back from the output",
}
_TEXT = {("OBX", 5), ("NTE", 3)}


@dataclass(frozen=True)
class Part:
    """One PHI part of a field: component (1-based; 0 = each one), sub-component (0 = each one);
    a `date` part is a time stamp whose date digits alone are PHI."""

    component: int
    category: Category
    subtype: str | None = None
    sub: int = 0
    date: bool = False


#: Segment -> field number -> the field's PHI parts.
FieldMap = dict[str, dict[int, tuple[Part, ...]]]


class FieldMapError(FormatError):
    """An HL7 field map that cannot be used (the message names the file and the key)."""


def _read(text: str, where: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The `[types]` and `[fields]` tables of one map file, their shape checked."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FieldMapError(f"HL7 field map {where}: not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"types", "fields"})
    if unknown:
        raise FieldMapError(f"HL7 field map {where}: unknown key {unknown[0]!r} (known: fields, types)")
    tables = []
    for name in ("types", "fields"):
        table = data.get(name, {})
        if not isinstance(table, dict):
            raise FieldMapError(f"HL7 field map {where}: {name} must be a table ([{name}])")
        tables.append(table)
    return tables[0], tables[1]


def _part(spec: object, where: str, key: str) -> Part:
    """One part from its `"COMPONENT[.SUB] CATEGORY[/SUBTYPE]"` form."""
    m = _PART.fullmatch(spec.strip()) if isinstance(spec, str) else None
    if m is None:
        raise FieldMapError(
            f"HL7 field map {where}: {key}: {spec!r} is not a part: write "
            '"COMPONENT[.SUBCOMPONENT] CATEGORY[/SUBTYPE]", e.g. "1 PATIENT", "1.2 HCW", "* ID/SSN"'
        )
    component, sub, label = m.groups()
    head, _, subtype = label.partition("/")
    try:
        category = Category(head.upper())
    except ValueError:
        known = ", ".join(c.value for c in Category)
        raise FieldMapError(f"HL7 field map {where}: {key}: unknown PHI category {head!r} (known: {known})") from None
    number = 0 if component == "*" else int(component)
    sub_number = 0 if sub in (None, "*") else int(sub)
    return Part(number, category, subtype or None, sub_number, category is Category.DATE)


def _parts(value: object, where: str, key: str) -> tuple[Part, ...]:
    if not isinstance(value, list) or not value:
        raise FieldMapError(f'HL7 field map {where}: {key}: a non-empty list of parts, e.g. ["1 PATIENT"]')
    return tuple(_part(spec, where, f"{key}[{n}]") for n, spec in enumerate(value, 1))


def _field_key(name: str, where: str) -> tuple[str, int]:
    key = f"fields.{name!r}"
    m = _FIELD.fullmatch(name)
    if m is None:
        raise FieldMapError(f"HL7 field map {where}: {key}: a field is written SEGMENT-NUMBER, e.g. PID-5 or ZPI-2")
    segment, number = m.group(1), int(m.group(2))
    if (segment, number) in _NOT_VALUES:
        raise FieldMapError(f"HL7 field map {where}: {key}: {name} is {_NOT_VALUES[segment, number]}; it stays")
    if (segment, number) in _TEXT:
        raise FieldMapError(f"HL7 field map {where}: {key}: {name} is the report text, which the pipeline reads")
    return segment, number


@dataclass
class _Layer:
    """One file's types and fields, checked, with the file's name for messages."""

    where: str
    types: dict[str, tuple[Part, ...]]
    fields: dict[tuple[str, int], object]


def _layer(text: str, where: str) -> _Layer:
    types, fields = _read(text, where)
    parts = {str(name): _parts(value, where, f"types.{name}") for name, value in types.items()}
    return _Layer(where, parts, {_field_key(str(name), where): value for name, value in fields.items()})


def _resolve(layers: list[_Layer]) -> FieldMap:
    """The map of `layers`, each over the ones before it; a field names a type of any layer."""
    types: dict[str, tuple[Part, ...]] = {}
    for layer in layers:
        types.update(layer.types)
    chosen: dict[tuple[str, int], tuple[Part, ...] | None] = {}
    for layer in layers:
        for (segment, number), value in layer.fields.items():
            chosen[segment, number] = _field_parts(value, types, layer.where, f"fields.'{segment}-{number}'")
    out: FieldMap = {}
    for (segment, number), field_parts in chosen.items():
        if field_parts:
            out.setdefault(segment, {})[number] = field_parts
    return out


def _field_parts(value: object, types: Mapping[str, tuple[Part, ...]], where: str, key: str) -> tuple[Part, ...] | None:
    """A field's parts: a type's, its own list, or None ("": not PHI)."""
    if isinstance(value, list):
        return _parts(value, where, key)
    if value == "":
        return None
    if isinstance(value, str) and value in types:
        return types[value]
    if isinstance(value, str):
        raise FieldMapError(f"HL7 field map {where}: {key}: unknown type {value!r} (known: {', '.join(sorted(types))})")
    raise FieldMapError(f'HL7 field map {where}: {key}: a type name, a list of parts, or "" (not PHI)')


def _bundled_layer() -> _Layer:
    text = resources.files("radeid.data.hl7").joinpath("fields.toml").read_text("utf-8")
    return _layer(text, BUNDLED_NAME)


def bundled_field_map() -> FieldMap:
    """The bundled map alone."""
    return _resolve([_bundled_layer()])


def load_field_map(path: str | Path | None = None) -> FieldMap:
    """The bundled map with the file `path` laid over it (none: the bundled map)."""
    if path is None or str(path) == "":
        return bundled_field_map()
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise FieldMapError(f"HL7 field map {path}: cannot read it ({reason})") from None
    return _resolve([_bundled_layer(), _layer(text, str(path))])
