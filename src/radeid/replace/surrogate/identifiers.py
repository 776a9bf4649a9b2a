"""Identifiers, phones, e-mail addresses, URLs and IP addresses.

IDs keep their shape (digit for digit, letter for letter, case and separators kept) so that
downstream parsers and models see the same patterns; they are keyed on the normalised value, so
"123-45-678" and "12345678" of one patient become the same digits. Phones and the network
values go to ranges reserved for fiction and documentation: 555-01XX numbers, example.* domains,
192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24 and 2001:db8::/32. SSNs get an area number in
900-999 with a group number below 50, which the SSA never issues and which is no valid ITIN.
"""

from __future__ import annotations

import ipaddress
import re
from typing import NamedTuple

from radeid.core.categories import RESOURCE_ID
from radeid.core.document import Span
from radeid.replace.surrogate.base import SurrogateContext
from radeid.replace.surrogate.keyed import KeyStream, fold, fold_alnum, fold_name, shape_scramble

_SSN = re.compile(r"\d{3}[- ]\d{2}[- ]\d{4}")
#: a DICOM UID or other OID: dot-separated numbers (three from arc 0-2, else four or more)
_UID = re.compile(r"[0-2](?:\.\d+){2,}|\d+(?:\.\d+){3,}")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = "0123456789abcdef"


def _place_digits(template: str, digits: str) -> str:
    """Write `digits` into the digit positions of `template`, keeping every other character."""
    it = iter(digits)
    return "".join([next(it) if ch.isdigit() else ch for ch in template])


def _attempt_parts(attempt: int) -> tuple[str, ...]:
    return (str(attempt),) if attempt else ()


class _Parsed(NamedTuple):  # a tuple: made for every span, a frozen dataclass costs twice as much
    original: str
    norm: str
    subtype: str


class IdGenerator:
    """MRNs, accession numbers, account numbers, licences, SSNs: shape kept, values keyed."""

    realism_check = True

    def parse(self, original: str, span: Span, ctx: SurrogateContext) -> _Parsed:
        return _Parsed(original, fold_alnum(original), (span.subtype or "").upper())

    def generate(self, parsed: _Parsed, ctx: SurrogateContext, attempt: int) -> str:
        if parsed.subtype == RESOURCE_ID:  # a record's own id (FHIR): one pseudonym in the whole run
            return _resource_id(
                parsed.original, ctx.keyed.stream("corpus", "resource-id", parsed.original, *_attempt_parts(attempt))
            )
        stream = ctx.keyed.stream(ctx.scope, "id", parsed.norm, *_attempt_parts(attempt))
        # an SSN by its subtype or its form, with 9 digits (digits counted only then)
        if (parsed.subtype == "SSN" or _SSN.fullmatch(parsed.original)) and sum(
            ch.isdigit() for ch in parsed.original
        ) == 9:
            area = 900 + stream.below(100)
            group = 1 + stream.below(49)
            serial = 1 + stream.below(9999)
            return _place_digits(parsed.original, f"{area:03d}{group:02d}{serial:04d}")
        if "." in parsed.original and _UID.fullmatch(parsed.original):
            return uid_surrogate(parsed.original, stream)
        return shape_scramble(parsed.original, stream)


def _resource_id(original: str, stream: KeyStream) -> str:
    """A resource id's pseudonym: a UUID stays a UUID (hex for hex), anything else keeps its shape."""
    if not _UUID.fullmatch(original):
        return shape_scramble(original, stream)
    out = [ch if ch == "-" else _HEX[stream.below(16)] for ch in original]
    return "".join(c.upper() if o.isupper() else c for c, o in zip(out, original, strict=True))


def uid_surrogate(uid: str, stream: KeyStream) -> str:
    """A valid UID of the same shape (DICOM PS3.5 9.1: an OID, at most 64 characters): each
    component keeps its number of digits, none but a lone "0" starts with 0, the first arc is 1
    or 2 and the second, under arc 1, stays below 40. A shape kept digit for digit gives the
    surrogate the original's length, so a valid original gives a valid surrogate."""
    parts = uid.split(".")
    out: list[str] = []
    for i, part in enumerate(parts):
        n = len(part)
        if i == 0 and n == 1:
            new = stream.choice("12")
        elif i == 1 and out[0] == "1" and n == 2:
            new = str(10 + stream.below(30))
        elif n == 1:
            new = stream.digit()
        else:
            new = str(1 + stream.below(9)) + stream.digits(n - 1)
        out.append(new)
    return ".".join(out)


