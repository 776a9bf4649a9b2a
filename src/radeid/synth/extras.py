"""Extra content for generated documents (`SynthOptions.extras`): harder negatives, more PHI contexts.

The bundled model, trained on the first generator only, redacted clinical values that look like
PHI (`3/6` murmurs, `20/20` vision, `Temp 98.6`, ICD codes, `Jackson-Pratt drain`, `Fleischner
Society`, exam titles, departments, holidays) and missed names, addresses and dates written in ways
the templates never used. Extras add both, mixed into the documents of `generate.py`:

- `negative(rng)`: one PHI-free sentence of a class in `NEGATIVE_CLASSES` (in `extra_negatives.py`,
  split from here in issue 11 and re-exported);
- `phi_sentence(b, x)`: one sentence with PHI written differently (names without titles, names
  before "is a NN yo", international addresses, company names, facilities after "at"/"from",
  `(tel. 217.555.0147)`, possessives with only the name labelled, ISO date-times with only the date
  labelled, compact dates `05MAR2019` / `20190305`).

All randomness comes from the document's *extra* generator (`Extra.rng`/`Extra.fakes`), never
from the main one, so a document's main content is the same with and without extras.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache

from radeid.core.categories import Category as C
from radeid.synth.builder import DocBuilder
from radeid.synth.extra_negatives import DEPARTMENTS, NEGATIVE_CLASSES, negative
from radeid.synth.fakes import Fakes

__all__ = ["DEPARTMENTS", "NEGATIVE_CLASSES", "PHI_CONTEXTS", "Extra", "negative", "negatives", "phi_sentence"]

_MON = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")


@lru_cache(maxsize=1)
def _intl_fakers() -> dict[str, object]:
    from faker import Faker

    return {loc: Faker(loc) for loc in ("en_GB", "de_DE", "fr_FR", "en_CA", "en_AU", "es_ES", "it_IT", "nl_NL")}


_COUNTRIES = {
    "en_GB": ("United Kingdom", "UK", "England"), "de_DE": ("Germany", "Deutschland"), "fr_FR": ("France",),
    "en_CA": ("Canada",), "en_AU": ("Australia",), "es_ES": ("Spain", "España"), "it_IT": ("Italy", "Italia"),
    "nl_NL": ("Netherlands", "The Netherlands"),
}  # fmt: skip
_GIVEN_PARTS = ("SOO", "JIN", "MIN", "JI", "HYUN", "YOUNG", "MEI", "LING", "XIAO", "WEI", "ANH", "THU", "HUI", "YEON")
_ASIAN_LAST = ("LEE", "KIM", "PARK", "CHOI", "NGUYEN", "TRAN", "WANG", "ZHANG", "LIU", "CHEN", "HUANG", "YANG")
_COMPANY_TAILS = (
    "Imaging LLC", "Medical Systems Inc.", "Diagnostics Ltd", "Radiology Partners LLC", "Health Solutions Inc",
    "Teleradiology Group", "MedTech GmbH", "Imaging Services, Inc.", "Scanning Co.", "Billing Services LLC",
)  # fmt: skip


@dataclass
class Extra:
    """A document's extra randomness: its own `random.Random` and `Fakes` (main draws untouched)."""

    rng: random.Random
    fakes: Fakes
    exam: datetime


def _with_rng(b: DocBuilder, x: Extra) -> Callable[[], None]:
    """Make `b` draw typos from the extra generator until the returned function is called."""
    saved = b.rng
    b.rng = x.rng

    def restore() -> None:
        b.rng = saved

    return restore


def _name_no_title(b: DocBuilder, x: Extra) -> None:
    r, f = x.rng, x.fakes
    if r.random() < 0.5:
        last = r.choice(_ASIAN_LAST)
        given = "-".join(r.sample(_GIVEN_PARTS, 2))
        title = r.choice(("Ms", "Mr", "Mrs", "Miss"))
    else:
        p = f.person()
        last, given, title = p.last.upper(), p.first.upper(), ("Ms" if p.female else "Mr")
    b.text(r.choice(("Patient: ", "Name: ", "PT: ", "")))
    name = r.choice((f"{last}, {given}", f"{last},{given}", f"{last} {given}"))
    b.phi(name, C.PATIENT)
    b.text(r.choice((f" ({title})", f" ({title}.)", "")))


def _surname_is_a(b: DocBuilder, x: Extra) -> None:
    r, f = x.rng, x.fakes
    p = f.person()
    b.phi(p.last, C.PATIENT)
    age = r.randrange(18, 104)
    b.text(" is a ")
    if age > 89:
        b.phi(str(age), C.AGE)
    else:
        b.text(str(age))
    b.text(r.choice((" yo ", " year old ", "-year-old ", " y/o ")))
    b.text(r.choice(("with ", "who presents with ", "here for ")) + r.choice(("chest pain.", "a cough.", "follow-up.")))


@lru_cache(maxsize=1)
def _italian_cities() -> list[str]:
    from faker.providers.address.it_IT import Provider

    return sorted(Provider.cities)


