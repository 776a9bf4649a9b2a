"""JSON with offsets: where each value of a JSON text is, as character ranges of that text.

`json.loads` gives values, not places; a structured record's text is the record exactly as read
(the vault, the audit and `reidentify` work on offsets into it), so `radeid.io.fhir_fields` needs
the range of every string. `scan` parses a text that `json.loads` has already accepted and gives a
tree of `JObject`, `JArray`, `JString` (the range *inside* the quotes, escapes as written) and
`JOther` (numbers, true, false, null). `decode_map` decodes one string with the place of each of
its characters, for XHTML inside a string.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

__all__ = ["ESCAPE", "JArray", "JNode", "JObject", "JOther", "JString", "decode_map", "scan"]

_WS = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"', re.S)
_OTHER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
#: One escape of a JSON string: a surrogate pair of `\u` escapes, one `\u` escape, or `\` and a char.
ESCAPE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\.")


@dataclass(frozen=True)
class JString:
    """A string value: `text[start:end]` is its content between the quotes, escapes as written."""

    start: int
    end: int

    def value(self, text: str) -> str:
        raw = text[self.start : self.end]
        if "\\" not in raw:  # no escape: the characters are the value (most keys and values)
            return raw
        decoded: str = json.loads(f'"{raw}"')
        return decoded


@dataclass(frozen=True)
class JOther:
    """A number, `true`, `false` or `null`."""

    start: int
    end: int


@dataclass
class JArray:
    start: int
    end: int = 0
    items: list[JNode] = field(default_factory=list)


@dataclass
class JObject:
    """An object; a key given twice keeps its last value, as `json.loads` does."""

    start: int
    end: int = 0
    items: dict[str, JNode] = field(default_factory=dict)

    def string(self, key: str, text: str) -> str | None:
        node = self.items.get(key)
        return node.value(text) if isinstance(node, JString) else None


JNode = JObject | JArray | JString | JOther


def scan(text: str, pos: int = 0) -> JNode:
    """The tree of the JSON value at `pos` of `text` (which must be valid JSON)."""
    node, _end = _value(text, _WS.match(text, pos).end())  # type: ignore[union-attr]
    return node


def _value(text: str, pos: int) -> tuple[JNode, int]:
    ch = text[pos]
    if ch == '"':
        m = _STRING.match(text, pos)
        assert m is not None  # noqa: S101 - json.loads accepted the text
        return JString(m.start(1), m.end(1)), m.end()
    if ch == "{":
        return _object(text, pos)
    if ch == "[":
        return _array(text, pos)
    m = _OTHER.match(text, pos)
    assert m is not None  # noqa: S101
    return JOther(pos, m.end()), m.end()


def _skip(text: str, pos: int) -> int:
    return _WS.match(text, pos).end()  # type: ignore[union-attr]


def _object(text: str, pos: int) -> tuple[JObject, int]:
    node = JObject(pos)
    pos = _skip(text, pos + 1)
    while text[pos] != "}":
        key, pos = _value(text, pos)
        value, pos = _value(text, _skip(text, _skip(text, pos) + 1))  # past the colon
        if isinstance(key, JString):
            node.items[key.value(text)] = value
        pos = _skip(text, pos)
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
    node.end = pos + 1
    return node, pos + 1


def _array(text: str, pos: int) -> tuple[JArray, int]:
    node = JArray(pos)
    pos = _skip(text, pos + 1)
    while text[pos] != "]":
        value, pos = _value(text, pos)
        node.items.append(value)
        pos = _skip(text, pos)
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
    node.end = pos + 1
    return node, pos + 1


def decode_map(text: str, node: JString) -> tuple[str, list[int]]:
    """The string's value, and for each of its characters (and one past the last) where it is
    written in `text`: an escape's characters all point at the escape's start."""
    chars: list[str] = []
    places: list[int] = []
    cursor = node.start
    for m in ESCAPE.finditer(text, node.start, node.end):
        chars.extend(text[cursor : m.start()])
        places.extend(range(cursor, m.start()))
        decoded: str = json.loads(f'"{m.group()}"')
        chars.extend(decoded)
        places.extend([m.start()] * len(decoded))
        cursor = m.end()
    chars.extend(text[cursor : node.end])
    places.extend(range(cursor, node.end))
    places.append(node.end)
    return "".join(chars), places