_COUNTRY_CODE = re.compile(r"\s*(?:\+|00)(?!1\b)\d{2}(?!\d)|\s*\+\d{1,3}(?!\d)|\s*(?:\(0\)|0)(?=\d)")


def _trunk_prefix(original: str, locale: str) -> str:
    """What a number's own country keeps: `+49`, `+34`, or (outside North American locales)
    `0049` or the trunk `0` of `06221`. North American numbers have none: they become NPA-555-01XX."""
    text = original.lstrip()
    trunk = not locale.endswith(("_US", "_CA")) and (text.startswith("0") or text.startswith("(0)"))
    if text.startswith("+1") or not (text.startswith("+") or trunk):
        return ""
    m = _COUNTRY_CODE.match(original)
    return m.group() if m else ""


def _nonzero_start(text: str, stream: KeyStream) -> str:
    """The first digit made 1-9: after a country code or trunk 0, an area code never starts with 0."""
    for i, ch in enumerate(text):
        if ch.isdigit():
            return text[:i] + (ch if ch != "0" else str(1 + stream.below(9))) + text[i + 1 :]
    return text


class PhoneGenerator:
    """Phone, fax and pager numbers: North American numbers become NPA-555-01XX."""

    realism_check = True

    def parse(self, original: str, span: Span, ctx: SurrogateContext) -> _Parsed:
        digits = "".join(filter(str.isdigit, original))
        if len(digits) == 11 and digits[0] == "1":
            digits = digits[1:]
        return _Parsed(original, digits, (span.subtype or "").upper())

    def generate(self, parsed: _Parsed, ctx: SurrogateContext, attempt: int) -> str:
        stream = ctx.keyed.stream(ctx.scope, "phone", parsed.norm, *_attempt_parts(attempt))
        original = parsed.original
        digits = [ch for ch in original if ch.isdigit()]
        n = len(digits)
        head = _trunk_prefix(original, ctx.options.locale)
        if head:  # +49 30 ..., 0049 ..., 06221 ...: the country code and trunk 0 stay, the rest is keyed
            return head + _nonzero_start(shape_scramble(original[len(head) :], stream), stream)
        if n < 7 or n in (8, 9):
            return shape_scramble(original, stream)
        line = f"55501{stream.below(100):02d}"
        if n == 7:
            new = line
        else:
            lead = ""
            if n >= 11 and digits[0] == "1":
                lead = "1"
            area = f"{2 + stream.below(8)}{stream.below(9)}{stream.below(10)}"
            if area[1:] == "11":
                area = area[0] + "10"
            new = lead + area + line
            new += "".join(stream.digit() for _ in range(n - len(new)))  # extension digits
        return _place_digits(original, new[:n])


_WEB_WORDS = (
    "mail", "portal", "secure", "web", "apps", "imaging", "records", "docs", "files", "info",
)  # fmt: skip
_KEEP_PATH_WORDS = frozenset(
    """api app apps patient patients report reports image images viewer view study studies index
    html htm php aspx jsp pdf jpg jpeg png gif dcm dicom txt xml json results result portal login
    home www radiology pacs search query id ids exam exams order orders doc docs files file""".split()
)
_URL = re.compile(r"(?P<scheme>[A-Za-z][\w+.\-]*://)?(?P<host>[^/?#:\s]+)(?P<port>:\d+)?(?P<rest>.*)", re.S)


def _safe_domain(labels: list[str], stream: KeyStream) -> list[str]:
    """example.org/.net/.com after the original TLD, with keyed filler words for subdomains."""
    tld = labels[-1].lower() if labels else "com"
    base = ["example", tld if tld in ("org", "net") else "com"]
    extra = [stream.choice(_WEB_WORDS) for _ in labels[:-2]]
    if labels and labels[0].lower() == "www" and len(labels) > 2:
        extra[0] = "www"
    out = extra + base
    if labels and all(lab.isupper() for lab in labels if lab.isalpha()) and any(c.isalpha() for c in "".join(labels)):
        out = [lab.upper() for lab in out]
    return out


