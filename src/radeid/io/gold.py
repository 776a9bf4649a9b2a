"""Gold annotations: label resolution, span dicts, i2b2 2014 XML and BRAT standoff.

Parsing here is lenient per annotation and strict about offsets: an annotation outside the text is
dropped, one whose stored text differs from the text at its offsets is kept (offsets are what both
formats treat as authoritative) — and every such case is reported as a *problem* (a short reason
with the annotation's id and offsets, never its text) that the readers turn into warnings.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from radeid.core import metakeys
from radeid.core.categories import Category, split_label
from radeid.core.document import Span
from radeid.core.labelmaps import IGNORE, load_label_map

__all__ = [
    "GOLD_SOURCE",
    "IGNORED_SPANS_KEY",
    "OutputTag",
    "ParsedGold",
    "UnknownLabel",
    "brat_ann",
    "brat_label",
    "i2b2_xml",
    "parse_brat_ann",
    "parse_i2b2",
    "parse_span_dict",
    "resolve_label",
]

#: `Span.source` of spans read from gold files when the file does not say.
GOLD_SOURCE = "gold"

#: `Document.metadata` key for gold regions whose label is known but not PHI (`IGNORE`, `O`,
#: `OTHER`, e.g. i2b2 PROFESSION): `[(start, end), ...]`, so evaluation can leave them out of
#: false positives. Defined in `radeid.core.metakeys` (`IGNORED_SPANS`); kept here for importers.
IGNORED_SPANS_KEY = metakeys.IGNORED_SPANS


@dataclass
class ParsedGold:
    """What a gold parser found: PHI spans, not-PHI regions and problems (never with text)."""

    spans: list[Span] = field(default_factory=list)
    ignored: list[tuple[int, int]] = field(default_factory=list)
    problems: list[tuple[int | None, str]] = field(default_factory=list)  # (line or None, reason)


class UnknownLabel(ValueError):
    """A label that is neither a radeid category nor in the label map in use."""


def resolve_label(label: str, mapping: Mapping[str, str] | None = None) -> tuple[Category, str | None] | None:
    """`(category, subtype)` for a gold label; None when the label is known but not PHI here.

    Tried in order: the label map (if any; `IGNORE` targets mean "not PHI"), `O`/`IGNORE`/`OTHER`,
    radeid's own `DATE` / `ID/MRN`, and `ID_MRN` (BRAT type names cannot hold a slash).
    Raises `UnknownLabel` for anything else, so callers can warn instead of silently dropping gold.
    """
    key = label.strip()
    upper = key.upper()
    if mapping is not None and upper in mapping:
        target = mapping[upper]
        if target == IGNORE:
            return None
        try:
            return split_label(target)
        except ValueError:
            raise UnknownLabel(f"label {label!r} maps to unknown category {target!r}") from None
    if upper in ("O", IGNORE, "OTHER"):
        return None
    try:
        return split_label(key)
    except ValueError:
        pass
    head, sep, tail = key.partition("_")
    if sep and tail:
        try:
            return split_label(f"{head}/{tail}")
        except ValueError:
            pass
    raise UnknownLabel(f"unknown label {label!r}")


def _norm_ws(text: str) -> str:
    """Whitespace-insensitive form: .ann text fields and XML attributes flatten newlines."""
    return " ".join(text.split())


def _as_offset(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _check_bounds(start: int, end: int, length: int) -> str | None:
    if start < 0 or end > length:
        return f"offsets [{start}, {end}) are outside the text (length {length})"
    if end <= start:
        return f"offsets [{start}, {end}) are empty or reversed"
    return None


def parse_span_dict(
    data: Any, text: str, mapping: Mapping[str, str] | None = None
) -> tuple[Span | tuple[int, int] | None, str | None]:
    """A JSON/Parquet gold span `{start, end, category|label, subtype?, score?, source?, text?}`.

    Returns `(found, problem)`: `found` is a `Span`, a `(start, end)` region for a label that is
    deliberately not PHI, or None when skipped (the problem says why). A span *and* a problem
    means kept with a caveat.
    """
    if not isinstance(data, Mapping):
        return None, f"is a {type(data).__name__}, not an object"
    label = data.get("category") or data.get("label")
    if label is None:
        return None, "has neither 'category' nor 'label'"
    try:
        resolved = resolve_label(str(label), mapping)
    except UnknownLabel as exc:
        return None, str(exc)
    start, end = _as_offset(data.get("start")), _as_offset(data.get("end"))
    if start is None or end is None:
        return None, "'start' and 'end' must be integers"
    if bad := _check_bounds(start, end, len(text)):
        return None, bad
    if resolved is None:
        return (start, end), None
    category, subtype = resolved
    if data.get("subtype") is not None:
        subtype = str(data["subtype"])
    try:
        score = float(data.get("score", 1.0))
    except (TypeError, ValueError):
        score = 1.0
    span = Span.from_dict(
        {
            "start": start,
            "end": end,
            "category": category.value,
            "subtype": subtype,
            "score": score,
            "source": str(data.get("source") or GOLD_SOURCE),
        }
    )
    stored = data.get("text")
    if isinstance(stored, str) and _norm_ws(stored) != _norm_ws(text[start:end]):
        return span, f"[{start}, {end}): the text at these offsets differs from the span's 'text'"
    return span, None


# --------------------------------------------------------------------------------------- i2b2


@lru_cache(maxsize=1)
def _i2b2_types() -> dict[str, str]:
    """radeid label -> i2b2 TYPE, inverted from the i2b2 label map (first TYPE wins)."""
    inverse: dict[str, str] = {}
    for i2b2_type, target in load_label_map("i2b2_2014").items():
        if target != IGNORE:
            inverse.setdefault(target, i2b2_type)
    return inverse


#: i2b2 2014 parent tag per category. VENDOR has no i2b2 counterpart: written as <VENDOR> so that
#: it reads back as VENDOR rather than being folded into another category.
_I2B2_TAGS: dict[Category, str] = {
    Category.PATIENT: "NAME",
    Category.HCW: "NAME",
    Category.HOSPITAL: "LOCATION",
    Category.LOCATION: "LOCATION",
    Category.VENDOR: "VENDOR",
    Category.ID: "ID",
    Category.PHONE: "CONTACT",
    Category.EMAIL: "CONTACT",
    Category.URL: "CONTACT",
    Category.IP: "CONTACT",
    Category.DATE: "DATE",
    Category.AGE: "AGE",
}

# Characters XML 1.0 cannot carry at all, not even as character references.
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_safe(text: str) -> str:
    """Replace characters XML 1.0 forbids with U+FFFD: same length, so every offset still holds."""
    return _XML_INVALID.sub("\ufffd", text)


def _cdata(text: str) -> str:
    """TEXT content as CDATA, exact on re-parse.

    XML parsers turn CR and CRLF into LF even inside CDATA, so each CR is written as the
    character reference `&#13;` between CDATA sections; `]]>` is split across two sections.
    """
    parts = []
    for piece in _xml_safe(text).split("\r"):
        parts.append(f"<![CDATA[{piece.replace(']]>', ']]]]><![CDATA[>')}]]>" if piece else "")
    return "&#13;".join(parts)


def _attr(value: str) -> str:
    """An attribute value that survives XML attribute-value normalization unchanged."""
    value = _xml_safe(value)
    for raw, ref in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;")):
        value = value.replace(raw, ref)
    return value.replace("\t", "&#9;").replace("\n", "&#10;").replace("\r", "&#13;")


@dataclass(frozen=True)
class OutputTag:
    """An annotation of the *output* text (where a replacement landed), for i2b2/BRAT writers."""

    start: int
    end: int
    category: Category
    subtype: str | None
    text: str


def i2b2_type(category: Category, subtype: str | None) -> str:
    """The i2b2 TYPE for a radeid label; unknown subtypes fall back to the category's TYPE."""
    types = _i2b2_types()
    if subtype and f"{category.value}/{subtype}" in types:
        return types[f"{category.value}/{subtype}"]
    return types.get(category.value, category.value)


