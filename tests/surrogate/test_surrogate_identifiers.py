"""IDs, phones, SSNs, e-mail, URLs and IPs: shape kept, fictional ranges, never the original."""

from __future__ import annotations

import ipaddress
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from surrogate_helpers import KEY, OTHER_KEY, doc_with

from radeid import Category, Document, Span
from radeid.replace.surrogate import SurrogateReplacer

SETTINGS = settings(max_examples=80, deadline=None)


def one(text: str, category: Category, subtype: str | None = None, key: bytes = KEY, patient: str = "p1") -> str:
    doc = Document("d", f"<{text}>", patient_id=patient)
    result = SurrogateReplacer(key).replace(doc, [Span(1, 1 + len(text), category, subtype)])
    assert result.text == f"<{result.replacements[0].new_text}>"
    return result.replacements[0].new_text


def shape(text: str) -> list[str]:
    return ["9" if c.isdigit() else "A" if c.isupper() else "a" if c.islower() else c for c in text]


id_text = st.text(alphabet="0123456789ABCDEFGHJKXYZabcxyz-/.# ", min_size=1, max_size=20).filter(
    lambda s: any(c.isalnum() for c in s) and s.strip() == s
)


@SETTINGS
@given(value=id_text, patient=st.text(min_size=1, max_size=6))
def test_ids_keep_their_shape_and_never_stay_the_same(value: str, patient: str) -> None:
    new = one(value, Category.ID, patient=patient)
    assert shape(new) == shape(value)
    assert new != value


@SETTINGS
@given(
    digits=st.text(alphabet="0123456789", min_size=10, max_size=10),
    layout=st.sampled_from(["({}{}{}) {}{}{}-{}{}{}{}", "{}{}{}-{}{}{}-{}{}{}{}", "{}{}{}.{}{}{}.{}{}{}{}",
                            "+1 {}{}{} {}{}{} {}{}{}{}", "1-{}{}{}-{}{}{}-{}{}{}{}", "{}{}{}{}{}{}{}{}{}{}"]),
)  # fmt: skip
def test_phones_keep_their_layout_and_use_555_01xx(digits: str, layout: str) -> None:
    phone = layout.format(*digits)
    new = one(phone, Category.PHONE)
    assert shape(new) == shape(phone) and new != phone
    core = re.sub(r"\D", "", new)
    core = core[1:] if len(core) == 11 else core
    assert core[3:8] == "55501" and core[0] in "23456789"


def test_short_and_extension_phones() -> None:
    assert re.fullmatch(r"555-01\d\d", one("867-5309", Category.PHONE))
    new = one("(617) 726-2000 ext. 4521", Category.PHONE)
    assert re.fullmatch(r"\(\d{3}\) 555-01\d\d ext\. \d{4}", new)
    intl = one("+44 20 7946 0958", Category.PHONE)
    assert shape(intl) == shape("+44 20 7946 0958") and intl != "+44 20 7946 0958"


def test_ssns_use_never_issued_area_numbers() -> None:
    for value in ("123-45-6789", "078-05-1120", "219 09 9999"):
        new = one(value, Category.ID, "SSN")
        area, group = int(new[:3]), int(new[4:6])
        assert area >= 900 and 1 <= group < 50 and shape(new) == shape(value)


def test_one_id_in_two_writings_gets_one_surrogate_digits() -> None:
    a = one("123-45-678", Category.ID)
    b = one("12345678", Category.ID)
    assert re.sub(r"\D", "", a) == b


def test_ids_are_keyed_by_patient_and_key() -> None:
    base = one("MRN0012345", Category.ID)
    assert base == one("MRN0012345", Category.ID)
    assert base != one("MRN0012345", Category.ID, patient="p2")
    assert base != one("MRN0012345", Category.ID, key=OTHER_KEY)


@pytest.mark.parametrize(
    ("email", "domain"),
    [("agrant@jurassic-health.org", "example.org"), ("JDOE@MAIL.HOSPITAL.COM", "EXAMPLE.COM"),
     ("x.y123@dept.uni.edu", "example.com"), ("pat@net.net", "example.net")],
)  # fmt: skip
def test_emails_go_to_example_domains_with_the_same_structure(email: str, domain: str) -> None:
    new = one(email, Category.EMAIL)
    local, _, host = new.partition("@")
    assert host.endswith(domain) and host.count(".") == email.split("@")[1].count(".")
    assert new != email and "@" in new

    def skeleton(part: str) -> str:  # words -> "a", digits -> "9": separators and digit counts
        return re.sub(r"[^\W\d_]+", "a", re.sub(r"\d", "9", part))

    assert skeleton(local) == skeleton(email.split("@")[0])