def _scramble_path(rest: str, stream: KeyStream) -> str:
    """Path, query and fragment: known web words and file extensions stay, the rest is keyed
    letter for letter and digit for digit."""
    out = []
    for m in re.finditer(r"[^\W_]+|[\W_]+", rest):
        tok = m.group()
        if not tok[0].isalnum() or tok.casefold() in _KEEP_PATH_WORDS:
            out.append(tok)
        else:
            out.append(shape_scramble(tok, stream))
    return "".join(out)


class EmailGenerator:
    """user@host -> fake.user@example.org: words of the local part that are names in this
    document get the same fake parts as the names, so j.smith@ stays Dr. Smith's address."""

    realism_check = True

    def parse(self, original: str, span: Span, ctx: SurrogateContext) -> _Parsed:
        return _Parsed(original, fold(original), "")

    def generate(self, parsed: _Parsed, ctx: SurrogateContext, attempt: int) -> str:
        original = parsed.original
        stream = ctx.keyed.stream(ctx.scope, "email", parsed.norm, *_attempt_parts(attempt))
        local, at, domain = original.rpartition("@")
        if not at:
            return shape_scramble(original, stream)
        pieces = []
        for m in re.finditer(r"[^\W\d_]+|\d+|[\W_]+", local):
            tok = m.group()
            if tok[0].isdigit():
                pieces.append("".join(stream.digit() for _ in tok))
            elif tok[0].isalpha():
                fake = ctx.memory.email_words.get(fold_name(tok)) if not attempt else None
                if fake is None:
                    fake = shape_scramble(tok, stream)
                pieces.append(fake.upper() if tok.isupper() else fake.lower())
            else:
                pieces.append(tok)
        labels = domain.split(".")
        return "".join(pieces) + "@" + ".".join(_safe_domain(labels, stream))


class UrlGenerator:
    """Scheme and port kept, host to an example.* domain, path words keyed."""

    realism_check = True

    def parse(self, original: str, span: Span, ctx: SurrogateContext) -> _Parsed:
        return _Parsed(original, fold(original), "")

    def generate(self, parsed: _Parsed, ctx: SurrogateContext, attempt: int) -> str:
        stream = ctx.keyed.stream(ctx.scope, "url", parsed.norm, *_attempt_parts(attempt))
        m = _URL.fullmatch(parsed.original)
        if m is None or "." not in m.group("host"):
            return _scramble_path(parsed.original, stream)
        host = m.group("host")
        try:
            ipaddress.ip_address(host)
            new_host = _ip_surrogate(host, stream)
        except ValueError:
            new_host = ".".join(_safe_domain(host.split("."), stream))
        return (m.group("scheme") or "") + new_host + (m.group("port") or "") + _scramble_path(m.group("rest"), stream)


_V4_RANGES = ("192.0.2.", "198.51.100.", "203.0.113.")
_V4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_V6 = re.compile(r"[0-9A-Fa-f:]*:[0-9A-Fa-f:]*(?:\.\d{1,3}){0,3}")


def _ip_surrogate(text: str, stream: KeyStream) -> str:
    """An address from the documentation ranges, in the original's notation."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return shape_scramble(text, stream)
    if address.version == 4:
        return stream.choice(_V4_RANGES) + str(1 + stream.below(254))
    groups = [0x2001, 0x0DB8] + [stream.below(0x10000) for _ in range(6)]
    if "::" in text:
        at = 2 + stream.below(5)
        groups[at] = groups[at + 1] = 0  # compressible to "::", as the original was
        new = str(ipaddress.IPv6Address(":".join(f"{g:x}" for g in groups)))
    else:
        new = ":".join(f"{g:x}" for g in groups)
    return new.upper() if any(c.isupper() for c in text) else new


class IpGenerator:
    """IPv4 and IPv6 addresses (a port or prefix length around them is kept)."""

    realism_check = True

    def parse(self, original: str, span: Span, ctx: SurrogateContext) -> _Parsed:
        return _Parsed(original, fold(original), "")

    def generate(self, parsed: _Parsed, ctx: SurrogateContext, attempt: int) -> str:
        stream = ctx.keyed.stream(ctx.scope, "ip", parsed.norm, *_attempt_parts(attempt))
        original = parsed.original
        for pattern in (_V4, _V6):
            for m in pattern.finditer(original):
                try:
                    ipaddress.ip_address(m.group())
                except ValueError:
                    continue
                return original[: m.start()] + _ip_surrogate(m.group(), stream) + original[m.end() :]
        return shape_scramble(original, stream)