def _intl_address(b: DocBuilder, x: Extra) -> None:
    r = x.rng
    fakers = _intl_fakers()
    loc = r.choice(tuple(fakers))
    fk = fakers[loc]
    fk.seed_instance(r.getrandbits(32))  # type: ignore[attr-defined]
    street = fk.street_address().replace("\n", " ")  # type: ignore[attr-defined]
    if loc == "it_IT":  # Faker builds it_IT's city list from a set: its order changes with PYTHONHASHSEED
        city = fk.random_element(_italian_cities())  # type: ignore[attr-defined]  # same draw, stable order
    else:
        city = fk.city()  # type: ignore[attr-defined]
    post = fk.postcode()  # type: ignore[attr-defined]
    country = r.choice(_COUNTRIES[loc])
    b.text(r.choice(("Address: ", "Home address: ", "Lives at ", "Forwarding address: ")))
    b.phi(street, C.LOCATION, "STREET")
    b.text(", ")
    if loc in ("de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL"):
        b.phi(post, C.LOCATION, "ZIP")
        b.text(" ")
        b.phi(city, C.LOCATION, "CITY")
    else:
        b.phi(city, C.LOCATION, "CITY")
        b.text(" ")
        b.phi(post, C.LOCATION, "ZIP")
    b.text(", ")
    b.phi(country, C.LOCATION, "COUNTRY")
    b.text(r.choice((".", "")))


def _company(b: DocBuilder, x: Extra) -> None:
    r, f = x.rng, x.fakes
    base = f.faker.last_name() if r.random() < 0.6 else r.choice(("Acme", "Summit", "Apex", "Pinnacle", "Horizon"))
    name = f"{base} {r.choice(_COMPANY_TAILS)}"
    b.text(r.choice(("Images processed by ", "Billing: ", "Interpreted under contract with ", "Courtesy of ")))
    b.phi(name, C.VENDOR, "COMPANY")
    b.text(".")


def _facility(b: DocBuilder, x: Extra) -> None:
    r, f = x.rng, x.fakes
    b.text(r.choice(("Outside films from ", "Prior MRI at ", "Transferred from ", "Previously seen at ",
                     "Biopsy performed at ", "Records requested from ")))  # fmt: skip
    b.phi(f.hospital(), C.HOSPITAL)
    b.text(r.choice((" were reviewed.", ".", " in the past.", " last year.")))


def _tel(b: DocBuilder, x: Extra) -> None:
    r, f = x.rng, x.fakes
    a, m, n = r.randrange(201, 989), r.randrange(200, 999), r.randrange(10000)
    num = r.choice(
        (f"{a}.{m}.{n:04d}", f"{a}-{m}-{n:04d}", f"+1 {a} {m} {n:04d}", f"+44 20 {m}{r.randrange(10)} {n:04d}")
    )
    b.text(r.choice(("Contact daughter ", "Call the reading room ", "Questions to the technologist ")))
    b.text(r.choice(("(tel. ", "(tel: ", "(ph ", "(phone ", "(Tel.: ")))
    b.phi(num, C.PHONE)
    b.text(")")
    if r.random() < 0.3:
        b.text(" or ")
        b.phi(f.phone(), C.PHONE)
    b.text(".")


def _possessive(b: DocBuilder, x: Extra) -> None:
    r, f = x.rng, x.fakes
    p = f.person()
    if r.random() < 0.6:
        b.text(r.choice(("Per ", "As noted in ", "Reviewed with ")))
        b.text(r.choice(("Dr ", "Dr. ")))
        b.phi(p.last, C.HCW)
        b.text(r.choice(("'s note.", "'s team.", "'s clinic note.", "'s recommendation.")))
    else:
        b.phi(p.last, C.PATIENT)
        b.text(r.choice(("'s daughter is at the bedside.", "'s symptoms improved.", "'s wife provided history.")))


def _iso_datetime(b: DocBuilder, x: Extra) -> None:
    r, f = x.rng, x.fakes
    day = f.day(date(2009, 1, 1), 5000)
    h, m, s = r.randrange(24), r.randrange(60), r.randrange(60)
    b.text(r.choice(("Acquisition time: ", "Study DateTime: ", "Signed ", "Created: ")))
    b.phi(f"{day:%Y-%m-%d}", C.DATE)
    b.text(r.choice((f"T{h:02d}:{m:02d}:{s:02d}", f" {h:02d}:{m:02d}", f"T{h:02d}:{m:02d}:{s:02d}Z",
                     f" {h:02d}:{m:02d}:{s:02d}.{r.randrange(1000):03d}")))  # fmt: skip


def _compact_date(b: DocBuilder, x: Extra) -> None:
    r, f = x.rng, x.fakes
    day = f.day(date(2009, 1, 1), 5000)
    text = r.choice(
        (
            f"{day.day:02d}{_MON[day.month - 1]}{day.year}",
            f"{day:%Y%m%d}",
            f"{day.day:02d}-{_MON[day.month - 1]}-{day.year}",
        )
    )
    b.text(r.choice(("DOS: ", "Exam date ", "Collected ", "Date: ", "Prior exam ")))
    b.phi(text, C.DATE)
    b.text(r.choice((".", "", " (outside).")))


PHI_CONTEXTS: dict[str, Callable[[DocBuilder, Extra], None]] = {
    "name_no_title": _name_no_title,
    "surname_is_a": _surname_is_a,
    "intl_address": _intl_address,
    "company": _company,
    "facility": _facility,
    "tel": _tel,
    "possessive": _possessive,
    "iso_datetime": _iso_datetime,
    "compact_date": _compact_date,
}


def phi_sentence(b: DocBuilder, x: Extra, kind: str | None = None) -> None:
    """Write one sentence with PHI in one of the extra contexts (typos drawn from `x`)."""
    restore = _with_rng(b, x)
    try:
        PHI_CONTEXTS[kind or x.rng.choice(tuple(PHI_CONTEXTS))](b, x)
    finally:
        restore()


def negatives(b: DocBuilder, x: Extra, k: int, sep: str = " ") -> None:
    """`k` negative sentences (recorded as hard negatives), each preceded by `sep`."""
    for _ in range(k):
        b._push(sep)  # noqa: SLF001 - separator without typos or negative mark
        b.negative(negative(x.rng))