def test_urls_keep_scheme_port_and_file_types() -> None:
    new = one("https://portal.mgh.harvard.edu:8443/patients/12345/report.pdf", Category.URL)
    m = re.fullmatch(r"https://(\w+\.)*example\.com:8443/patients/\d{5}/report\.pdf", new)
    assert m, new
    assert one("www.mayoclinic.org", Category.URL).endswith("example.org")


def test_ips_go_to_documentation_ranges() -> None:
    docs_v4 = [ipaddress.ip_network(n) for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24")]
    for ip in ("10.0.0.1", "172.16.254.3", "8.8.8.8"):
        new = ipaddress.ip_address(one(ip, Category.IP))
        assert any(new in net for net in docs_v4)
    port = one("10.0.0.1:8080", Category.IP)
    assert port.endswith(":8080")
    for ip in ("fe80::1ff:fe23:4567:890a", "2607:f8b0:4005:80a:0:0:0:200e", "FE80::1"):
        new = one(ip, Category.IP)
        assert ipaddress.ip_address(new) in ipaddress.ip_network("2001:db8::/32")
        assert ("::" in new) == ("::" in ip)
        assert (new.upper() == new) == (ip.upper() == ip)


def test_realism_no_surrogate_is_another_original_of_the_document() -> None:
    # many IDs of one shape in one document: no surrogate may equal any of them
    ids = [f"{i:02d}" for i in range(0, 100, 3)]
    text = " ".join(ids)
    doc, spans = doc_with(text, [(v, Category.ID, 0) for v in ids])
    result = SurrogateReplacer(KEY).replace(doc, spans)
    news = [r.new_text for r in result.replacements]
    assert not set(news) & set(ids)


_VALID_UID = re.compile(r"(?:0|[1-9]\d*)(?:\.(?:0|[1-9]\d*))+")
_UIDS = (
    "1.2.840.113619.2.55.3.604688119.969.1253457676.123",
    "1.3.12.2.1107.5.2.30.25245.2019030514302587654301",
    "2.25.301245698124583094850398458309458",
    "1.2.392.200036.9116.2.6.1.48.1214833767.1398645600.109022",
)


@pytest.mark.parametrize("uid", _UIDS)
def test_dicom_uids_stay_valid_uids_for_many_keys(uid: str) -> None:
    """Issue 28: components like "0.6.063..." appeared; a UID surrogate is a valid UID of the
    same component count (no leading zero but a lone "0", first arc 1 or 2, at most 64 chars)."""
    seen = set()
    for k in range(50):
        new = one(uid, Category.ID, key=f"uid-key-{k}".encode())
        assert _VALID_UID.fullmatch(new), new
        assert new.count(".") == uid.count(".")
        assert len(new) <= 64
        assert new.split(".")[0] in ("1", "2")
        if new.split(".")[0] == "1":
            assert int(new.split(".")[1]) < 40
        assert new != uid
        seen.add(new)
    assert len(seen) == 50


@pytest.mark.parametrize(
    ("phone", "locale", "kept"),
    [
        ("+34 912 345 678", "es_ES", "+34 "),
        ("+49 30 1234567", "en_US", "+49 "),
        ("0049 89 123456", "de_DE", "0049 "),
        ("06221 4837261", "de_DE", "0"),
        ("0171/1234567", "de_DE", "0"),
    ],
)
def test_a_phones_country_code_and_trunk_zero_stay(phone: str, locale: str, kept: str) -> None:
    from radeid.replace.surrogate import SurrogateOptions

    for i in range(20):
        doc = Document("d", phone, patient_id="p1")
        new = (
            SurrogateReplacer(bytes([i]) * 32, SurrogateOptions(locale=locale))
            .replace(doc, [Span(0, len(phone), Category.PHONE)])
            .text
        )
        assert new.startswith(kept) and new != phone and shape(new) == shape(phone)
        assert new[len(kept)] != "0"  # an area code never starts with 0