def i2b2_xml(text: str, tags: Iterable[OutputTag]) -> str:
    """An i2b2 2014 document: `<deIdi2b2><TEXT>` + `<TAGS>` with one element per tag.

    Characters XML 1.0 cannot represent (form feed, NUL, other C0 controls) become U+FFFD.
    """
    lines = ['<?xml version="1.0" encoding="UTF-8" ?>', "<deIdi2b2>", f"<TEXT>{_cdata(text)}</TEXT>", "<TAGS>"]
    for n, tag in enumerate(tags):
        name = _I2B2_TAGS.get(tag.category, tag.category.value)
        lines.append(
            f'<{name} id="P{n}" start="{tag.start}" end="{tag.end}" text="{_attr(tag.text)}" '
            f'TYPE="{_attr(i2b2_type(tag.category, tag.subtype))}" comment="" />'
        )
    lines += ["</TAGS>", "</deIdi2b2>", ""]
    return "\n".join(lines)


def parse_i2b2(data: bytes, mapping: Mapping[str, str] | None = None) -> tuple[str, ParsedGold]:
    """`(text, gold)` from the bytes of one i2b2 XML file.

    The TYPE attribute is mapped first (with `mapping`, default the bundled `i2b2_2014` map),
    then the tag name. Raises ValueError (with a position, never content) for malformed XML or a
    missing <TEXT>.
    """
    if mapping is None:
        mapping = load_label_map("i2b2_2014")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise ValueError(f"malformed XML: {exc}") from None
    text_el = root if root.tag == "TEXT" else root.find(".//TEXT")
    if text_el is None:
        raise ValueError("no <TEXT> element")
    text = "".join(text_el.itertext())
    gold = ParsedGold()
    tags_el = root.find(".//TAGS")
    for n, el in enumerate(tags_el if tags_el is not None else ()):
        who = f"tag {el.get('id') or f'#{n + 1}'} <{el.tag}>"
        resolved: tuple[Category, str | None] | None = None
        known = False
        for candidate in (el.get("TYPE"), el.tag):
            if not candidate:
                continue
            try:
                resolved = resolve_label(candidate, mapping)
                known = True
                break
            except UnknownLabel:
                continue
        if not known:
            gold.problems.append((None, f"{who}: unknown TYPE {el.get('TYPE')!r}; skipped"))
            continue
        start, end = _as_offset(el.get("start")), _as_offset(el.get("end"))
        if start is None or end is None:
            gold.problems.append((None, f"{who}: 'start' and 'end' must be integers; skipped"))
            continue
        if bad := _check_bounds(start, end, len(text)):
            gold.problems.append((None, f"{who}: {bad}; skipped"))
            continue
        if resolved is None:  # e.g. PROFESSION: annotated, but not PHI for radeid
            gold.ignored.append((start, end))
            continue
        category, subtype = resolved
        gold.spans.append(Span(start, end, category, subtype, 1.0, GOLD_SOURCE))
        stored = el.get("text")
        if stored is not None and _norm_ws(stored) != _norm_ws(text[start:end]):
            gold.problems.append((None, f"{who} [{start}, {end}): the text at these offsets differs from its 'text'"))
    return text, gold


