"""Where the PHI and the prose of one FHIR record are, as character ranges of its JSON text.

A record is one JSON value (a Bundle, or one resource); `radeid.io.fhir_json` gives the range of
every string in it, and this module walks the resources and says, by element:

- **prose** (`NARRATIVE`): `conclusion`, `valueString`, `valueMarkdown`, `description`,
  `note.text`, and the text nodes and comments of `text.div` (XHTML: tags and attributes are not prose);
- **PHI by element** (`STRUCTURED_SPANS`): HumanName `family`/`given`/`text` (a Practitioner's are
  HCW, everyone else's PATIENT), ContactPoint `value` (PHONE or EMAIL by `system`), Address
  `line`/`city`/`postalCode`/`district`/`text` (the state and country stay), `identifier.value`
  (ID; a Patient's are MRNs), an Organization's or Location's `name` (HOSPITAL), a Reference's
  `display` (by the type it refers to: a person's, an organization's or a place's; when the
  reference does not say, HCW under `performer`, `author`, ... and PATIENT elsewhere), and the
  date of every date, dateTime and instant value (`2024-03-12` of `2024-03-12T15:30:00+01:00`: the
  time and zone stay; a year or a year and month
  alone stay, as HIPAA's Safe Harbor allows);
- **resource ids** (ID, subtype `RESOURCE_ID`): a resource's `id`, the id in each `reference`
  (`Patient/abc`, `http://host/fhir/Patient/abc/_history/2`, `urn:uuid:...`), `fullUrl` and a
  transaction's `request.url`; their surrogates are keyed on the value alone, so one id gets one
  pseudonym in every record and file of a run and references still resolve. Contained resources
  (`#p1`) keep their local ids;
- **escapes**: JSON escapes in prose and PHI values. `\\n`, `\\"`, `\\\\`, ... stay byte for byte
  (`VERBATIM`); a `\\u0027` or an XHTML character reference (`&#233;`) is never cut: a span that
  touches one covers it whole (`ATOMIC`); XHTML's named entities (`&amp;`) stay. (A pure-ASCII
  record's escapes of non-ASCII characters are decoded by `radeid.io.fhir` before it gets here.)

The patient key is the first Patient's id, else the id that a `subject` or `patient` reference
points at.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field

from radeid.core.categories import Category
from radeid.io.fhir_json import ESCAPE, JArray, JNode, JObject, JString, decode_map

__all__ = ["RESOURCE_ID", "RecordMap", "Resource", "at", "map_record", "text_attachments"]

#: The subtype of a resource id's span: its surrogate is keyed on the value alone (one run-wide pseudonym).
RESOURCE_ID = "RESOURCE_ID"
#: A date, dateTime or instant: the date part is PHI (a partial date is kept).
_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?)?")
#: The id in a reference: `Type/id`, optionally after a base URL and before `/_history/n`.
_REFERENCE = re.compile(r"(?:^|/)([A-Z][A-Za-z]+)/([A-Za-z0-9\-.]{1,64})(?:/_history/[^/]+)?$")
_URN = re.compile(r"^urn:(?:uuid|oid):([0-9A-Za-z\-.]+)$")
_TAG = re.compile(r"<!--(.*?)-->|<!\[CDATA\[.*?\]\]>|<[^>]*>", re.S)
_ENTITY = re.compile(r"&(?:#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
#: A word of a name written whole; the words that are titles, not names.
_WORD = re.compile(r"[^\s,;:()\"]+")
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "miss", "prof", "md", "phd", "do", "rn", "jr", "sr", "ii", "iii", ""})
_PROSE = frozenset({"conclusion", "valueString", "valueMarkdown", "description"})
#: Keys whose string values are codes or addresses, never dates to shift.
_NOT_DATES = frozenset({"system", "code", "url", "reference", "id", "version", "fullUrl", "div"})
_PRACTITIONERS = frozenset({"Practitioner", "PractitionerRole"})
_PLACES = frozenset({"Organization", "Location"})
_BY_REFERENCE = {
    "Patient": Category.PATIENT,
    "RelatedPerson": Category.PATIENT,
    "Practitioner": Category.HCW,
    "PractitionerRole": Category.HCW,
    "Organization": Category.HOSPITAL,
    "Location": Category.HOSPITAL,
}
_ADDRESS = {
    "line": ("STREET", Category.LOCATION),
    "city": ("CITY", Category.LOCATION),
    "postalCode": ("ZIP", Category.LOCATION),
    "district": (None, Category.LOCATION),
    "text": (None, Category.LOCATION),
}


@dataclass(frozen=True)
class Resource:
    """One resource of a record (the record itself, or a Bundle entry's), for validation."""

    type: str | None
    id: str | None
    start: int
    end: int


@dataclass
class RecordMap:
    """What `map_record` found: ranges into the record text (see `radeid.core.metakeys`)."""

    narrative: list[list[int]] = field(default_factory=list)
    structured: list[list[object]] = field(default_factory=list)
    verbatim: list[list[int]] = field(default_factory=list)
    atomic: list[list[int]] = field(default_factory=list)
    resources: list[Resource] = field(default_factory=list)
    patient_id: str | None = None
    referred_patient: str | None = None
    xhtml: bool = False
    #: Where the `data` strings read decoded from base64 start (prose, see `radeid.io.fhir`).
    decoded: Collection[int] = ()
    #: Resource types by what a reference may say instead of `Type/id`: `#p1` (a contained
    #: resource) or an entry's `fullUrl` (`urn:uuid:...`).
    local: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Where:
    """The resource a value is in, and whether it is a contained one."""

    type: str
    contained: bool = False


def map_record(text: str, root: JNode, decoded: Collection[int] = ()) -> RecordMap:
    """The prose, PHI, escapes, resources and patient key of one record (`root`: its scanned JSON;
    `decoded`: where the attachment texts read decoded from base64 start)."""
    found = RecordMap(decoded=frozenset(decoded))
    if not isinstance(root, JObject):
        return found
    _resource(text, root, found, contained=False)
    found.structured.sort(key=lambda s: (s[0], s[1]))
    found.narrative.sort()
    found.verbatim.sort()
    found.atomic.sort()
    found.patient_id = found.patient_id or found.referred_patient
    return found


def _resource(text: str, node: JObject, found: RecordMap, *, contained: bool) -> None:
    kind = node.string("resourceType", text) or ""
    where = _Where(kind, contained)
    own_id = node.items.get("id")
    if not contained:
        found.resources.append(Resource(kind or None, node.string("id", text), node.start, node.end))
        if isinstance(own_id, JString):
            _resource_id(text, own_id.start, own_id.end, found)
        if kind == "Patient" and found.patient_id is None:
            found.patient_id = node.string("id", text)
    for item in _objects(node.items.get("contained", JArray(0))):  # before any `#id` that refers to one
        found.local[f"#{item.string('id', text)}"] = item.string("resourceType", text) or ""
    for key, value in node.items.items():
        if key in ("resourceType", "id"):
            continue
        if key == "entry" and kind == "Bundle" and isinstance(value, JArray):
            _entries(text, value, found)
        elif key == "contained":
            for item in _objects(value):
                _resource(text, item, found, contained=True)
        else:
            _element(text, key, value, where, found)


def _entries(text: str, entries: JArray, found: RecordMap) -> None:
    for entry in _objects(entries):  # first what each fullUrl is, for references that use it
        resource = entry.items.get("resource")
        if isinstance(resource, JObject) and (url := entry.string("fullUrl", text)):
            found.local[url] = resource.string("resourceType", text) or ""
    for entry in _objects(entries):
        for key, value in entry.items.items():
            if key == "resource" and isinstance(value, JObject):
                _resource(text, value, found, contained=False)
            elif key == "fullUrl" and isinstance(value, JString):
                _reference(text, value, found)
            else:
                _element(text, key, value, _Where("BundleEntry"), found)


def _items(node: JNode) -> Iterator[JNode]:
    """A repeating element's items (or the one value of a single one)."""
    yield from node.items if isinstance(node, JArray) else (node,)


def _objects(node: JNode) -> Iterator[JObject]:
    yield from (item for item in _items(node) if isinstance(item, JObject))


def _element(text: str, key: str, node: JNode, where: _Where, found: RecordMap) -> None:
    """One element of a resource (`key` and its value), by what the key says it is."""
    handler = _HANDLERS.get(key)
    if handler is not None and handler(text, node, where, found):
        return
    if isinstance(node, JString):
        if key not in _NOT_DATES:
            _date(text, node, found)
        return
    for item in _items(node):
        if isinstance(item, JObject):
            reference = key not in _CODINGS and _is_reference(item)
            if reference and "display" in item.items:
                _display_of(text, item, found, Category.HCW if key in _STAFF else Category.PATIENT)
            for sub_key, value in item.items.items():
                if not (reference and sub_key == "display"):
                    _element(text, sub_key, value, where, found)
        elif isinstance(item, JString) and key not in _NOT_DATES:
            _date(text, item, found)


#: Elements that refer to staff: a display-only Reference there is a clinician's name.
_STAFF = frozenset(
    {
        "performer",
        "resultsInterpreter",
        "author",
        "requester",
        "practitioner",
        "generalPractitioner",
        "authenticator",
        "recorder",
        "asserter",
    }
)
#: Elements whose objects are Codings, whose `display` is a code's name, never a person's.
_CODINGS = frozenset({"coding", "valueCoding", "class", "tag", "security", "code", "category", "type"})


def _is_reference(node: JObject) -> bool:
    """A Reference: a `reference`, a `type` or an `identifier`, or a `display` alone (no code)."""
    keys = node.items.keys()
    return bool({"reference", "type", "identifier"} & keys) or ("display" in keys and not {"code", "system"} & keys)


# ------------------------------------------------------------------------------ element handlers
# Each returns True when it took the element whole (False: walk it as any other element).


def _prose(text: str, node: JNode, where: _Where, found: RecordMap) -> bool:
    if not isinstance(node, JString):
        return False
    _narrative(text, node.start, node.end, found)
    return True


def _note(text: str, node: JNode, where: _Where, found: RecordMap) -> bool:
    for note in _objects(node):
        for key, value in note.items.items():
            if key == "text" and isinstance(value, JString):
                _narrative(text, value.start, value.end, found)
            elif key == "authorString" and isinstance(value, JString):
                _words(text, value, Category.HCW, None, found)
            else:
                _element(text, key, value, where, found)
    return True


def _narrative_text(text: str, node: JNode, where: _Where, found: RecordMap) -> bool:
    """A resource's `text` (Narrative): the text nodes of its `div`."""
    if not isinstance(node, JObject) or not isinstance(node.items.get("div"), JString):
        return False
    div = node.items["div"]
    assert isinstance(div, JString)  # noqa: S101 - checked above
    found.xhtml = True
    value, places = decode_map(text, div)
    cursor = 0
    for m in [*_TAG.finditer(value), None]:
        stop = m.start() if m else len(value)
        if stop > cursor:
            _xhtml_text(text, value, places, (cursor, stop), found)
        if m and m.group(1):  # a comment is not shown, but it is written: prose too
            _xhtml_text(text, value, places, m.span(1), found)
        cursor = m.end() if m else cursor
    return True


def _xhtml_text(text: str, value: str, places: list[int], where: tuple[int, int], found: RecordMap) -> None:
    """One XHTML text node: prose, its entities kept (named) or whole (numeric)."""
    start, stop = where
    _narrative(text, places[start], places[stop], found)
    for m in _ENTITY.finditer(value, start, stop):
        target = found.atomic if m.group().startswith("&#") else found.verbatim
        target.append([places[m.start()], places[m.end()]])


def _name(text: str, node: JNode, where: _Where, found: RecordMap) -> bool:
    if isinstance(node, JString):
        if where.type in _PLACES:
            _value(text, node, Category.HOSPITAL, None, found)
        return True
    category = Category.HCW if where.type in _PRACTITIONERS else Category.PATIENT
    for name in _objects(node):
        for key in ("family", "given", "text"):
            for part in _items(name.items.get(key, JArray(0))):
                if isinstance(part, JString):
                    (_words if key == "text" else _value)(text, part, category, None, found)
        for key, value in name.items.items():
            if key not in ("family", "given", "text"):
                _element(text, key, value, where, found)
    return True


def _alias(text: str, node: JNode, where: _Where, found: RecordMap) -> bool:
    if where.type not in _PLACES:
        return False
    for item in _items(node):
        if isinstance(item, JString):
            _value(text, item, Category.HOSPITAL, None, found)
    return True


def _telecom(text: str, node: JNode, where: _Where, found: RecordMap) -> bool:
    for point in _objects(node):
        value = point.items.get("value")
        if isinstance(value, JString):
            email = point.string("system", text) == "email"
            _value(text, value, Category.EMAIL if email else Category.PHONE, None, found)
        for key, other in point.items.items():
            if key != "value":
                _element(text, key, other, where, found)
    return True


def _address(text: str, node: JNode, where: _Where, found: RecordMap) -> bool:
    for address in _objects(node):
        for key, value in address.items.items():
            if key in _ADDRESS:
                subtype, category = _ADDRESS[key]
                for part in _items(value):
                    if isinstance(part, JString):
                        _value(text, part, category, subtype, found)
            elif key not in ("state", "country", "use", "type"):
                _element(text, key, value, where, found)
    return True


def _identifier(text: str, node: JNode, where: _Where, found: RecordMap) -> bool:
    for ident in _objects(node):
        for key, value in ident.items.items():
            if key == "value" and isinstance(value, JString):
                subtype = "MRN" if where.type == "Patient" or '"MR"' in text[ident.start : ident.end] else None
                _value(text, value, Category.ID, subtype, found)
            elif key not in ("system", "use"):
                _element(text, key, value, where, found)
    return True


def _reference_element(text: str, node: JNode, where: _Where, found: RecordMap) -> bool:
    """A Reference's `reference` string (its id)."""
    if not isinstance(node, JString):
        return False
    _reference(text, node, found)
    return True


def _entry_url(text: str, node: JNode, where: _Where, found: RecordMap) -> bool:
    """A transaction's `request.url` and a response's `location` (`Patient/abc`) are references."""
    return where.type == "BundleEntry" and _reference_element(text, node, where, found)


def _subject(text: str, node: JNode, where: _Where, found: RecordMap) -> bool:
    """`subject` or `patient`: the patient the record is about, when it has no Patient resource."""
    for ref in _objects(node):
        reference = ref.string("reference", text)
        m = _REFERENCE.search(reference) if reference else None
        if m and m.group(1) == "Patient" and found.referred_patient is None:
            found.referred_patient = m.group(2)
    return False


def _display_of(text: str, node: JObject, found: RecordMap, unsaid: Category = Category.PATIENT) -> None:
    """A Reference's `display`, by the type it refers to (a patient's name is PATIENT)."""
    display, reference = node.items.get("display"), node.string("reference", text) or ""
    m = _REFERENCE.search(reference)
    kind = found.local.get(reference) or (m.group(1) if m else None) or node.string("type", text)
    if not isinstance(display, JString):
        return
    if kind is None:  # a reference that says nothing of what it refers to: its display may be a person
        _words(text, display, unsaid, None, found)
    elif kind in _BY_REFERENCE:
        category = _BY_REFERENCE[kind]
        (_value if category is Category.HOSPITAL else _words)(text, display, category, None, found)


def _data(text: str, node: JNode, where: _Where, found: RecordMap) -> bool:
    """An attachment's `data`: prose when it was read decoded (a text/plain attachment)."""
    if isinstance(node, JString) and node.start in found.decoded:
        _narrative(text, node.start, node.end, found)
    return True


def _hash(text: str, node: JNode, where: _Where, found: RecordMap) -> bool:
    """An attachment's `hash` (SHA-1 of its data) would confirm a guess of the original text: an ID."""
    if isinstance(node, JString):
        _value(text, node, Category.ID, None, found)
    return True


_HANDLERS = {
    "data": _data,
    "hash": _hash,
    "conclusion": _prose,
    "valueString": _prose,
    "valueMarkdown": _prose,
    "description": _prose,
    "note": _note,
    "text": _narrative_text,
    "name": _name,
    "valueHumanName": _name,
    "alias": _alias,
    "telecom": _telecom,
    "valueContactPoint": _telecom,
    "address": _address,
    "valueAddress": _address,
    "identifier": _identifier,
    "valueIdentifier": _identifier,
    "reference": _reference_element,
    "url": _entry_url,
    "location": _entry_url,
    "subject": _subject,
    "patient": _subject,
}


# ------------------------------------------------------------------------------------ the spans


def _value(text: str, node: JString, category: Category, subtype: str | None, found: RecordMap) -> None:
    """A PHI value: one span over its content (trimmed; none when empty), its escapes noted."""
    start, end = node.start, node.end
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        found.structured.append([start, end, category.value, subtype])
        _escapes(text, start, end, found)


def _words(text: str, node: JString, category: Category, subtype: str | None, found: RecordMap) -> None:
    """A person's name written whole (`display`, `HumanName.text`): one span a word, titles left
    out, as HL7 gives one a component, so the resolver finds the surname alone in the text too."""
    for m in _WORD.finditer(text, node.start, node.end):
        word = m.group().rstrip(".")
        if word.casefold() not in _TITLES:
            found.structured.append([m.start(), m.start() + len(word), category.value, subtype])
            _escapes(text, m.start(), m.end(), found)


def _narrative(text: str, start: int, end: int, found: RecordMap) -> None:
    if start < end:
        found.narrative.append([start, end])
        _escapes(text, start, end, found)


def _escapes(text: str, start: int, end: int, found: RecordMap) -> None:
    for m in ESCAPE.finditer(text, start, end):
        (found.atomic if m.group().startswith("\\u") else found.verbatim).append([m.start(), m.end()])


def _date(text: str, node: JString, found: RecordMap) -> None:
    m = _DATE.fullmatch(text, node.start, node.end)
    if m is not None:
        found.structured.append([m.start(1), m.end(1), Category.DATE.value, None])


def _reference(text: str, node: JString, found: RecordMap) -> None:
    """The id inside a reference or full URL (`Patient/abc`, `urn:uuid:...`); `#local` stays."""
    value = text[node.start : node.end]
    m = _REFERENCE.search(value) or _URN.match(value)
    if m is not None:
        group = m.lastindex or 1
        _resource_id(text, node.start + m.start(group), node.start + m.end(group), found)


def _resource_id(text: str, start: int, end: int, found: RecordMap) -> None:
    if start < end and not ESCAPE.search(text, start, end):
        found.structured.append([start, end, Category.ID.value, RESOURCE_ID])


# ------------------------------------------------------------------------------------ attachments

_TEXT_PLAIN = re.compile(r"\s*text/plain\s*(?:;\s*charset\s*=\s*\"?([\w.:-]+)\"?)?\s*", re.I)
Path = tuple[str | int, ...]


def text_attachments(text: str, root: JNode, path: Path = ()) -> Iterator[tuple[Path, str]]:
    """The path of every `data` of a text/plain Attachment (any object with `contentType` and
    `data`), with its charset (UTF-8 when the content type names none)."""
    if isinstance(root, JObject):
        kind = root.string("contentType", text)
        m = _TEXT_PLAIN.fullmatch(kind) if kind else None
        if m is not None and isinstance(root.items.get("data"), JString):
            yield (*path, "data"), (m.group(1) or "utf-8").lower()
        for key, value in root.items.items():
            yield from text_attachments(text, value, (*path, key))
    elif isinstance(root, JArray):
        for n, value in enumerate(root.items):
            yield from text_attachments(text, value, (*path, n))


def at(root: JNode, path: Path) -> JNode:
    """The value at `path` (keys and indexes) of a scanned record."""
    node = root
    for step in path:
        node = node.items[step]  # type: ignore[union-attr,index]
    return node