# --------------------------------------------------------------------------------------- BRAT

_BRAT_OFFSETS = re.compile(r"^\d+ \d+(;\d+ \d+)*$")
_BRAT_ID = re.compile(r"T\d{1,9}")


def parse_brat_ann(ann: str, text: str, mapping: Mapping[str, str] | None = None) -> ParsedGold:
    """Gold from the content of a `.ann` file; problems carry the `.ann` line number.

    Only text-bound annotations (`T` lines) are read; relations, events, attributes and notes
    are ignored. A discontinuous annotation (`10 20;25 30`) becomes one span per fragment.
    """
    gold = ParsedGold()
    for lineno, raw in enumerate(ann.split("\n"), 1):
        line = raw.rstrip("\r")
        if not line.startswith("T"):
            continue
        fields = line.split("\t", 2)
        # Only a well-formed id ('T12') is named: a malformed line may hold report text anywhere,
        # so messages carry the file and line (and never the label, which may be a name).
        ann_id = fields[0] if _BRAT_ID.fullmatch(fields[0]) else "annotation"
        if len(fields) < 2 or " " not in fields[1]:
            gold.problems.append((lineno, f"{ann_id}: malformed annotation line; skipped"))
            continue
        label, _, offsets = fields[1].partition(" ")
        offsets = offsets.strip()
        if not _BRAT_OFFSETS.match(offsets):
            gold.problems.append((lineno, f"{ann_id}: malformed offsets; skipped"))
            continue
        try:
            resolved = resolve_label(label, mapping)
        except UnknownLabel:
            gold.problems.append((lineno, f"{ann_id}: unknown label (not shown; see --label-map); skipped"))
            continue
        fragments = [(int(a), int(b)) for a, b in (frag.split(" ") for frag in offsets.split(";"))]
        if bad := next((b for s, e in fragments if (b := _check_bounds(s, e, len(text)))), None):
            gold.problems.append((lineno, f"{ann_id}: {bad}; skipped"))
            continue
        if resolved is None:
            gold.ignored.extend(fragments)
            continue
        category, subtype = resolved
        gold.spans.extend(Span(s, e, category, subtype, 1.0, GOLD_SOURCE) for s, e in fragments)
        if len(fields) == 3:
            at_offsets = " ".join(text[s:e] for s, e in fragments)
            if _norm_ws(fields[2]) != _norm_ws(at_offsets):
                gold.problems.append(
                    (lineno, f"{ann_id} [{offsets}]: the text at these offsets differs from the annotation's text")
                )
    return gold


def brat_label(category: Category, subtype: str | None) -> str:
    """`DATE` or `ID_MRN`: BRAT type names allow letters, digits, `-` and `_`, not `/`."""
    if not subtype:
        return category.value
    return f"{category.value}_{re.sub(r'[^A-Za-z0-9_-]', '-', subtype)}"


def brat_ann(tags: Iterable[OutputTag]) -> str:
    """`.ann` content: one `T` line per tag (zero-length tags cannot be expressed and are left out)."""
    lines = []
    n = 0
    for tag in tags:
        if tag.end <= tag.start:
            continue
        n += 1
        shown = re.sub(r"[\r\n\t]", " ", tag.text)
        lines.append(f"T{n}\t{brat_label(tag.category, tag.subtype)} {tag.start} {tag.end}\t{shown}\n")
    return "".join(lines)
